// The admin surface when other machines can reach it: a guessable admin token refuses the start, and
// wrong tokens are throttled per client address and logged as coalesced refused rows.
import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

const open: TestGateway[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const gateway of open.splice(0)) await gateway.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-admin-'));
  dirs.push(dir);
  return dir;
}

describe('a guessable admin token where other machines reach the admin API', () => {
  it('refuses the start with --allow-remote and in team mode, naming where the token came from and what to do', async () => {
    for (const weak of ['x', 'admin', 'a'.repeat(100), 'letmein!'.repeat(10)]) {
      await expect(startGateway({ allowRemote: true, env: { GATEHOUSE_ADMIN_TOKEN: weak } })).rejects.toThrow(
        /^Refusing to start with --allow-remote: the admin token in GATEHOUSE_ADMIN_TOKEN is too easy to guess \(about \d+ bits; at least 128 are needed .*openssl rand -base64 32/,
      );
    }
    // Team mode: refused before the database is even tried (nothing listens at port 1).
    await expect(startGateway({ databaseUrl: 'postgres://gatehouse@127.0.0.1:1/gatehouse', env: { GATEHOUSE_ADMIN_TOKEN: 'x' } })).rejects.toThrow(
      /^Refusing to start in team mode: the admin token in GATEHOUSE_ADMIN_TOKEN is too easy to guess/,
    );
    const dataDir = tempDir();
    writeFileSync(join(dataDir, 'admin-token'), 'hunter2\n', { mode: 0o600 });
    await expect(startGateway({ allowRemote: true, dataDir })).rejects.toThrow(`the admin token in ${join(dataDir, 'admin-token')} is too easy to guess`);
  });

  it('starts with the token Gatehouse generates, or a random one given; on loopback alone any token still starts', async () => {
    open.push(await startGateway({ allowRemote: true }));
    open.push(await startGateway({ allowRemote: true, env: { GATEHOUSE_ADMIN_TOKEN: 'Zx9-qT4_mW2pLk7vB8nR3cYh6JdF1sGa' } }));
    const local = await startGateway({ env: { GATEHOUSE_ADMIN_TOKEN: 'x' } });
    open.push(local);
    expect((await local.admin('/health')).status).toBe(200);
  });
});
