// When the port is taken at launch and the user declines the offered port, the app quits (fake Electron).
import { describe, expect, it, vi } from 'vitest';
import type { FakeElectron } from './fake-electron';
import { useBusyPortLaunch, waitFor } from './busy-port-launch';

const state = vi.hoisted(() => ({ fake: null as FakeElectron | null, response: 1 }));

vi.mock('electron', async () => (await import('./fake-electron')).mockElectronModule(state, { messageBoxResponse: () => state.response }));

const launch = useBusyPortLaunch(state);

describe('a busy port at launch', () => {
  it('quits without starting when the user declines', async () => {
    await import('../../../src-main/electron/main');
    await waitFor(() => launch.fake().record.exitCode, 'the app to exit');
    expect(launch.fake().record.exitCode).toBe(1);
    expect(launch.fake().record.windows).toHaveLength(0);
    expect(launch.fake().record.errorBoxes).toHaveLength(0);
  });
});
