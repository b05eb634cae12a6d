// The address saved under Settings → Network is where `gatehouse serve` listens at its next start,
// unless a flag or GATEHOUSE_HOST / GATEHOUSE_PORT says otherwise.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startGatehouse, type RunningGatehouse } from '../../src-main/app.js';
import { openDatabase } from '../../src-main/store/database.js';
import { SettingsStore } from '../../src-main/store/settings.js';
import { TEST_MASTER_KEY } from '../helpers/gateway.js';

let dataDir: string;
let running: RunningGatehouse | undefined;

afterEach(async () => {
  await running?.stop();
  running = undefined;
  rmSync(dataDir, { recursive: true, force: true });
});

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function savedSettings(change: Record<string, unknown>): Promise<void> {
  dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-settings-listen-'));
  const db = openDatabase(dataDir);
  await new SettingsStore(db).update(change);
  db.close();
}

const env = () => ({ GATEHOUSE_MASTER_KEY: TEST_MASTER_KEY, HOME: dataDir });

describe('the saved listening address', () => {
  it('is used at the next start when nothing else chooses one', async () => {
    const port = await freePort();
    await savedSettings({ port });
    running = await startGatehouse({ dataDir, env: env() });
    expect(running.port).toBe(port);
    expect(running.services.listening).toEqual({ host: '127.0.0.1', port });
  });

  it('gives way to GATEHOUSE_PORT and to the --port flag', async () => {
    const [saved, fromEnv] = [await freePort(), await freePort()];
    await savedSettings({ port: saved });
    running = await startGatehouse({ dataDir, env: { ...env(), GATEHOUSE_PORT: String(fromEnv) } });
    expect(running.port).toBe(fromEnv);
    await running.stop();
    running = await startGatehouse({ dataDir, port: 0, env: env() });
    expect(running.port).not.toBe(saved);
  });

  it('refuses a saved address beyond loopback without --allow-remote, and leaves the data alone', async () => {
    await savedSettings({ host: '0.0.0.0' });
    await expect(startGatehouse({ dataDir, port: 0, env: env() })).rejects.toThrow(/Refusing to listen on 0\.0\.0\.0/);
    // The database was closed again: it opens, with the setting still there.
    const db = openDatabase(dataDir);
    expect(new SettingsStore(db).get().host).toBe('0.0.0.0');
    db.close();
  });
});
