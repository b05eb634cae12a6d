import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { autostartFilePath, buildAutostartEntry, isAutostartEnabled, quoteExecArgument, setAutostartEnabled } from '../../../src-main/electron/login-item';

describe('start at login on Linux', () => {
  it('writes an XDG autostart entry that starts the app hidden in the tray', () => {
    const entry = buildAutostartEntry({ execPath: '/opt/Gatehouse/gatehouse', args: ['--hidden'], env: {} });
    expect(entry).toContain('[Desktop Entry]');
    expect(entry).toContain('Type=Application');
    expect(entry).toContain('Exec=/opt/Gatehouse/gatehouse --hidden');
  });

  it('quotes paths with spaces and escapes the characters the Exec key reserves', () => {
    expect(quoteExecArgument('/home/a b/app')).toBe('"/home/a b/app"');
    expect(quoteExecArgument('say "$HOME"')).toBe('"say \\"\\$HOME\\""');
    const entry = buildAutostartEntry({ execPath: '/x/electron', args: ['/home/me/100% dir/out/main/index.js'], env: { GATEHOUSE_SQLITE_BINDING: '/c/b.node' } });
    expect(entry).toContain('Exec=env GATEHOUSE_SQLITE_BINDING=/c/b.node /x/electron "/home/me/100%% dir/out/main/index.js"');
  });

  it('follows XDG_CONFIG_HOME', () => {
    expect(autostartFilePath({ XDG_CONFIG_HOME: '/cfg' })).toBe('/cfg/autostart/gatehouse.desktop');
  });

  it('turns on and off by creating and removing the entry', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-autostart-'));
    try {
      const file = join(dir, 'autostart', 'gatehouse.desktop');
      const command = { execPath: '/opt/gatehouse', args: ['--hidden'], env: {} };
      expect(isAutostartEnabled(file)).toBe(false);
      setAutostartEnabled(true, command, file);
      expect(isAutostartEnabled(file)).toBe(true);
      expect(readFileSync(file, 'utf8')).toContain('Exec=/opt/gatehouse --hidden');
      setAutostartEnabled(false, command, file);
      expect(existsSync(file)).toBe(false);
      setAutostartEnabled(false, command, file);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
