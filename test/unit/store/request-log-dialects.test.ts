// The dialect columns of the request log: the client's dialect, the provider's wire format, the fields
// dropped in translation and the normalised usage are stored and read back (on this thread and on the
// writer thread), the log can be listed by dialect, and a database of the previous schema gains the columns with its OpenAI
// rows' dialects filled in.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DATABASE_FILE, openDatabase, type SqliteDatabase } from '../../../src-main/store/database.js';
import { ThreadLogWriter } from '../../../src-main/store/log-writer-thread.js';
import { migrations } from '../../../src-main/store/migrations.js';
import { RequestLog } from '../../../src-main/store/request-log.js';
import type { LogEntry } from '../../../src-main/core/log-store.js';
import type { CallRecord } from '../../../src-main/core/call-record.js';

const entry = (traceId: string, overrides: Partial<CallRecord> = {}): CallRecord => ({
  createdAt: Date.now(), traceId, metadata: {}, keyId: null, provider: 'anthropic', model: 'claude-sonnet-4-5', path: '/v1/messages',
  status: 200, latencyMs: 2, ttfbMs: 1, stream: false, error: null, attempts: 1, requestHeaders: {}, requestBody: '{}', responseBody: null, ...overrides,
});

let dir: string;
let db: SqliteDatabase;
let log: RequestLog | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-log-dialects-'));
  db = openDatabase(dir);
});
afterEach(async () => {
  await log?.close();
  log = undefined;
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const byTrace = (items: LogEntry[], traceId: string) => items.find((item) => item.traceId === traceId)!;

describe.each([
  ['on this thread', () => new RequestLog(db)],
  ['on the writer thread', () => new RequestLog(db, { writer: new ThreadLogWriter(db, { file: join(dir, DATABASE_FILE) }) })],
])('the dialect columns, written %s', (_where, makeLog) => {
  it('round-trip through list, detail and the live feed', async () => {
    log = makeLog();
    const heard: LogEntry[] = [];
    log.subscribe((item) => heard.push(item));
    log.append(entry('translated', {
      dialect: 'anthropic-messages', providerFormat: 'openai-chat', dropped: ['thinking', 'context_management'],
      promptTokens: 120, completionTokens: 30, cacheReadTokens: 100, cacheWriteTokens: 0, reasoningTokens: 12,
    }));
    // Its usage as the gateway reads it from the answer (usage-from-body.test.ts reads this body).
    log.append(entry('old-caller', { path: '/v1/chat/completions', provider: 'openai', responseBody: '{"usage":{"prompt_tokens":3,"completion_tokens":4}}', promptTokens: 3, completionTokens: 4 }));
    await log.flush();
    const expected = {
      dialect: 'anthropic-messages', providerFormat: 'openai-chat', dropped: ['thinking', 'context_management'],
      promptTokens: 120, completionTokens: 30, cacheReadTokens: 100, cacheWriteTokens: 0, reasoningTokens: 12,
    };
    const { items } = await log.list();
    expect(byTrace(items, 'translated')).toMatchObject(expected);
    expect(await log.get(byTrace(items, 'translated').id)).toMatchObject(expected);
    expect(byTrace(heard, 'translated')).toMatchObject(expected);
    // A caller that says nothing of dialects: the dialect is known by the path, nothing was dropped.
    const old = { dialect: 'openai-chat', providerFormat: null, dropped: [], promptTokens: 3, completionTokens: 4, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null };
    expect(byTrace(items, 'old-caller')).toMatchObject(old);
    expect(byTrace(heard, 'old-caller')).toMatchObject(old);
  });
});

describe('usage handed over by the gateway', () => {
  it('is not read when the gateway handed the counts over, nor for failures', async () => {
    log = new RequestLog(db);
    const body = JSON.stringify({ type: 'message', usage: { input_tokens: 7, output_tokens: 3, cache_read_input_tokens: 1 } });
    log.append(entry('given', { dialect: 'anthropic-messages', responseBody: body, promptTokens: 50, completionTokens: 5 }));
    log.append(entry('failed', { dialect: 'anthropic-messages', responseBody: body, status: 500 }));
    log.append(entry('model-list', { path: '/v1/models', dialect: null, responseBody: '{"data":[]}' }));
    await log.flush();
    const { items } = await log.list();
    expect(byTrace(items, 'given')).toMatchObject({ promptTokens: 50, completionTokens: 5, cacheReadTokens: null });
    expect(byTrace(items, 'failed')).toMatchObject({ promptTokens: null, completionTokens: null, cacheReadTokens: null });
    expect(byTrace(items, 'model-list')).toMatchObject({ dialect: null, promptTokens: null });
  });
});

describe('listing by dialect', () => {
  it('returns only the rows of that dialect, newest first, with the other filters and the search', async () => {
    log = new RequestLog(db);
    log.append(entry('m1', { dialect: 'anthropic-messages' }));
    log.append(entry('c1', { path: '/v1/chat/completions', provider: 'openai' }));
    log.append(entry('r1', { path: '/v1/responses', dialect: 'openai-responses', provider: 'openai' }));
    log.append(entry('m2', { dialect: 'anthropic-messages', status: 429, error: 'rate limited' }));
    await log.flush();
    const traces = async (query: Parameters<RequestLog['list']>[0]) => (await log!.list(query)).items.map((item) => item.traceId);
    expect(await traces({ dialect: 'anthropic-messages' })).toEqual(['m2', 'm1']);
    expect(await traces({ dialect: 'openai-chat' })).toEqual(['c1']);
    expect(await traces({ dialect: 'openai-responses', provider: 'openai' })).toEqual(['r1']);
    expect(await traces({ dialect: 'anthropic-messages', status: 'error' })).toEqual(['m2']);
    expect(await traces({ dialect: 'anthropic-messages', q: 'rate' })).toEqual(['m2']);
    expect(await traces({ dialect: 'openai-completions' })).toEqual([]);
  });
});

describe('the migration', () => {
  it('adds the columns to a log of the previous schema and names the dialect of its OpenAI rows', async () => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
    dir = mkdtempSync(join(tmpdir(), 'gatehouse-log-dialects-'));
    const previous = openDatabase(dir, { migrations: migrations.filter((migration) => migration.version < 6) });
    const insert = previous.prepare('INSERT INTO request_log (created_at, trace_id, path, status, latency_ms) VALUES (0, ?, ?, 200, 1)');
    insert.run('old-chat', '/v1/chat/completions');
    insert.run('old-completion', '/v1/completions');
    insert.run('old-models', '/v1/models');
    previous.close();
    db = openDatabase(dir);
    log = new RequestLog(db);
    const { items } = await log.list();
    expect(byTrace(items, 'old-chat')).toMatchObject({ dialect: 'openai-chat', providerFormat: null, dropped: [], cacheReadTokens: null });
    expect(byTrace(items, 'old-completion')).toMatchObject({ dialect: 'openai-completions' });
    expect(byTrace(items, 'old-models')).toMatchObject({ dialect: null });
    expect((await log.list({ dialect: 'openai-chat' })).items.map((item) => item.traceId)).toEqual(['old-chat']);
  });
});
