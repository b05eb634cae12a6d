// A copy of the data dir must not reveal a provider secret, a virtual key or a gateway key: not in
// the database, not in the WAL or shared-memory file, not in the request log.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

let fake: OpenAIFake;
beforeAll(async () => {
  fake = await startOpenAIFake();
});
afterAll(async () => {
  await fake.close();
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Every needle, in UTF-8 and UTF-16 and base64, in every file of the data dir. */
function plaintextFindings(dataDir: string, needles: string[]): string[] {
  const findings: string[] = [];
  for (const file of filesUnder(dataDir)) {
    const bytes = readFileSync(file);
    for (const needle of needles) {
      const forms = { utf8: Buffer.from(needle, 'utf8'), utf16: Buffer.from(needle, 'utf16le'), base64: Buffer.from(Buffer.from(needle).toString('base64').slice(0, 24)) };
      for (const [form, pattern] of Object.entries(forms)) {
        if (bytes.includes(pattern)) findings.push(`${file} holds ${needle.slice(0, 10)}… (${form})`);
      }
    }
  }
  return findings;
}

async function exercise(gateway: TestGateway): Promise<string[]> {
  const secrets = ['sk-at-rest-openai-9f8e7d6c5b4a', 'sk-at-rest-rotated-1a2b3c4d5e6f', 'sk-at-rest-groq-0f1e2d3c4b5a'];
  const needles = [...secrets];
  const admin = async (path: string, method: string, body?: object) => {
    const response = await gateway.admin(path, { method, body: body ? JSON.stringify(body) : undefined });
    expect(response.status).toBeLessThan(300);
    return (await response.json()) as { id: string; key: string };
  };
  const openai = await admin('/virtual-keys', 'POST', { name: 'openai', provider: 'openai', secret: secrets[0], customHost: fake.baseUrl });
  const groq = await admin('/virtual-keys', 'POST', { name: 'groq', provider: 'groq', secret: secrets[2], customHost: fake.baseUrl });
  const gatewayKey = await admin('/gateway-keys', 'POST', { name: 'ci' });
  needles.push(openai.key, groq.key, gatewayKey.key);

  const send = (headers: Record<string, string>, stream = false) =>
    fetch(`${gateway.baseUrl}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ model: 'gpt-3.5-turbo-instruct', prompt: 'hello', max_tokens: 5, stream }),
    }).then(async (response) => {
      await response.text();
      return response.status;
    });
  expect(await send({ 'x-gateway-api-key': openai.key })).toBe(200);
  expect(await send({ authorization: `Bearer ${groq.key}` }, true)).toBe(200);
  await admin(`/virtual-keys/${openai.id}`, 'PATCH', { secret: secrets[1] });
  expect(await send({ 'x-gateway-api-key': openai.key }, true)).toBe(200);
  expect(await send({ 'x-gateway-api-key': gatewayKey.key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': fake.baseUrl })).toBe(200);
  // Failed attempts are logged too, and must not record the key that was tried.
  expect(await send({ 'x-gateway-api-key': `${openai.key}x` })).toBe(401);
  await gateway.flushLog();
  // What the upstream saw proves the secrets really were in use.
  expect(fake.requests.map((request) => request.headers.authorization)).toContain(`Bearer ${secrets[1]}`);
  return needles;
}

describe('no secret in plain text at rest', () => {
  it('with GATEHOUSE_MASTER_KEY: no file of the data dir (WAL included) holds a secret or key, while running and after', async () => {
    const gateway = await startGateway({ keepDataDir: true });
    try {
      const needles = await exercise(gateway);
      const files = filesUnder(gateway.dataDir).map((file) => file.slice(gateway.dataDir.length + 1));
      expect(files).toEqual(expect.arrayContaining(['gatehouse.db', 'gatehouse.db-wal']));
      expect(plaintextFindings(gateway.dataDir, needles)).toEqual([]);

      const logs = await (await gateway.admin('/logs?limit=50')).text();
      for (const needle of needles) expect(logs).not.toContain(needle);

      await gateway.close();
      expect(plaintextFindings(gateway.dataDir, needles)).toEqual([]);
    } finally {
      await gateway.close();
      rmSync(gateway.dataDir, { recursive: true, force: true });
    }
  });

  it('the scan does find a planted secret (so a clean result means something)', () => {
    const dir = mkdtempSync(join(tmpdir(), 'gatehouse-scan-'));
    try {
      writeFileSync(join(dir, 'gatehouse.db-wal'), Buffer.concat([Buffer.alloc(100), Buffer.from('xx sk-planted-123456789 xx', 'utf16le')]));
      expect(plaintextFindings(dir, ['sk-planted-123456789'])).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('with the key file as last resort: still no plaintext, only a warning that the file is the weak point', async () => {
    const gateway = await startGateway({ env: { GATEHOUSE_MASTER_KEY: '' } });
    try {
      expect(gateway.running.services.keyProtection).toMatchObject({ mode: 'key-file', isProtected: false, warning: expect.stringMatching(/only as safe/) });
      const needles = await exercise(gateway);
      expect(plaintextFindings(gateway.dataDir, needles)).toEqual([]);
    } finally {
      await gateway.close();
    }
  });
});
