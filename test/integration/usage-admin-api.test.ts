// Cost per call and the Usage admin API, end to end: calls through the gateway to provider doubles get
// their cost from the catalog (cached tokens at the cache prices, unknown models unknown, never 0), and
// every Usage view's totals equal a SQL sum over request_log, also after rows are deleted; on each storage backend.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestGateway } from '../helpers/gateway.js';
import { backends } from '../helpers/backends.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { FAKE_USAGE, startAnthropicFake, type AnthropicFake } from '../fakes/anthropic.js';

let gateway: TestGateway;
let openai: OpenAIFake;
let anthropic: AnthropicFake;
let botKey: string;
let botKeyId: string;

interface Figures {
  requests: number;
  promptTokens: number;
  completionTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
  unpricedRequests: number;
}
interface Report {
  totals: Figures;
  series: (Figures & { period: string })[];
  breakdown: (Figures & { name: string; label: string })[];
}

function call(provider: 'openai' | 'anthropic', body: object, options: { key?: string; userAgent?: string } = {}) {
  const fake = provider === 'openai' ? openai : anthropic;
  return fetch(`${gateway.baseUrl}/v1/${provider === 'openai' ? 'chat/completions' : 'messages'}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-gateway-api-key': options.key ?? gateway.apiKey,
      'x-gateway-provider': provider,
      'x-gateway-custom-host': fake.baseUrl,
      authorization: 'Bearer sk-provider-token-1234567890',
      ...(options.userAgent ? { 'user-agent': options.userAgent } : {}),
    },
    body: JSON.stringify(body),
  });
}

const chat = (model: string) => ({ model, messages: [{ role: 'user', content: 'hi' }] });

async function usage(query: string): Promise<Report> {
  const response = await gateway.admin(`/usage?${query}`);
  expect(response.status).toBe(200);
  return (await response.json()) as Report;
}

describe.each(backends())('on $name', (backend) => {
  async function sqlSums(): Promise<{ requests: number; prompt: number; completion: number; nanos: number; unpriced: number }> {
    const [sums] = await backend.sql<{ requests: number; prompt: number; completion: number; nanos: number; unpriced: number }>(
      gateway,
      `SELECT count(*) AS requests, coalesce(sum(prompt_tokens), 0) AS prompt, coalesce(sum(completion_tokens), 0) AS completion,
         coalesce(sum(CAST(round(cost_usd * 1e9) AS BIGINT)), 0) AS nanos,
         coalesce(sum(CASE WHEN cost_usd IS NULL AND prompt_tokens IS NOT NULL THEN 1 ELSE 0 END), 0) AS unpriced FROM request_log`,
    );
    return sums;
  }

  beforeAll(async () => {
    gateway = await backend.gateway();
    openai = await startOpenAIFake();
    anthropic = await startAnthropicFake();
    const created = (await (await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'ci-bot' }) })).json()) as { id: string; key: string };
    botKey = created.key;
    botKeyId = created.id;
    for (let i = 0; i < 3; i++) expect((await call('openai', chat('gpt-4o'), { userAgent: 'OpenAI/JS 4.104.0' })).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await call('openai', chat('gpt-4o-mini'), { key: botKey, userAgent: 'curl/8.5.0' })).status).toBe(200);
    expect((await call('anthropic', { model: 'claude-sonnet-4-20250514', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }, { key: botKey, userAgent: 'claude-cli/1.0.80 (external, cli)' })).status).toBe(200);
    expect((await call('openai', chat('my-finetune-xyz'))).status).toBe(200);
    await gateway.flushLog();
  }, 60_000);
  afterAll(async () => {
    await gateway?.close();
    await openai?.close();
    await anthropic?.close();
    await backend.close();
  }, 30_000);

  describe('cost per log row', () => {
    it('is the catalog price × tokens, cached tokens at the cache prices; an unknown model has no cost', async () => {
      const { items } = (await (await gateway.admin('/logs?limit=50')).json()) as { items: { model: string; costUsd: number | null; client: string }[] };
      const byModel = (model: string) => items.filter((item) => item.model === model);
      // The OpenAI double reports 5 prompt and 3 completion tokens: gpt-4o is $2.50 / $10 per million.
      for (const row of byModel('gpt-4o')) expect(row.costUsd).toBeCloseTo((5 * 2.5 + 3 * 10) / 1e6, 12);
      for (const row of byModel('gpt-4o-mini')) expect(row.costUsd).toBeCloseTo((5 * 0.15 + 3 * 0.6) / 1e6, 12);
      // The Anthropic double: 11 plain input, 2 written to and 5 read from the cache, 4 output; Sonnet 4 is
      // $3 input, $3.75 cache write, $0.30 cache read, $15 output.
      const [claude] = byModel('claude-sonnet-4-20250514');
      const expected = (FAKE_USAGE.input_tokens * 3 + FAKE_USAGE.cache_creation_input_tokens * 3.75 + FAKE_USAGE.cache_read_input_tokens * 0.3 + FAKE_USAGE.output_tokens * 15) / 1e6;
      expect(claude.costUsd).toBeCloseTo(expected, 12);
      expect(byModel('my-finetune-xyz')[0].costUsd).toBeNull();
      expect(claude.client).toBe('claude-cli');
      expect(byModel('gpt-4o-mini')[0].client).toBe('curl');
      expect(byModel('gpt-4o')[0].client).toBe('openai-js');
    });
  });

  describe('GET /admin/api/usage', () => {
    it('has totals equal to a SQL sum over request_log, in every range and breakdown', async () => {
      const sums = await sqlSums();
      for (const range of ['day', 'week', 'month']) {
        for (const by of ['key', 'model', 'provider', 'client']) {
          const report = await usage(`range=${range}&by=${by}`);
          expect(report.totals.requests).toBe(sums.requests);
          expect(report.totals.promptTokens).toBe(sums.prompt);
          expect(report.totals.completionTokens).toBe(sums.completion);
          expect(Math.round(report.totals.costUsd * 1e9)).toBe(sums.nanos);
          expect(report.totals.unpricedRequests).toBe(sums.unpriced);
          // The series and the breakdown add up to the same totals.
          expect(report.series.reduce((total, period) => total + period.requests, 0)).toBe(sums.requests);
          expect(report.breakdown.reduce((total, group) => total + Math.round(group.costUsd * 1e9), 0)).toBe(sums.nanos);
        }
      }
    });

    it('breaks usage down by key name, client tool, provider and model, and counts unknown costs apart', async () => {
      const byKey = await usage('by=key');
      expect(byKey.breakdown.find((group) => group.name === botKeyId)).toMatchObject({ label: 'ci-bot', requests: 3 });
      const byClient = await usage('by=client');
      expect(byClient.breakdown.map((group) => group.name).sort()).toEqual(['claude-cli', 'curl', 'node', 'openai-js'].sort());
      const byProvider = await usage('by=provider');
      expect(byProvider.breakdown.find((group) => group.name === 'anthropic')).toMatchObject({ requests: 1, cacheReadTokens: 5, cacheWriteTokens: 2 });
      const byModel = await usage('by=model');
      expect(byModel.breakdown.find((group) => group.name === 'my-finetune-xyz')).toMatchObject({ requests: 1, unpricedRequests: 1, costUsd: 0 });
      expect(byModel.totals.unpricedRequests).toBe(1);
    });

    it("shows each key's spend today and this month", async () => {
      const { items } = (await (await gateway.admin('/usage/keys')).json()) as { items: { keyId: string; todayUsd: number; monthUsd: number }[] };
      const bot = items.find((item) => item.keyId === botKeyId)!;
      const expected = (2 * (5 * 0.15 + 3 * 0.6) + (11 * 3 + 2 * 3.75 + 5 * 0.3 + 4 * 15)) / 1e6;
      expect(bot.todayUsd).toBeCloseTo(expected, 9);
      expect(bot.monthUsd).toBeCloseTo(expected, 9);
    });

    it('answers bad parameters with a JSON 400 naming the parameter', async () => {
      for (const [query, param] of [['range=year', 'range'], ['by=colour', 'by'], ['from=yesterday', 'from'], ['from=2026-02-01&to=2026-01-01', 'from']]) {
        const response = await gateway.admin(`/usage?${query}`);
        expect(response.status).toBe(400);
        expect(((await response.json()) as { error: { param: string } }).error.param).toBe(param);
      }
    });

    it('stays equal to the rows after some are deleted (retention)', async () => {
      await backend.sql(gateway, "DELETE FROM request_log WHERE model = 'gpt-4o' AND id = (SELECT min(id) FROM request_log WHERE model = 'gpt-4o')");
      const sums = await sqlSums();
      const report = await usage('range=month&by=model');
      expect(report.totals.requests).toBe(sums.requests);
      expect(Math.round(report.totals.costUsd * 1e9)).toBe(sums.nanos);
      expect(report.breakdown.find((group) => group.name === 'gpt-4o')?.requests).toBe(2);
    });
  });

  describe('model overrides', () => {
    it('prices a model the catalog lacks once the user sets its price, and validates the input', async () => {
      const set = await gateway.admin('/model-overrides', { method: 'POST', body: JSON.stringify({ provider: 'openai', model: 'my-finetune-xyz', input: 1, output: 2, contextWindow: 32768 }) });
      expect(set.status).toBe(200);
      expect((await call('openai', chat('my-finetune-xyz'))).status).toBe(200);
      await gateway.flushLog();
      const { items } = (await (await gateway.admin('/logs?model=my-finetune-xyz')).json()) as { items: { costUsd: number | null }[] };
      expect(items[0].costUsd).toBeCloseTo((5 * 1 + 3 * 2) / 1e6, 12);
      expect(items[1].costUsd).toBeNull();
      const catalog = (await (await gateway.admin('/catalog?provider=openai&model=my-finetune-xyz')).json()) as { model: { contextWindow: number; source: string } };
      expect(catalog.model).toMatchObject({ contextWindow: 32768, source: 'override' });
      const bad = await gateway.admin('/model-overrides', { method: 'POST', body: JSON.stringify({ provider: 'openai', model: 'x', input: -1 }) });
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as { error: { param: string } }).error.param).toBe('input');
      const listed = (await (await gateway.admin('/model-overrides')).json()) as { items: unknown[] };
      expect(listed.items).toHaveLength(1);
      expect((await gateway.admin('/model-overrides?provider=openai&model=my-finetune-xyz', { method: 'DELETE' })).status).toBe(200);
      expect((await gateway.admin('/model-overrides?provider=openai&model=my-finetune-xyz', { method: 'DELETE' })).status).toBe(404);
      const unknown = (await (await gateway.admin('/catalog?provider=openai&model=my-finetune-xyz')).json()) as { model: unknown };
      expect(unknown.model).toBeNull();
      const known = (await (await gateway.admin('/catalog?provider=anthropic&model=claude-sonnet-4-20250514')).json()) as { model: { contextWindow: number; maxOutputTokens: number } };
      expect(known.model).toMatchObject({ contextWindow: 200_000, maxOutputTokens: 64_000 });
    });
  });
});
