// Restarting on a data dir: the right master key (raw or passphrase) opens the stored secrets again;
// a wrong one stops the start with a clear message, changes nothing, and is not a crash.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
let fake: OpenAIFake;
let dataDir: string;

beforeAll(async () => {
  fake = await startOpenAIFake();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-master-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

async function storeKey(masterKey: string): Promise<string> {
  const gateway = await startGateway({ dataDir, env: { GATEHOUSE_MASTER_KEY: masterKey } });
  try {
    const response = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'k', provider: 'openai', secret: 'sk-survives-restart', customHost: fake.baseUrl }) });
    return ((await response.json()) as { key: string }).key;
  } finally {
    await gateway.close();
  }
}

async function useKey(masterKey: string, key: string): Promise<number> {
  const gateway = await startGateway({ dataDir, env: { GATEHOUSE_MASTER_KEY: masterKey } });
  try {
    const response = await fetch(`${gateway.baseUrl}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': key },
      body: JSON.stringify({ model: 'm', prompt: 'hi', max_tokens: 1 }),
    });
    await response.text();
    return response.status;
  } finally {
    await gateway.close();
  }
}

describe('the master key across restarts', () => {
  it('the same raw key opens the stored secrets again; a wrong one is refused clearly', async () => {
    const masterKey = randomBytes(32).toString('base64');
    const key = await storeKey(masterKey);
    await expect(startGateway({ dataDir, env: { GATEHOUSE_MASTER_KEY: randomBytes(32).toString('base64') } })).rejects.toThrow(
      /Cannot unlock the stored secrets.*GATEHOUSE_MASTER_KEY is wrong or changed/s,
    );
    expect(await useKey(masterKey, key)).toBe(200);
    expect(fake.requests.at(-1)?.headers.authorization).toBe('Bearer sk-survives-restart');
  });

  it('a passphrase works the same way', async () => {
    const key = await storeKey('a passphrase of decent length');
    await expect(startGateway({ dataDir, env: { GATEHOUSE_MASTER_KEY: 'not the passphrase at all' } })).rejects.toThrow(/Cannot unlock/);
    expect(await useKey('a passphrase of decent length', key)).toBe(200);
  });

  it('`gatehouse serve` with a wrong master key exits 1 with the message, not a stack trace', async () => {
    await storeKey(randomBytes(32).toString('base64'));
    const child = spawn(process.execPath, ['--import', 'tsx', 'src-main/cli.ts', 'serve', '--port', '0', '--data-dir', dataDir], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH, HOME: dataDir, GATEHOUSE_MASTER_KEY: randomBytes(32).toString('base64') },
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(/Cannot unlock the stored secrets/);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});
