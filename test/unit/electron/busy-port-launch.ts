// Shared set-up of the busy-port launch tests: each scenario needs its own file (main.ts runs on
// import, once per module registry), but they share the fake, the blocked port and the clean-up.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { FakeElectron } from './fake-electron';

export async function waitFor<T>(read: () => T | null | undefined, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export interface BusyPortLaunch {
  readonly dataDir: string;
  readonly busyPort: number;
  fake(): FakeElectron;
}

/** Before each test: a port held by another server and remembered as the app's own; after: quit and clean up. */
export function useBusyPortLaunch(state: { fake: FakeElectron | null }): BusyPortLaunch {
  let dataDir = '';
  let busyPort = 0;
  let blocker: Server;
  const fake = () => {
    if (!state.fake) throw new Error('electron was never imported');
    return state.fake;
  };

  beforeEach(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-desktop-busy-'));
    blocker = createServer();
    busyPort = await new Promise<number>((resolve) => {
      blocker.listen({ host: '127.0.0.1', port: 0 }, () => {
        const address = blocker.address();
        resolve(typeof address === 'object' && address ? address.port : 0);
      });
    });
    // The port an earlier version remembered in its own file: it moves to Settings → Network, the app's
    // own choice there, so a replacement may be saved there too.
    writeFileSync(join(dataDir, 'desktop-settings.json'), JSON.stringify({ port: busyPort }));
    process.env.GATEHOUSE_DATA_DIR = dataDir;
    delete process.env.GATEHOUSE_PORT;
  });

  afterEach(async () => {
    const current = state.fake;
    if (current && current.record.windows.length > 0 && !current.record.quitCompleted) {
      current.app.quit();
      await waitFor(() => (current.record.quitCompleted ? true : null), 'quit');
    }
    await new Promise((resolve) => blocker.close(resolve));
    delete process.env.GATEHOUSE_DATA_DIR;
    rmSync(dataDir, { recursive: true, force: true });
  });

  return {
    get dataDir() {
      return dataDir;
    },
    get busyPort() {
      return busyPort;
    },
    fake,
  };
}
