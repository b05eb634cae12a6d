// The /metrics counters from log entries, the label caps, and who may read them.
import { describe, expect, it } from 'vitest';
import type { IncomingMessage } from 'node:http';
import { AdminTokenGuard } from '../../../src-main/gateway/admin-token-guard.js';
import { GatewayMetrics, isLoopbackPeer, mayReadMetrics, type GatewayMetricsOptions } from '../../../src-main/gateway/metrics.js';
import type { CallRecord } from '../../../src-main/core/call-record.js';
import { parseMetrics, total } from '../../helpers/prometheus.js';

function entry(overrides: Partial<CallRecord> & Record<string, unknown> = {}): CallRecord {
  return {
    createdAt: Date.now(),
    traceId: 't',
    metadata: {},
    keyId: null,
    provider: 'openai',
    model: 'gpt-4o-mini',
    path: '/v1/chat/completions',
    status: 200,
    latencyMs: 120,
    ttfbMs: 40,
    stream: false,
    error: null,
    attempts: 1,
    requestHeaders: {},
    requestBody: null,
    responseBody: null,
    promptTokens: 10,
    completionTokens: 4,
    ...overrides,
  } as CallRecord;
}

function metrics(options: Partial<GatewayMetricsOptions> = {}): GatewayMetrics {
  return new GatewayMetrics({ keyName: () => undefined, hasEnvironmentKey: true, processMetrics: false, ...options });
}

async function scrape(source: GatewayMetrics) {
  return parseMetrics(await source.render()).samples;
}

describe('GatewayMetrics', () => {
  it('counts a call under its key name, never its id or secret, and the environment key as "env"', async () => {
    const source = metrics({ keyName: (id) => (id === 'vk_1' ? 'Team laptop' : undefined) });
    source.observe(entry({ keyId: 'vk_1' }));
    source.observe(entry({ keyId: null }));
    source.observe(entry({ keyId: null, status: 401, provider: null, model: null, ttfbMs: null, promptTokens: null, completionTokens: null, error: 'Invalid key' }));
    const samples = await scrape(source);
    expect(total(samples, 'gatehouse_requests_total', { key: 'Team laptop', status_class: '2xx' })).toBe(1);
    expect(total(samples, 'gatehouse_requests_total', { key: 'env', status_class: '2xx' })).toBe(1);
    expect(total(samples, 'gatehouse_requests_total', { key: 'none', provider: 'unknown', model: 'unknown', status_class: '4xx' })).toBe(1);
    expect(total(samples, 'gatehouse_errors_total', { key: 'none', status: '401' })).toBe(1);
    expect(total(samples, 'gatehouse_errors_total')).toBe(1);
    expect(await source.render()).not.toContain('vk_1');
  });

  it('without a GATEWAY_API_KEY, a call with no key id is counted under "none"', async () => {
    const source = metrics({ hasEnvironmentKey: false });
    source.observe(entry({ keyId: null }));
    expect(total(await scrape(source), 'gatehouse_requests_total', { key: 'none' })).toBe(1);
  });

  it('counts tokens by kind and the cost when the catalog priced the call', async () => {
    const source = metrics();
    source.observe(entry({ promptTokens: 1000, completionTokens: 200, cacheReadTokens: 600, cacheWriteTokens: 50, reasoningTokens: 80, costUsd: 0.0125 }));
    source.observe(entry({ promptTokens: 500, completionTokens: 100, costUsd: 0.0025 }));
    const samples = await scrape(source);
    expect(total(samples, 'gatehouse_tokens_total', { kind: 'input' })).toBe(1500);
    expect(total(samples, 'gatehouse_tokens_total', { kind: 'output' })).toBe(300);
    expect(total(samples, 'gatehouse_tokens_total', { kind: 'cached' })).toBe(600);
    expect(total(samples, 'gatehouse_tokens_total', { kind: 'cache_write' })).toBe(50);
    expect(total(samples, 'gatehouse_tokens_total', { kind: 'reasoning' })).toBe(80);
    expect(total(samples, 'gatehouse_cost_usd_total', { model: 'gpt-4o-mini' })).toBeCloseTo(0.015, 10);
    expect(total(samples, 'gatehouse_unpriced_requests_total')).toBe(0);
  });

  it('counts a call of unknown price as unpriced, not as costing 0', async () => {
    const source = metrics();
    source.observe(entry({ model: 'my-local-model', costUsd: null }));
    const samples = await scrape(source);
    expect(total(samples, 'gatehouse_unpriced_requests_total', { model: 'my-local-model' })).toBe(1);
    expect(total(samples, 'gatehouse_cost_usd_total')).toBe(0);
  });

  it('counts no tokens for a call whose usage is unknown', async () => {
    const source = metrics();
    source.observe(entry({ promptTokens: undefined, completionTokens: undefined, responseBody: '{}' }));
    const samples = await scrape(source);
    expect(total(samples, 'gatehouse_requests_total')).toBe(1);
    expect(samples.filter((sample) => sample.name === 'gatehouse_tokens_total')).toEqual([]);
  });

  it('observes latency and time to first byte in seconds, one histogram sample per call', async () => {
    const source = metrics();
    source.observe(entry({ latencyMs: 3, ttfbMs: 2 }));
    source.observe(entry({ latencyMs: 90_000, ttfbMs: 700 }));
    source.observe(entry({ latencyMs: 4, ttfbMs: null, status: 502, error: 'unreachable' }));
    const samples = await scrape(source);
    const latency = 'gatehouse_request_duration_seconds';
    expect(total(samples, `${latency}_count`)).toBe(3);
    expect(total(samples, `${latency}_bucket`, { le: '0.005' })).toBe(2);
    expect(total(samples, `${latency}_bucket`, { le: '60' })).toBe(2);
    expect(total(samples, `${latency}_bucket`, { le: '120' })).toBe(3);
    expect(total(samples, `${latency}_sum`)).toBeCloseTo(90.007, 6);
    expect(total(samples, 'gatehouse_time_to_first_byte_seconds_count')).toBe(2);
    expect(total(samples, 'gatehouse_time_to_first_byte_seconds_bucket', { le: '1' })).toBe(2);
  });

  it('caps distinct models: past the cap, new ones are counted as "other", known ones keep their name', async () => {
    const source = metrics({ limits: { models: 3 } });
    for (const model of ['a', 'b', 'c', 'd', 'e', 'a']) source.observe(entry({ model }));
    const requests = (await scrape(source)).filter((sample) => sample.name === 'gatehouse_requests_total');
    expect(Object.fromEntries(requests.map((sample) => [sample.labels.model, sample.value]))).toEqual({ a: 2, b: 1, c: 1, other: 2 });
  });

  it('adds a route label only to calls whose entry names a route', async () => {
    const source = metrics();
    source.observe(entry({ route: 'cheap-first' }));
    source.observe(entry());
    const requests = (await scrape(source)).filter((sample) => sample.name === 'gatehouse_requests_total');
    expect(requests.map((sample) => sample.labels.route ?? null).sort()).toEqual(['cheap-first', null]);
  });

  it('never lets a broken entry throw into the call it counts, nor spoil the figures', async () => {
    const source = metrics();
    expect(() => source.observe(entry({ latencyMs: Number.NaN, ttfbMs: Number.POSITIVE_INFINITY, promptTokens: Number.NaN }))).not.toThrow();
    expect(() => source.observe(entry({ status: Number.NaN }))).not.toThrow();
    source.observe(entry({ latencyMs: 250, ttfbMs: 100 }));
    const samples = await scrape(source);
    expect(total(samples, 'gatehouse_requests_total')).toBe(2);
    expect(total(samples, 'gatehouse_request_duration_seconds_sum')).toBe(0.25);
    expect(total(samples, 'gatehouse_request_duration_seconds_count')).toBe(1);
    expect(total(samples, 'gatehouse_time_to_first_byte_seconds_sum')).toBe(0.1);
    expect(total(samples, 'gatehouse_tokens_total', { kind: 'input' })).toBe(10);
  });

  it('keeps its figures apart from prom-client\'s global registry', async () => {
    const { register } = await import('prom-client');
    const source = metrics();
    source.observe(entry());
    expect(await register.metrics()).not.toContain('gatehouse_');
  });
});

/** A request as mayReadMetrics reads it: the peer's address, Host and Authorization. */
function asked(remoteAddress: string, host: string, authorization: string | undefined): IncomingMessage {
  return { socket: { remoteAddress }, headers: { host, authorization } } as unknown as IncomingMessage;
}

describe('who may read /metrics', () => {
  it('knows loopback peers, IPv4, IPv6 and IPv4-mapped', () => {
    for (const address of ['127.0.0.1', '127.8.9.10', '::1', '::ffff:127.0.0.1']) expect(isLoopbackPeer(address)).toBe(true);
    for (const address of ['192.0.2.2', '10.0.0.1', '::ffff:10.0.0.1', 'fd00::2', '128.0.0.1', '127.0.0.1.evil', '', undefined]) expect(isLoopbackPeer(address)).toBe(false);
  });

  it('lets a loopback peer in without a token, others only with the admin token', () => {
    expect(mayReadMetrics(asked('127.0.0.1', '127.0.0.1:8787', undefined), new AdminTokenGuard('admin-secret', () => undefined))).toBe(true);
    expect(mayReadMetrics(asked('192.0.2.2', '192.0.2.1:8787', undefined), new AdminTokenGuard('admin-secret', () => undefined))).toBe(false);
    expect(mayReadMetrics(asked('192.0.2.2', '192.0.2.1:8787', 'Bearer wrong'), new AdminTokenGuard('admin-secret', () => undefined))).toBe(false);
    expect(mayReadMetrics(asked('192.0.2.2', '192.0.2.1:8787', 'Bearer admin-secret'), new AdminTokenGuard('admin-secret', () => undefined))).toBe(true);
  });

  it('refuses a loopback peer whose Host is another name (a web page rebinding its name to 127.0.0.1)', () => {
    expect(mayReadMetrics(asked('127.0.0.1', 'evil.example:8787', undefined), new AdminTokenGuard('admin-secret', () => undefined))).toBe(false);
    expect(mayReadMetrics(asked('127.0.0.1', 'evil.example:8787', 'Bearer admin-secret'), new AdminTokenGuard('admin-secret', () => undefined))).toBe(true);
  });
});
