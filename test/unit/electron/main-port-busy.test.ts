// When the port is taken at launch, the app says so and offers the next free port (fake Electron).
import { describe, expect, it, vi } from 'vitest';
import type { FakeElectron } from './fake-electron';
import { useBusyPortLaunch, waitFor } from './busy-port-launch';

const state = vi.hoisted(() => ({ fake: null as FakeElectron | null, response: 0 }));

vi.mock('electron', async () => (await import('./fake-electron')).mockElectronModule(state, { messageBoxResponse: () => state.response }));

const launch = useBusyPortLaunch(state);

describe('a busy port at launch', () => {
  it('offers the next free port, uses it, and remembers it', async () => {
    await import('../../../src-main/electron/main');
    const url = await waitFor(() => launch.fake().record.windows[0]?.loadedUrl, 'the window');
    const box = launch.fake().record.messageBoxes[0];
    expect(box.message).toBe(`Port ${launch.busyPort} is already in use`);
    const offered = Number(/Use port (\d+)/.exec(box.buttons[0])?.[1]);
    expect(offered).toBeGreaterThan(launch.busyPort);
    expect(box.detail).toContain('remember');
    expect(url).toBe(`http://127.0.0.1:${offered}/`);
    const { loadDesktopSettings } = await import('../../../src-main/electron/desktop-settings');
    expect(loadDesktopSettings(launch.dataDir).port).toBe(offered);
  });
});
