// When the port is taken at launch, the app says so and offers the next free port (fake Electron).
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it, vi } from 'vitest';
import { DATABASE_FILE } from '../../../src-main/store/database';
import { SettingsStore } from '../../../src-main/store/settings';
import type { FakeElectron } from './fake-electron';
import { useBusyPortLaunch, waitFor } from './busy-port-launch';

const state = vi.hoisted(() => ({ fake: null as FakeElectron | null, response: 0 }));

vi.mock('electron', async () => (await import('./fake-electron')).mockElectronModule(state, { messageBoxResponse: () => state.response }));

const launch = useBusyPortLaunch(state);

describe('a busy port at launch', () => {
  it('offers the next free port, uses it, and saves it in Settings → Network, the one port setting', async () => {
    await import('../../../src-main/electron/main');
    const url = await waitFor(() => launch.fake().record.windows[0]?.loadedUrl, 'the window');
    const box = launch.fake().record.messageBoxes[0];
    expect(box.message).toBe(`Port ${launch.busyPort} is already in use`);
    const offered = Number(/Use port (\d+)/.exec(box.buttons[0])?.[1]);
    expect(offered).toBeGreaterThan(launch.busyPort);
    expect(box.detail).toContain('remember');
    expect(url).toBe(`http://127.0.0.1:${offered}/`);
    // Settings → Network (what the Settings page shows and `gatehouse serve` uses) has the new port;
    // the app's own file keeps no port any more.
    const db = new Database(join(launch.dataDir, DATABASE_FILE), { readonly: true });
    try {
      expect(new SettingsStore(db).get().port).toBe(offered);
    } finally {
      db.close();
    }
    const { loadDesktopSettings } = await import('../../../src-main/electron/desktop-settings');
    expect(loadDesktopSettings(launch.dataDir).port).toBeUndefined();
  });
});
