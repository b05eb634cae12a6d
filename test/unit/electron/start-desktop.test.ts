// The launcher script is plain JavaScript run by Node; its helpers are loaded through a typed view.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

interface StartDesktopModule {
  abiFromSymbols(text: string): number | null;
  firstErrorLine(text: string): string;
  bindingCachePath(root: string, electronVersion: string, sqliteVersion: string, platform?: string, arch?: string): string;
  electronBuildEnv(env: Record<string, string | undefined>): Record<string, string>;
  findElectronBinary(root: string, env: Record<string, string | undefined>): string | null;
  parseStartArguments(argv: string[]): { skipBuild: boolean; prepareOnly: boolean; appArgs: string[] };
  isElectronAbi(file: string, expectedAbi: number | null): boolean;
}

const root = fileURLToPath(new URL('../../../', import.meta.url));
const scriptPath = join(root, 'scripts', 'start-desktop.mjs');
let launcher: StartDesktopModule;
let emptyDir: string;

beforeAll(async () => {
  launcher = (await import(scriptPath)) as StartDesktopModule;
  emptyDir = mkdtempSync(join(tmpdir(), 'gatehouse-no-electron-'));
});
afterAll(() => rmSync(emptyDir, { recursive: true, force: true }));

describe('npm start (scripts/start-desktop.mjs)', () => {
  it('ends at once with exit code 1 and names `npx gatehouse serve` when there is no Electron binary', () => {
    const result = spawnSync(process.execPath, [scriptPath, '--skip-build'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 15_000,
      env: { ...process.env, ELECTRON_OVERRIDE_DIST_PATH: emptyDir },
    });
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('No Electron binary');
    expect(result.stderr).toContain('npx gatehouse serve');
  });

  it('finds no binary in an empty override folder without starting a download', () => {
    expect(launcher.findElectronBinary(root, { ELECTRON_OVERRIDE_DIST_PATH: emptyDir })).toBeNull();
  });

  it('keeps npm config that would point node-gyp at Node headers out of the Electron build', () => {
    const env = launcher.electronBuildEnv({ npm_config_nodedir: '/usr', NPM_CONFIG_NODEDIR: '/usr', npm_config_target: '20.0.0', PATH: '/bin' });
    expect(env).toEqual({ PATH: '/bin' });
  });

  it('caches one build per Electron version, better-sqlite3 version and platform', () => {
    expect(launcher.bindingCachePath('/repo', '45.4.1', '12.6.2', 'linux', 'x64')).toBe(
      join('/repo', 'node_modules', '.cache', 'gatehouse-electron', '45.4.1', 'better-sqlite3-12.6.2-linux-x64.node'),
    );
  });

  it('reads the ABI of a native addon from its registration symbol', () => {
    expect(launcher.abiFromSymbols('0001a450 T node_register_module_v150')).toBe(150);
    expect(launcher.abiFromSymbols('')).toBeNull();
  });

  it('never takes the shared Node build of better-sqlite3 for an Electron build', () => {
    const nodeBuild = createRequire(import.meta.url).resolve('better-sqlite3/build/Release/better_sqlite3.node');
    expect(launcher.isElectronAbi(nodeBuild, 150)).toBe(false);
    expect(launcher.isElectronAbi(nodeBuild, null)).toBe(false);
    expect(launcher.isElectronAbi(join(emptyDir, 'missing.node'), 150)).toBe(false);
  });

  it('reports the root cause of a failed Electron download', () => {
    const stderr = 'Downloading Electron binary...\nTypeError: fetch failed\n    at x\nError: Electron failed to install correctly.\n';
    expect(launcher.firstErrorLine(stderr)).toBe('TypeError: fetch failed');
  });

  it('passes arguments after its own flags to the app', () => {
    expect(launcher.parseStartArguments(['--skip-build', '--', '--port', '9000'])).toEqual({ skipBuild: true, prepareOnly: false, appArgs: ['--port', '9000'] });
    expect(launcher.parseStartArguments(['--prepare-only', '--hidden'])).toEqual({ skipBuild: false, prepareOnly: true, appArgs: ['--hidden'] });
  });
});
