import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  forgetLegacyPort,
  LaunchOptionError,
  loadDesktopSettings,
  resolveLaunchOptions,
  saveDesktopSettings,
  settingsPath,
  updateDesktopSettings,
} from '../../../src-main/electron/desktop-settings';

describe('launch options', () => {
  it('uses 127.0.0.1, the port saved in Settings → Network and the app folder when nothing is given', () => {
    expect(resolveLaunchOptions(['electron', 'out/main/index.js'], {}, {})).toEqual({
      host: '127.0.0.1',
      port: null,
      portSource: 'settings',
      legacyPort: null,
      dataDir: null,
    });
  });

  it('does not listen on a port remembered by earlier versions itself: it is handed on to move to Settings → Network', () => {
    expect(resolveLaunchOptions([], {}, { port: 8790 })).toMatchObject({ port: null, portSource: 'settings', legacyPort: 8790 });
  });

  it('takes GATEHOUSE_PORT over the saved port, and 0 for a free port', () => {
    expect(resolveLaunchOptions([], { GATEHOUSE_PORT: '9001' }, { port: 8790 })).toMatchObject({ port: 9001, portSource: 'environment', legacyPort: 8790 });
    expect(resolveLaunchOptions([], { GATEHOUSE_PORT: '0' }, {})).toMatchObject({ port: 0, portSource: 'environment' });
  });

  it('takes --port over the environment, in both --port=N and --port N forms', () => {
    expect(resolveLaunchOptions(['--port=9100'], { GATEHOUSE_PORT: '9001' }, {})).toMatchObject({ port: 9100, portSource: 'argument' });
    expect(resolveLaunchOptions(['--port', '9101'], {}, {})).toMatchObject({ port: 9101, portSource: 'argument' });
  });

  it('reads the data dir and host from arguments or GATEHOUSE_DATA_DIR / GATEHOUSE_HOST', () => {
    expect(resolveLaunchOptions(['--data-dir', '/tmp/a'], { GATEHOUSE_DATA_DIR: '/tmp/b' }, {}).dataDir).toBe('/tmp/a');
    expect(resolveLaunchOptions([], { GATEHOUSE_DATA_DIR: '/tmp/b', GATEHOUSE_HOST: '::1' }, {})).toMatchObject({ dataDir: '/tmp/b', host: '::1' });
  });

  it('ignores the Chromium switches Electron passes along', () => {
    expect(resolveLaunchOptions(['--no-sandbox', '--enable-logging', '--hidden'], {}, {})).toMatchObject({ port: null, portSource: 'settings' });
  });

  it('refuses a port that is not a number from 0 to 65535, naming where it came from', () => {
    expect(() => resolveLaunchOptions([], { GATEHOUSE_PORT: 'http' }, {})).toThrow(/GATEHOUSE_PORT/);
    expect(() => resolveLaunchOptions(['--port=70000'], {}, {})).toThrow(LaunchOptionError);
    expect(() => resolveLaunchOptions(['--port'], {}, {})).toThrow(/--port/);
    expect(() => resolveLaunchOptions(['--port=-1'], {}, {})).toThrow(/--port/);
  });
});

describe('desktop settings file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-settings-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('is empty when there is no file yet', () => {
    expect(loadDesktopSettings(dir)).toEqual({});
  });

  it('remembers the tray notice', () => {
    updateDesktopSettings(dir, { trayNoticeShown: true });
    expect(loadDesktopSettings(dir)).toEqual({ trayNoticeShown: true });
    expect(statSync(settingsPath(dir)).mode & 0o777).toBe(0o600);
  });

  it('reads a port earlier versions remembered, and forgets it once it has moved to Settings → Network', () => {
    writeFileSync(settingsPath(dir), JSON.stringify({ port: 8788, trayNoticeShown: true }));
    expect(loadDesktopSettings(dir)).toEqual({ port: 8788, trayNoticeShown: true });
    forgetLegacyPort(dir);
    expect(loadDesktopSettings(dir)).toEqual({ trayNoticeShown: true });
    expect(JSON.parse(readFileSync(settingsPath(dir), 'utf8'))).toEqual({ trayNoticeShown: true });
  });

  it('treats a damaged file as empty and drops values of the wrong type', () => {
    writeFileSync(settingsPath(dir), '{"port": ');
    expect(loadDesktopSettings(dir)).toEqual({});
    writeFileSync(settingsPath(dir), JSON.stringify({ port: 'eighty', trayNoticeShown: 'yes' }));
    expect(loadDesktopSettings(dir)).toEqual({});
    writeFileSync(settingsPath(dir), JSON.stringify({ port: 0 }));
    expect(loadDesktopSettings(dir)).toEqual({});
  });

  it('writes complete JSON documents', () => {
    saveDesktopSettings(dir, { port: 9000 });
    expect(JSON.parse(readFileSync(settingsPath(dir), 'utf8'))).toEqual({ port: 9000 });
  });
});
