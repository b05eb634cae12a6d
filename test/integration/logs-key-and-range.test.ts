// The request log as the Logs page reads it: each row names the key that made the call, and the list
// can be narrowed to a date range (`since`, `until`), checked against a real gateway and its SQLite log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

let gateway: TestGateway;
let fake: OpenAIFake;
let virtualKeyId: string;
let virtualKey: string;

beforeAll(async () => {
  gateway = await startGateway();
  fake = await startOpenAIFake();
  const created = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'Range key', provider: 'openai', secret: 'sk-range-1234567890', customHost: fake.baseUrl }) });
  expect(created.status).toBe(201);
  const body = (await created.json()) as { key: string; id: string };
  virtualKey = body.key;
  virtualKeyId = body.id;
});
afterAll(async () => {
  await gateway.close();
  await fake.close();
});

async function call(traceId: string): Promise<void> {
  const response = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': virtualKey, 'x-gateway-trace-id': traceId },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  expect(response.status).toBe(200);
  await response.text();
}

async function list(query: string): Promise<{ status: number; body: { items?: Array<{ traceId: string; keyId: string | null }>; error?: { message: string; param?: string } } }> {
  const response = await gateway.admin(`/logs?${query}`);
  return { status: response.status, body: await response.json() };
}

describe('GET /admin/api/logs for the Logs page', () => {
  it('names the key of each row in the list, not only in the detail', async () => {
    await call('range-key-row');
    const { body } = await list('q=range-key-row');
    expect(body.items?.[0]).toMatchObject({ traceId: 'range-key-row', keyId: virtualKeyId });
  });

  it('keeps to a date range: since is inclusive, until exclusive', async () => {
    await call('range-before');
    await new Promise((resolve) => setTimeout(resolve, 30));
    const boundary = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 30));
    await call('range-after');
    const after = await list(`since=${new Date(boundary).toISOString()}&limit=500`);
    const before = await list(`until=${boundary}&limit=500`);
    expect(after.body.items?.map((item) => item.traceId)).toContain('range-after');
    expect(after.body.items?.map((item) => item.traceId)).not.toContain('range-before');
    expect(before.body.items?.map((item) => item.traceId)).toContain('range-before');
    expect(before.body.items?.map((item) => item.traceId)).not.toContain('range-after');
    // Both bounds at once, with the other filters.
    const both = await list(`since=${boundary - 60_000}&until=${boundary}&model=gpt-4o-mini`);
    expect(both.body.items?.map((item) => item.traceId)).toEqual(expect.arrayContaining(['range-before']));
  });

  it('refuses a bound that is not a date with a 400 naming it', async () => {
    const { status, body } = await list('since=yesterday');
    expect(status).toBe(400);
    expect(body.error?.message).toMatch(/'since'/);
  });
});
