// Runs the real Electron main module (src-main/electron/main.ts) against a fake Electron: the
// gateway really starts, and the window, tray, IPC and security hooks are checked as the app set
// them up. The real Electron run is covered by test/e2e/electron.spec.ts where a binary exists.
import { waitFor } from './busy-port-launch';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FakeElectron, FakeMenuItem } from './fake-electron';
import { fakeEvent } from './fake-electron';

const state = vi.hoisted(() => ({ fake: null as FakeElectron | null }));

vi.mock('electron', async () => (await import('./fake-electron')).mockElectronModule(state));

let dataDir: string;
let previousEnv: Record<string, string | undefined>;

function fake(): FakeElectron {
  if (!state.fake) throw new Error('electron was never imported');
  return state.fake;
}

function gatewayUrl(): string {
  const window = fake().record.windows[0];
  return new URL(window.loadedUrl ?? '').origin;
}

function menuItem(label: RegExp): FakeMenuItem {
  const item = fake().record.trays[0].menu.find((candidate) => candidate.label !== undefined && label.test(candidate.label));
  if (!item) throw new Error(`No tray menu item ${label}`);
  return item;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-desktop-data-'));
  previousEnv = { GATEHOUSE_DATA_DIR: process.env.GATEHOUSE_DATA_DIR, GATEHOUSE_PORT: process.env.GATEHOUSE_PORT };
  process.env.GATEHOUSE_DATA_DIR = dataDir;
  process.env.GATEHOUSE_PORT = '0';
  await import('../../../src-main/electron/main');
  await waitFor(() => fake().record.windows[0]?.loadedUrl, 'the window to load the UI');
});

afterAll(async () => {
  if (state.fake && !state.fake.record.quitCompleted) {
    state.fake.app.quit();
    await waitFor(() => (state.fake?.record.quitCompleted ? true : null), 'quit');
  }
  for (const [name, value] of Object.entries(previousEnv)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the desktop main process (with a fake Electron)', () => {
  it('names the app Gatehouse and keeps its profile in the data dir it was given', () => {
    expect(fake().record.name).toBe('Gatehouse');
    expect(fake().record.sandboxEnabled).toBe(true);
    expect(fake().app.getPath('userData')).toBe(dataDir);
  });

  it('starts the gateway in-process and loads the window from it', async () => {
    const url = fake().record.windows[0].loadedUrl ?? '';
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const health = await fetch(`${gatewayUrl()}/admin/api/health`, { headers: { authorization: `Bearer ${token}` } });
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ ok: true });
    expect(existsSync(join(dataDir, 'gatehouse.db'))).toBe(true);
  });

  it('opens the window sandboxed, isolated and without Node', () => {
    const preferences = fake().record.windows[0].options.webPreferences;
    expect(preferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, webSecurity: true, webviewTag: false });
    expect(String(preferences.preload)).toMatch(/out[/\\]preload[/\\]index\.cjs$|preload[/\\]index\.cjs$/);
  });

  it('hands the admin token only to the gateway page, through the bootstrap message', () => {
    const token = readFileSync(join(dataDir, 'admin-token'), 'utf8').trim();
    const ask = (url: string, parent: object | null = null, windowUrl = '') => {
      const event = { senderFrame: { url, parent }, sender: { getURL: () => windowUrl }, returnValue: undefined as unknown };
      fake().ipcMain.emit('gatehouse:bootstrap', event);
      return event.returnValue;
    };
    expect(ask(`${gatewayUrl()}/`)).toEqual({ adminToken: token, platform: process.platform });
    expect(ask('https://evil.example/')).toBeNull();
    expect(ask(`${gatewayUrl()}/`, {})).toBeNull();
    // A frame whose URL is not committed yet falls back to the window's URL, still checked.
    expect(ask('', null, `${gatewayUrl()}/`)).toEqual({ adminToken: token, platform: process.platform });
    expect(ask('', null, 'https://evil.example/')).toBeNull();
  });

  it('adds the Content-Security-Policy to what the gateway serves, and only there', () => {
    const listener = fake().record.headersListener;
    if (!listener) throw new Error('no onHeadersReceived listener');
    let headers: Record<string, string[]> | undefined;
    listener({ url: `${gatewayUrl()}/`, responseHeaders: { 'content-type': ['text/html'] } }, (response) => {
      headers = response.responseHeaders;
    });
    expect(headers?.['Content-Security-Policy']?.[0]).toContain("script-src 'self'");
    expect(headers?.['content-type']).toEqual(['text/html']);
    listener({ url: 'https://example.com/' }, (response) => {
      headers = response.responseHeaders;
    });
    expect(headers).toBeUndefined();
  });

  it('denies permission requests other than clipboard writes from the gateway page', () => {
    const handler = fake().record.permissionRequestHandler;
    if (!handler) throw new Error('no permission handler');
    const answers: boolean[] = [];
    handler(null, 'media', (granted) => answers.push(granted), { requestingUrl: `${gatewayUrl()}/` });
    handler(null, 'geolocation', (granted) => answers.push(granted), { requestingUrl: `${gatewayUrl()}/` });
    handler(null, 'clipboard-sanitized-write', (granted) => answers.push(granted), { requestingUrl: `${gatewayUrl()}/` });
    expect(answers).toEqual([false, false, true]);
  });

  it('keeps the window on the gateway and sends allowlisted https links to the system browser', () => {
    const contents = fake().record.windows[0].webContents;
    const away = fakeEvent({ url: 'https://evil.example/' });
    contents.emit('will-navigate', away);
    expect(away.defaultPrevented).toBe(true);
    const docs = fakeEvent({ url: 'https://github.com/' });
    contents.emit('will-navigate', docs);
    expect(docs.defaultPrevented).toBe(true);
    const home = fakeEvent({ url: `${gatewayUrl()}/#/logs` });
    contents.emit('will-navigate', home);
    expect(home.defaultPrevented).toBe(false);

    expect(contents.windowOpenHandler?.({ url: 'https://platform.openai.com/docs' })).toEqual({ action: 'deny' });
    expect(contents.windowOpenHandler?.({ url: 'http://phish.example/' })).toEqual({ action: 'deny' });
    expect(fake().record.openedExternally).toEqual(['https://github.com/', 'https://platform.openai.com/docs']);
  });

  it('shows in the tray that the gateway runs and where, and copies the base URL', () => {
    const tray = fake().record.trays[0];
    expect(tray.tooltip).toBe(`Gatehouse: running at ${gatewayUrl()}`);
    expect(menuItem(/^Running at/)).toMatchObject({ label: `Running at ${gatewayUrl()}`, enabled: false });
    menuItem(/^Copy base URL/).click?.();
    expect(fake().record.clipboard).toEqual([`${gatewayUrl()}/v1`]);
    expect(menuItem(/^Start at login$/)).toMatchObject({ type: 'checkbox' });
  });

  it('keeps running when the window closes, and says so once', async () => {
    const window = fake().record.windows[0];
    window.show();
    window.close();
    expect(window.destroyed).toBe(false);
    expect(window.visible).toBe(false);
    window.close();
    expect(fake().record.notifications).toHaveLength(1);
    expect(fake().record.notifications[0].body).toContain(gatewayUrl());
    const health = await fetch(`${gatewayUrl()}/admin/api/health`);
    expect(health.status).toBe(401);

    menuItem(/^Open Gatehouse$/).click?.();
    expect(window.visible).toBe(true);
  });

  it('a second launch brings the window back', () => {
    const window = fake().record.windows[0];
    window.hide();
    fake().app.emit('second-instance', fakeEvent({}), [], '');
    expect(window.visible).toBe(true);
  });

  it('stops the gateway on Quit and then lets the app exit, also when Quit comes again meanwhile; the log is written first', async () => {
    const url = gatewayUrl();
    // A refused call: its row is coalesced and written only by the stop's last flush.
    expect((await fetch(`${url}/v1/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer not-a-key', 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);
    const reader = new Database(join(dataDir, 'gatehouse.db'), { readonly: true });
    let rowsWhenQuit: number | null = null;
    let quitCompleted = false;
    Object.defineProperty(fake().record, 'quitCompleted', {
      get: () => quitCompleted,
      set: (value: boolean) => {
        if (value && !quitCompleted) rowsWhenQuit = (reader.prepare('SELECT count(*) AS n FROM request_log').get() as { n: number }).n;
        quitCompleted = value;
      },
    });
    menuItem(/^Quit Gatehouse$/).click?.();
    // Quit again (or SIGTERM) while the first is stopping the gateway.
    fake().app.quit();
    await waitFor(() => (fake().record.quitCompleted ? true : null), 'the app to quit');
    reader.close();
    expect(rowsWhenQuit).toBe(1);
    await expect(fetch(`${url}/admin/api/health`)).rejects.toThrow();
    expect(fake().record.trays[0].destroyed).toBe(true);
    expect(fake().record.exitCode).toBeNull();
  });
});
