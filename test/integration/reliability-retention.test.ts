// Log retention as the running app applies it (issue 7, item 11): the settings' age and row cap are
// enforced shortly after start, and requests are served while the purge runs; on each storage backend.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { backends } from '../helpers/backends.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import type { CallRecord } from '../../src-main/core/call-record.js';

const DAY = 86_400_000;
let gateway: TestGateway;
let fake: OpenAIFake;

describe.each(backends())('on $name', (backend) => {
  beforeAll(async () => {
    gateway = await backend.gateway();
    fake = await startOpenAIFake();
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await fake?.close();
    await backend.close();
  }, 30_000);

  function entry(createdAt: number, traceId: string): CallRecord {
    return {
      createdAt, traceId, metadata: {}, keyId: null, provider: 'openai', model: 'm', path: '/v1/completions', status: 200,
      latencyMs: 1, ttfbMs: 1, stream: false, error: null, attempts: 1, requestHeaders: {}, requestBody: null, responseBody: null,
    };
  }

  describe('log retention in the running app', () => {
    it('prunes rows past the configured age and beyond the row cap, while requests go on being served', async () => {
      const settings = await gateway.admin('/settings', { method: 'PATCH', body: JSON.stringify({ retentionDays: 7, maxLogRows: 1_000 }) });
      expect(settings.status).toBe(200);
      const log = gateway.running.services.requestLog;
      const now = Date.now();
      for (let i = 0; i < 20; i++) log.append(entry(now - 8 * DAY, `too-old-${i}`));
      for (let i = 0; i < 1_500; i++) log.append(entry(now - DAY, `kept-or-capped-${i}`));
      await log.flush();

      // The first purge runs 5 s after start; meanwhile (and during it) requests are answered.
      const served: number[] = [];
      const count = async (sql: string) => (await backend.sql<{ n: number }>(gateway, sql))[0].n;
      const deadline = performance.now() + 10_000;
      while ((await count('SELECT count(*) AS n FROM request_log')) > 1_000 && performance.now() < deadline) {
        const response = await fetch(`${gateway.baseUrl}/v1/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-gateway-api-key': gateway.apiKey, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': fake.baseUrl, 'x-gateway-trace-id': `live-${served.length}` },
          body: '{"model":"m","prompt":"x"}',
        });
        served.push(response.status);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await gateway.flushLog();
      expect(served.length).toBeGreaterThan(10);
      expect(served.every((status) => status === 200)).toBe(true);
      expect(await count("SELECT count(*) AS n FROM request_log WHERE trace_id LIKE 'too-old-%'")).toBe(0);
      // The cap keeps the newest rows: the oldest of the young ones went first.
      expect(await count("SELECT count(*) AS n FROM request_log WHERE trace_id = 'kept-or-capped-0'")).toBe(0);
      expect(await count("SELECT count(*) AS n FROM request_log WHERE trace_id = 'kept-or-capped-1499'")).toBe(1);
      expect(await count('SELECT count(*) AS n FROM request_log')).toBeLessThanOrEqual(1_000 + served.length);
    }, 20_000);
  });
});
