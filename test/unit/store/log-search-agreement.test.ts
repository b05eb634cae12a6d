// The live feed's search (logs-store → search-text.ts) and the server's (request-log.ts, FTS5) are one
// rule: for any text, both show the same rows. Checked on written rows, for chosen texts and for
// random pieces of the rows' own fields (what people type).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../src-main/store/database.js';
import { RequestLog } from '../../../src-main/store/request-log.js';
import type { LogEntry } from '../../../src-main/core/log-store.js';
import type { CallRecord } from '../../../src-main/core/call-record.js';
import { EMPTY_FILTERS, matchesFilters } from '../../../src-renderer/stores/logs-store';
import { searchedFields } from '../../../src-renderer/logs/search-text';

const ROWS: Partial<CallRecord>[] = [
  { traceId: 'checkout-7f3a', model: 'gpt-4o-mini', metadata: { team: 'payments' } },
  { traceId: 'search-91bc', model: 'claude-3-5-haiku', provider: 'anthropic', status: 429, error: 'Rate limit reached for requests' },
  { traceId: 'checkout-0d2e', model: 'llama-3.1-8b', provider: 'groq', path: '/v1/chat/completions', metadata: { team: 'say "hi"' } },
  { traceId: 'Playground-Run', model: 'qwen2.5:7b', error: 'Le modèle est occupé, réessayez (café)', path: '/v1/messages' },
  { traceId: 'a1b2c3', model: 'mistral-large-latest', metadata: { user: 'Zoë', env: 'prod-eu' }, error: 'upstream: ECONNRESET {socket}' },
  { traceId: 'fc2280b8-d1e4-4f3a-9b1c-77aa12345678', model: 'gpt-4o', path: '/v1/responses' },
];

let dataDir: string;
let db: SqliteDatabase;
let log: RequestLog;
let all: LogEntry[];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-search-agree-'));
  db = openDatabase(dataDir);
  log = new RequestLog(db);
  for (const row of ROWS) {
    log.append({
      createdAt: Date.now(), traceId: 't', metadata: {}, keyId: null, provider: 'openai', model: 'gpt-4o-mini', path: '/v1/completions', status: 200,
      latencyMs: 1, ttfbMs: 1, stream: false, error: null, attempts: 1, requestHeaders: {}, requestBody: null, responseBody: null, ...row,
    });
  }
  await log.flush();
  all = (await log.list({ limit: 500 })).items;
});
afterAll(async () => {
  await log.close();
  db.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const server = async (q: string) => (await log.list({ q, limit: 500 })).items.map((item) => item.traceId);
const feed = (q: string) => all.filter((item) => matchesFilters(item, { ...EMPTY_FILTERS, q })).map((item) => item.traceId);

describe('live feed search and server search agree', () => {
  it.each([
    'checkout', 'checkout-7f', 'CHECKOUT 0D', '3-5-hai', 'limit reach', 'rate limit reached for', 'payments', 'say hi', 'say "hi', 'team',
    'v1 chat', '/v1/chat', 'chat/compl', 'heck', 'own', 'modele', 'occupé', 'cafe', 'zoe', 'prod-e', 'qwen2.5:7', '7b', 'ECONNRESET {', '{', '"', '/', '-', ':', '  ',
    'fc2280b8-d1', '12345678', 'gpt 4o', 'gpt-4o-mini please', 'run playground',
  ])('for %j', async (q) => {
    expect(feed(q)).toEqual(await server(q));
  });

  it('for random pieces of the rows’ own fields, in any case', async () => {
    const pieces = fc
      .tuple(fc.nat(ROWS.length - 1), fc.nat(4), fc.nat(60), fc.integer({ min: 1, max: 24 }), fc.boolean())
      .map(([row, field, start, length, upper]) => {
        const text = searchedFields(all[row])[field];
        const piece = text.slice(start % Math.max(text.length, 1), (start % Math.max(text.length, 1)) + length);
        return upper ? piece.toUpperCase() : piece;
      });
    await fc.assert(
      fc.asyncProperty(pieces, async (q) => {
        expect(feed(q)).toEqual(await server(q));
      }),
      { numRuns: 400 },
    );
  });
});
