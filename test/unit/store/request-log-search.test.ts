// The log's search box: the words of model, trace id, error, metadata or path, in order, the last one a
// prefix; newest first, paged, combined with the other filters. Punctuation alone is matched as a substring.
// Run on both backends: SQLite's FTS5 index and PostgreSQL's tsvector must find the same rows.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RequestLog } from '../../../src-main/store/request-log.js';
import type { CallRecord } from '../../../src-main/core/call-record.js';
import { backends, type BackendStores } from '../../helpers/backends.js';

function entry(overrides: Partial<CallRecord>): CallRecord {
  return {
    createdAt: Date.now(),
    traceId: 'trace-0',
    metadata: {},
    keyId: null,
    provider: 'openai',
    model: 'gpt-4o-mini',
    path: '/v1/completions',
    status: 200,
    latencyMs: 1,
    ttfbMs: 1,
    stream: false,
    error: null,
    attempts: 1,
    requestHeaders: {},
    requestBody: null,
    responseBody: null,
    ...overrides,
  };
}

describe.each(backends())('searching the request log ($name)', (backend) => {
  let stores: BackendStores;
  let log: RequestLog;

  // One database per backend, emptied before each test (a fresh PostgreSQL database costs seconds).
  beforeAll(async () => {
    stores = await backend.stores();
    log = stores.requestLog;
  }, 60_000);
  afterAll(async () => {
    await stores?.close();
    await backend.close();
  }, 30_000);

  beforeEach(async () => {
    await stores.sql('DELETE FROM request_log');
    log.append(entry({ traceId: 'checkout-7f3a', model: 'gpt-4o-mini', metadata: { team: 'payments' } }));
    log.append(entry({ traceId: 'search-91bc', model: 'claude-3-5-haiku', provider: 'anthropic', status: 429, error: 'Rate limit reached' }));
    log.append(entry({ traceId: 'checkout-0d2e', model: 'llama-3.1-8b', provider: 'groq', path: '/v1/chat/completions', metadata: { team: 'say "hi"' } }));
    await log.flush();
  }, 60_000);


  const traceIds = async (query: Parameters<RequestLog['list']>[0]) => (await log.list(query)).items.map((item) => item.traceId);

  it('finds the words of the trace id, model, error, metadata or path, the last one a prefix, newest first', async () => {
    expect(await traceIds({ q: 'checkout' })).toEqual(['checkout-0d2e', 'checkout-7f3a']);
    expect(await traceIds({ q: 'checkout-7f' })).toEqual(['checkout-7f3a']);
    expect(await traceIds({ q: '3-5-hai' })).toEqual(['search-91bc']);
    expect(await traceIds({ q: 'limit reach' })).toEqual(['search-91bc']);
    expect(await traceIds({ q: 'payments' })).toEqual(['checkout-7f3a']);
    expect(await traceIds({ q: 'chat/compl' })).toEqual(['checkout-0d2e']);
    expect(await traceIds({ q: '0d' })).toEqual(['checkout-0d2e']);
  });

  it('ignores case, and does not match from the middle of a word', async () => {
    expect(await traceIds({ q: 'CHECKOUT' })).toEqual(['checkout-0d2e', 'checkout-7f3a']);
    expect(await traceIds({ q: 'heckout' })).toEqual([]);
  });

  it('takes quotes and search operators as plain text', async () => {
    expect(await traceIds({ q: 'say \\"hi' })).toEqual(['checkout-0d2e']);
    expect(await traceIds({ q: 'checkout OR search' })).toEqual([]);
    expect(await traceIds({ q: 'NOT checkout' })).toEqual([]);
    expect(await traceIds({ q: 'gpt-4o*' })).toEqual(['checkout-7f3a']);
  });

  it('matches text of punctuation only as a substring', async () => {
    expect(await traceIds({ q: '{"' })).toEqual(['checkout-0d2e', 'checkout-7f3a']);
  });

  it('combines the search with the other filters and pages with the cursor', async () => {
    expect(await traceIds({ q: 'checkout', provider: 'groq' })).toEqual(['checkout-0d2e']);
    expect(await traceIds({ q: 'search', status: 'error' })).toEqual(['search-91bc']);
    const first = await log.list({ q: 'checkout', limit: 1 });
    expect(first.items.map((item) => item.traceId)).toEqual(['checkout-0d2e']);
    expect(await traceIds({ q: 'checkout', limit: 1, before: first.next! })).toEqual(['checkout-7f3a']);
  });

  it('finds a filter and a search together also far below the newest thousands of rows the filter picks', async () => {
    // PostgreSQL searches the newest 5,000 rows a filter picks one by one, then the rest with the text index.
    log.append(entry({ traceId: 'needle-old-1', provider: 'groq', status: 500 }));
    log.append(entry({ traceId: 'needle-old-2', provider: 'groq', status: 500 }));
    for (let i = 0; i < 6_000; i++) log.append(entry({ traceId: `hay-${i}`, provider: 'groq', status: 500 }));
    log.append(entry({ traceId: 'needle-elsewhere', provider: 'openai', status: 500 }));
    log.append(entry({ traceId: 'needle-new', provider: 'groq', status: 502 }));
    await log.flush();
    const query = { provider: 'groq', status: 'error' as const, q: 'needle' };
    expect(await traceIds(query)).toEqual(['needle-new', 'needle-old-2', 'needle-old-1']);
    const first = await log.list({ ...query, limit: 2 });
    expect(first.items.map((item) => item.traceId)).toEqual(['needle-new', 'needle-old-2']);
    expect(await traceIds({ ...query, limit: 2, before: first.next! })).toEqual(['needle-old-1']);
    expect((await traceIds({ provider: 'groq', status: 500, q: 'hay-59' })).slice(0, 3)).toEqual(['hay-5999', 'hay-5998', 'hay-5997']);
  }, 60_000);

  it('keeps working when a row is deleted before it was indexed', async () => {
    await stores.sql("INSERT INTO request_log (created_at, trace_id, metadata, path, status, latency_ms, stream, attempts, day) VALUES (0, 'unindexed-1', '{}', '/v1/completions', 200, 1, 0, 1, '1970-01-01')");
    await stores.sql("DELETE FROM request_log WHERE trace_id = 'unindexed-1'");
    log.append(entry({ traceId: 'checkout-after' }));
    await log.flush();
    expect(await traceIds({ q: 'checkout' })).toEqual(['checkout-after', 'checkout-0d2e', 'checkout-7f3a']);
  });

  it('forgets deleted rows (pruning deletes this way)', async () => {
    await stores.sql('DELETE FROM request_log WHERE trace_id = ?', ['checkout-7f3a']);
    expect(await traceIds({ q: 'checkout' })).toEqual(['checkout-0d2e']);
  });
});
