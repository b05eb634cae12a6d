// When the port is taken at launch, the app says so and offers the next free port (fake Electron).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FakeElectron } from './fake-electron';

const state = vi.hoisted(() => ({ fake: null as FakeElectron | null, response: 0 }));

vi.mock('electron', async () => {
  const { createFakeElectron } = await import('./fake-electron');
  const { mkdtempSync: makeTemp } = await import('node:fs');
  const { tmpdir: temp } = await import('node:os');
  const { join: joinPath } = await import('node:path');
  state.fake = createFakeElectron({ userData: makeTemp(joinPath(temp(), 'gatehouse-fake-userdata-')), messageBoxResponse: () => state.response });
  return state.fake.electron;
});

let dataDir: string;
let blocker: Server;
let busyPort: number;

function fake(): FakeElectron {
  if (!state.fake) throw new Error('electron was never imported');
  return state.fake;
}

async function waitFor<T>(read: () => T | null | undefined, what: string): Promise<T> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const value = read();
    if (value !== null && value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-desktop-busy-'));
  blocker = createServer();
  busyPort = await new Promise<number>((resolve) => {
    blocker.listen({ host: '127.0.0.1', port: 0 }, () => {
      const address = blocker.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    });
  });
  // The remembered port is the app's own choice, so a replacement may be remembered too.
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

describe('a busy port at launch', () => {
  it('offers the next free port, uses it, and remembers it', async () => {
    state.response = 0;
    await import('../../../src-main/electron/main');
    const url = await waitFor(() => fake().record.windows[0]?.loadedUrl, 'the window');
    const box = fake().record.messageBoxes[0];
    expect(box.message).toBe(`Port ${busyPort} is already in use`);
    const offered = Number(/Use port (\d+)/.exec(box.buttons[0])?.[1]);
    expect(offered).toBeGreaterThan(busyPort);
    expect(box.detail).toContain('remember');
    expect(url).toBe(`http://127.0.0.1:${offered}/`);
    const { loadDesktopSettings } = await import('../../../src-main/electron/desktop-settings');
    expect(loadDesktopSettings(dataDir).port).toBe(offered);
  });
});
