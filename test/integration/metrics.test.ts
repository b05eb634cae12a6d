// GET /metrics on a running gateway: calls through a local OpenAI double (answers, a stream, a provider
// error, a refused key) show up as Prometheus counters and histograms by provider, model and key name.
import { request } from 'node:http';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, TEST_GATEWAY_KEY, type TestGateway } from '../helpers/gateway.js';
import { openAIError, startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { parseMetrics, total, type Sample } from '../helpers/prometheus.js';

const PROVIDER_TOKEN = 'sk-provider-token-metrics-0001';
const VIRTUAL_SECRET = 'sk-virtual-secret-metrics-0002';

let gateway: TestGateway;
let fake: OpenAIFake;
let virtualKey: string;
let gatewayKey: string;
/** The calls sent, as the metrics should count them: by key label, then status class. */
let sent: { key: string; model: string; status: number; stream: boolean }[];

function chat(key: Record<string, string>, model: string, stream = false) {
  return fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...key },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) }),
  });
}

const withEnvironmentKey = () => ({ 'x-gateway-api-key': TEST_GATEWAY_KEY, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': fake.baseUrl, authorization: `Bearer ${PROVIDER_TOKEN}` });
const withGatewayKey = () => ({ 'x-gateway-api-key': gatewayKey, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': fake.baseUrl, authorization: `Bearer ${PROVIDER_TOKEN}` });
const withVirtualKey = () => ({ authorization: `Bearer ${virtualKey}` });

/** GET /metrics with Node's client, so the test picks the address the request comes from. */
function getMetrics(options: { localAddress?: string; headers?: Record<string, string> } = {}): Promise<{ status: number; type: string; body: string }> {
  const url = new URL('/metrics', gateway.baseUrl);
  return new Promise((resolve, reject) => {
    const outgoing = request({ host: url.hostname, port: url.port, path: '/metrics', localAddress: options.localAddress, headers: options.headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type']), body }));
    });
    outgoing.on('error', reject);
    outgoing.end();
  });
}

/** An address of this machine that is not loopback: a request to 127.0.0.1 from it comes from a non-loopback peer. */
const outsideAddress = Object.values(networkInterfaces())
  .flat()
  .find((address) => address && address.family === 'IPv4' && !address.internal)?.address;

beforeAll(async () => {
  gateway = await startGateway();
  fake = await startOpenAIFake();
  const virtual = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'Team laptop', provider: 'openai', secret: VIRTUAL_SECRET, customHost: fake.baseUrl }) });
  virtualKey = ((await virtual.json()) as { key: string }).key;
  const created = await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'CI runner' }) });
  gatewayKey = ((await created.json()) as { key: string }).key;

  sent = [];
  const send = async (key: string, model: string, response: Promise<Response>, stream = false) => {
    const answer = await response;
    await answer.text();
    sent.push({ key, model, status: answer.status, stream });
  };
  for (let i = 0; i < 3; i++) await send('env', 'gpt-4o-mini', chat(withEnvironmentKey(), 'gpt-4o-mini'));
  await send('Team laptop', 'gpt-4o', chat(withVirtualKey(), 'gpt-4o', true), true);
  await send('CI runner', 'gpt-4o-mini', chat(withGatewayKey(), 'gpt-4o-mini'));
  fake.enqueue(openAIError(500, 'The server had an error', 'server_error'));
  await send('CI runner', 'gpt-4o-mini', chat(withGatewayKey(), 'gpt-4o-mini'));
  await send('none', 'unknown', chat({ 'x-gateway-api-key': 'gh-not-a-key', 'x-gateway-provider': 'openai' }, 'gpt-4o-mini'));
});

afterAll(async () => {
  await gateway?.close();
  await fake?.close();
});

describe('GET /metrics', () => {
  let text: string;
  let samples: Sample[];

  beforeAll(async () => {
    const response = await getMetrics();
    expect(response.status).toBe(200);
    expect(response.type).toMatch(/^text\/plain; version=0\.0\.4/);
    text = response.body;
    samples = parseMetrics(text).samples;
  });

  it('sent the calls the test expects: answers, a stream, a provider error and a refused key', () => {
    expect(sent.map((call) => call.status)).toEqual([200, 200, 200, 200, 200, 500, 401]);
  });

  it('parses as Prometheus text with the gateway metrics typed as counters and histograms', () => {
    const { families } = parseMetrics(text);
    expect(families.get('gatehouse_requests_total')?.type).toBe('COUNTER');
    expect(families.get('gatehouse_errors_total')?.type).toBe('COUNTER');
    expect(families.get('gatehouse_tokens_total')?.type).toBe('COUNTER');
    expect(families.get('gatehouse_request_duration_seconds')?.type).toBe('HISTOGRAM');
    expect(families.get('gatehouse_time_to_first_byte_seconds')?.type).toBe('HISTOGRAM');
    // Process metrics come along (CPU, memory).
    expect(families.has('process_cpu_seconds_total')).toBe(true);
  });

  it('counts every call by provider, model, key name and status class', () => {
    expect(total(samples, 'gatehouse_requests_total')).toBe(sent.length);
    for (const key of ['env', 'Team laptop', 'CI runner', 'none']) {
      for (const statusClass of ['2xx', '4xx', '5xx']) {
        const expected = sent.filter((call) => call.key === key && `${Math.floor(call.status / 100)}xx` === statusClass).length;
        expect(total(samples, 'gatehouse_requests_total', { key, status_class: statusClass }), `${key} ${statusClass}`).toBe(expected);
      }
    }
    expect(total(samples, 'gatehouse_requests_total', { provider: 'openai', model: 'gpt-4o-mini', key: 'env' })).toBe(3);
    expect(total(samples, 'gatehouse_requests_total', { provider: 'openai', model: 'gpt-4o', key: 'Team laptop' })).toBe(1);
    expect(total(samples, 'gatehouse_requests_total', { provider: 'unknown', model: 'unknown', key: 'none' })).toBe(1);
  });

  it('counts the provider error and the refused key as errors, by status', () => {
    expect(total(samples, 'gatehouse_errors_total')).toBe(2);
    expect(total(samples, 'gatehouse_errors_total', { key: 'CI runner', status: '500' })).toBe(1);
    expect(total(samples, 'gatehouse_errors_total', { key: 'none', status: '401' })).toBe(1);
  });

  it('has one latency sample per call, and one time-to-first-byte sample per call the provider answered', () => {
    expect(total(samples, 'gatehouse_request_duration_seconds_count')).toBe(sent.length);
    expect(total(samples, 'gatehouse_request_duration_seconds_bucket', { le: '+Inf' })).toBe(sent.length);
    for (const key of ['env', 'Team laptop', 'CI runner', 'none']) {
      expect(total(samples, 'gatehouse_request_duration_seconds_count', { key })).toBe(sent.filter((call) => call.key === key).length);
    }
    const answered = sent.filter((call) => call.status !== 401).length;
    expect(total(samples, 'gatehouse_time_to_first_byte_seconds_count')).toBe(answered);
    // A local double answers well within a minute: every sample is in a finite bucket.
    expect(total(samples, 'gatehouse_request_duration_seconds_bucket', { le: '60' })).toBe(sent.length);
  });

  it('counts the tokens the double reported (5 in, 3 out a call), streamed ones included', () => {
    expect(total(samples, 'gatehouse_tokens_total', { key: 'env', kind: 'input' })).toBe(15);
    expect(total(samples, 'gatehouse_tokens_total', { key: 'env', kind: 'output' })).toBe(9);
    expect(total(samples, 'gatehouse_tokens_total', { key: 'Team laptop', kind: 'input' })).toBe(5);
    expect(total(samples, 'gatehouse_tokens_total', { key: 'Team laptop', kind: 'output' })).toBe(3);
    expect(total(samples, 'gatehouse_tokens_total', { key: 'CI runner', kind: 'input' })).toBe(5);
  });

  it('counts the spend the request log priced, call by call', async () => {
    await gateway.flushLog();
    const logs = (await (await gateway.admin('/logs?limit=50')).json()) as { items: { costUsd: number | null }[] };
    const logged = logs.items.reduce((sum, item) => sum + (item.costUsd ?? 0), 0);
    expect(logged).toBeGreaterThan(0);
    expect(total(samples, 'gatehouse_cost_usd_total')).toBeCloseTo(logged, 12);
    // Both models are in the catalog: no call is left without a price.
    expect(total(samples, 'gatehouse_unpriced_requests_total')).toBe(0);
  });

  it('names keys, never shows a key, a provider secret or the admin token', () => {
    for (const secret of [TEST_GATEWAY_KEY, gatewayKey, virtualKey, VIRTUAL_SECRET, PROVIDER_TOKEN, gateway.adminToken, 'gh-not-a-key']) {
      expect(text).not.toContain(secret);
    }
    expect(text).toContain('key="Team laptop"');
  });

  it('stores the same token counts in the request log as it counted', async () => {
    await gateway.flushLog();
    const logs = (await (await gateway.admin('/logs?limit=50')).json()) as { items: { promptTokens: number | null; status: number }[] };
    const logged = logs.items.filter((item) => item.status === 200).reduce((sum, item) => sum + (item.promptTokens ?? 0), 0);
    expect(logged).toBe(total(samples, 'gatehouse_tokens_total', { kind: 'input' }));
  });
});

describe('key names', () => {
  it('counts a renamed key\'s later calls under its new name; a revoked key keeps its name', async () => {
    const listed = (await (await gateway.admin('/virtual-keys')).json()) as { items: { id: string; name: string }[] };
    const laptop = listed.items.find((item) => item.name === 'Team laptop')!;
    expect((await gateway.admin(`/virtual-keys/${laptop.id}`, { method: 'PATCH', body: JSON.stringify({ name: 'Team desktop' }) })).status).toBe(200);
    await (await chat(withVirtualKey(), 'gpt-4o')).text();
    const samples = parseMetrics((await getMetrics()).body).samples;
    expect(total(samples, 'gatehouse_requests_total', { key: 'Team desktop' })).toBe(1);
    expect(total(samples, 'gatehouse_requests_total', { key: 'Team laptop' })).toBe(1);

    // A call still in flight when its key is revoked is counted under the key's name, read from the database.
    expect((await gateway.admin(`/virtual-keys/${laptop.id}`, { method: 'DELETE' })).status).toBe(200);
    expect(gateway.running.services.keys.keyName(laptop.id)).toBe('Team desktop');
  });
});

describe('who may read /metrics', () => {
  it('answers a loopback client without a token, and HEAD too', async () => {
    expect((await getMetrics()).status).toBe(200);
    const head = await fetch(`${gateway.baseUrl}/metrics`, { method: 'HEAD' });
    expect(head.status).toBe(200);
  });

  it('refuses a loopback client that names another Host (DNS rebinding), unless it has the admin token', async () => {
    const refused = await getMetrics({ headers: { host: 'attacker.example' } });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body)).toEqual({ error: { message: expect.stringContaining('admin token'), type: 'permission_error', param: null, code: null } });
    expect((await getMetrics({ headers: { host: 'attacker.example', authorization: `Bearer ${gateway.adminToken}` } })).status).toBe(200);
  });

  it.skipIf(!outsideAddress)('refuses a non-loopback peer without the admin token, in the contract error shape', async () => {
    const refused = await getMetrics({ localAddress: outsideAddress });
    expect(refused.status).toBe(403);
    expect(JSON.parse(refused.body).error.type).toBe('permission_error');
    expect((await getMetrics({ localAddress: outsideAddress, headers: { authorization: 'Bearer not-the-token' } })).status).toBe(403);
    const allowed = await getMetrics({ localAddress: outsideAddress, headers: { authorization: `Bearer ${gateway.adminToken}` } });
    expect(allowed.status).toBe(200);
    expect(() => parseMetrics(allowed.body)).not.toThrow();
  });

  it('answers other methods with 405', async () => {
    const response = await fetch(`${gateway.baseUrl}/metrics`, { method: 'POST' });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
  });
});
