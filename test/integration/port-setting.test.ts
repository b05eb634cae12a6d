// One port setting: Settings → Network. A port an earlier desktop version kept in its own file moves
// there (unless Settings was changed since), and a port chosen after a clash is saved there.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startGatehouse, type StartOptions } from '../../src-main/app.js';
import { TEST_MASTER_KEY } from '../helpers/gateway.js';

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-port-setting-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function start(dir: string, options: StartOptions) {
  return startGatehouse({ host: '127.0.0.1', dataDir: dir, env: { GATEHOUSE_MASTER_KEY: TEST_MASTER_KEY, HOME: dir, GATEHOUSE_DISCOVERY_PORTS: '' }, discovery: { intervalMs: 3_600_000 }, ...options });
}

async function savedPort(url: string, adminToken: string): Promise<number> {
  const response = await fetch(`${url}/admin/api/settings`, { headers: { authorization: `Bearer ${adminToken}` } });
  return ((await response.json()) as { port: number }).port;
}

describe('the one port setting', () => {
  it('moves a port kept outside Settings into Settings → Network, where the Settings page reads it', async () => {
    const dir = dataDir();
    const first = await start(dir, { port: 0, adoptPort: 8799 });
    try {
      expect(await savedPort(first.url, first.adminToken)).toBe(8799);
    } finally {
      await first.stop();
    }
  });

  it('keeps a port changed in Settings since: that is the person’s choice', async () => {
    const dir = dataDir();
    const first = await start(dir, { port: 0 });
    await fetch(`${first.url}/admin/api/settings`, { method: 'PATCH', headers: { authorization: `Bearer ${first.adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ port: 9123 }) });
    await first.stop();
    const second = await start(dir, { port: 0, adoptPort: 8799 });
    try {
      expect(await savedPort(second.url, second.adminToken)).toBe(9123);
    } finally {
      await second.stop();
    }
  });

  it('saves a port chosen after a clash, so the next start (app or `gatehouse serve`) listens there', async () => {
    const dir = dataDir();
    const chosen = await start(dir, { port: 0, rememberPort: true });
    const bound = chosen.port;
    expect(await savedPort(chosen.url, chosen.adminToken)).toBe(bound);
    await chosen.stop();
    // No port given: the saved one is used.
    const next = await start(dir, {});
    try {
      expect(next.port).toBe(bound);
    } finally {
      await next.stop();
    }
  });
});
