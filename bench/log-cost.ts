// The request log's costs: how fast batches are written (the work that shares Gatehouse's event loop),
// and how the admin queries hold up with a million rows.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DATABASE_FILE, openDatabase } from '../src-main/store/database.js';
import { RequestLog } from '../src-main/store/request-log.js';
import { INDEX_FOR_SEARCH } from '../src-main/store/log-writer.js';
import type { LogQuery } from '../src-main/core/log-store.js';
import type { CallRecord } from '../src-main/core/call-record.js';
import { COMPLETION_BODY, median } from './load.js';

const SAMPLE_RESPONSE = JSON.stringify({
  id: 'cmpl-bench',
  object: 'text_completion',
  created: 1700000000,
  model: 'gpt-3.5-turbo-instruct',
  choices: [{ index: 0, text: '\n\nThis is a test of the local gateway benchmark.', logprobs: null, finish_reason: 'stop' }],
  usage: { prompt_tokens: 5, completion_tokens: 12, total_tokens: 17 },
});

const BENCH_PROVIDER_KEY = 'sk-bench-provider-key-0123456789abcdef';

function sampleEntry(index: number): CallRecord {
  return {
    createdAt: Date.now(),
    traceId: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
    metadata: {},
    keyId: null,
    provider: 'openai',
    model: 'gpt-3.5-turbo-instruct',
    path: '/v1/completions',
    status: 200,
    latencyMs: 1.234,
    ttfbMs: 1.1,
    stream: false,
    error: null,
    attempts: 1,
    requestHeaders: {
      host: '127.0.0.1:8787',
      connection: 'keep-alive',
      'content-type': 'application/json',
      'content-length': String(COMPLETION_BODY.length),
      'x-gateway-api-key': 'gh-bench-gateway-key-0123456789',
      'x-gateway-provider': 'openai',
      'x-gateway-custom-host': 'http://127.0.0.1:9999/v1',
      authorization: `Bearer ${BENCH_PROVIDER_KEY}`,
    },
    requestBody: COMPLETION_BODY,
    responseBody: SAMPLE_RESPONSE,
    // As the gateway hands a row over: unredacted, with the values the log's redaction step blanks.
    secrets: [BENCH_PROVIDER_KEY],
  };
}

export interface LogWriteCost {
  rowsPerSecond: number;
  /** How long one full batch holds the event loop. */
  msPerBatch: number;
  batchSize: number;
}

/**
 * Queues rows the way the gateway does and times each batch: the queueing (where each row is redacted)
 * and the flush (one transaction per batch).
 */
export async function measureLogWrites(rows: number, batchSize = 64): Promise<LogWriteCost> {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-log-'));
  const db = openDatabase(dir);
  const log = new RequestLog(db, { batchSize: Number.MAX_SAFE_INTEGER, flushIntervalMs: 60_000 });
  try {
    const batchTimes: number[] = [];
    for (let written = 0; written < rows; written += batchSize) {
      const entries = Array.from({ length: batchSize }, (_, i) => sampleEntry(written + i));
      const started = performance.now();
      for (const entry of entries) log.append(entry);
      await log.flush();
      batchTimes.push(performance.now() - started);
    }
    const total = batchTimes.reduce((sum, ms) => sum + ms, 0);
    return { rowsPerSecond: (batchTimes.length * batchSize) / (total / 1000), msPerBatch: median(batchTimes), batchSize };
  } finally {
    await log.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * Fills a fresh data dir's log with `rows` varied, realistic rows in one SQL statement (through the
 * real migrations, so every index of the schema is paid for, the search index included). Returns the data dir.
 */
export function createLargeLog(rows: number): { dataDir: string; insertSeconds: number; bytesPerRow: number; rareTraceId: string } {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-1m-'));
  const db = openDatabase(dataDir);
  const started = performance.now();
  db.pragma('synchronous = OFF');
  db.prepare(
    `WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < @rows),
     shaped AS (
       SELECT i,
         CASE i % 7 WHEN 0 THEN 'openai' WHEN 1 THEN 'anthropic' WHEN 2 THEN 'groq' WHEN 3 THEN 'mistral-ai'
                    WHEN 4 THEN 'bedrock' WHEN 5 THEN 'ollama' ELSE 'openrouter' END AS provider,
         CASE i % 5 WHEN 0 THEN 'gpt-4o-mini' WHEN 1 THEN 'gpt-3.5-turbo-instruct' WHEN 2 THEN 'claude-3-5-haiku'
                    WHEN 3 THEN 'llama-3.1-8b-instant' ELSE 'mistral-small-latest' END AS model,
         CASE WHEN i % 97 = 0 THEN 500 WHEN i % 41 = 0 THEN 429 WHEN i % 53 = 0 THEN 400 ELSE 200 END AS status,
         lower(hex(randomblob(16))) AS hex
       FROM seq)
     INSERT INTO request_log (id, created_at, trace_id, metadata, key_id, provider, model, path, status, latency_ms, ttfb_ms,
       prompt_tokens, completion_tokens, stream, error, attempts, request_headers, request_body, response_body)
     SELECT i, @newest - (@rows - i) * 1000,
       substr(hex, 1, 8) || '-' || substr(hex, 9, 4) || '-4' || substr(hex, 14, 3) || '-8' || substr(hex, 18, 3) || '-' || substr(hex, 21, 12),
       '{"user":"user-' || (i % 500) || '","app":"bench"}', NULL, provider, model,
       CASE WHEN i % 3 = 0 THEN '/v1/chat/completions' ELSE '/v1/completions' END,
       status, 200 + (i % 1000) / 3.0, 80 + (i % 300) / 7.0, 20 + i % 400, 10 + i % 600, i % 2,
       CASE status WHEN 200 THEN NULL WHEN 429 THEN 'Rate limit reached for requests' WHEN 500 THEN 'The server had an error while processing your request'
                   ELSE 'Invalid value for temperature' END,
       1,
       '{"host":"127.0.0.1:8787","content-type":"application/json","user-agent":"OpenAI/Python 1.50.0","x-gateway-api-key":"[redacted]","x-gateway-provider":"' || provider || '","authorization":"[redacted]"}',
       '{"model":"' || model || '","prompt":"Question ' || i || ': summarise the quarterly report in three sentences.","max_tokens":256,"temperature":0.2}',
       '{"id":"cmpl-' || i || '","object":"text_completion","created":1700000000,"model":"' || model || '","choices":[{"index":0,"text":"The quarter closed with revenue up and costs flat; the new region opened on time.","logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":' || (20 + i % 400) || ',"completion_tokens":' || (10 + i % 600) || ',"total_tokens":0}}'
     FROM shaped`,
  ).run({ rows, newest: Date.now() });
  // The gateway indexes each batch it writes for the search box; rows written by SQL are indexed the same way.
  db.prepare(INDEX_FOR_SEARCH).run(1);
  const insertSeconds = (performance.now() - started) / 1000;
  const rareTraceId = (db.prepare('SELECT trace_id FROM request_log WHERE id = 1000').get() as { trace_id: string }).trace_id;
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const bytesPerRow = statSync(join(dataDir, DATABASE_FILE)).size / rows;
  return { dataDir, insertSeconds, bytesPerRow, rareTraceId };
}

export interface NamedLogQuery {
  label: string;
  query: LogQuery;
}

/** The UI's queries: the newest page, each filter alone, a combination, the next page, and the worst text searches. */
export function logQueries(rareTraceId: string, rows: number): NamedLogQuery[] {
  return [
    { label: 'newest 50', query: { limit: 50 } },
    { label: 'next page (before cursor)', query: { limit: 50, before: String(rows - 49) } },
    { label: 'provider = groq', query: { limit: 50, provider: 'groq' } },
    { label: 'status = 500', query: { limit: 50, status: 500 } },
    { label: 'status = error', query: { limit: 50, status: 'error' } },
    { label: 'text, common ("gpt-4o")', query: { limit: 50, q: 'gpt-4o' } },
    { label: 'text, one old row (part of a trace id)', query: { limit: 50, q: rareTraceId.slice(0, 13) } },
    { label: 'text, no match', query: { limit: 50, q: 'no-such-text' } },
    { label: 'provider + error + text', query: { limit: 50, provider: 'groq', status: 'error', q: 'user-42' } },
  ];
}

export function toSearchParams(query: LogQuery): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  return params.toString();
}

/** Times each query through RequestLog.list directly: the first (cold) run and the median of the next ones. */
export async function timeListCalls(dataDir: string, queries: NamedLogQuery[], repeats: number): Promise<{ label: string; coldMs: number; medianMs: number; rows: number }[]> {
  const db = openDatabase(dataDir);
  const log = new RequestLog(db);
  try {
    const timed: { label: string; coldMs: number; medianMs: number; rows: number }[] = [];
    for (const { label, query } of queries) {
      let started = performance.now();
      const first = await log.list(query);
      const coldMs = performance.now() - started;
      const times: number[] = [];
      for (let i = 0; i < repeats; i++) {
        started = performance.now();
        await log.list(query);
        times.push(performance.now() - started);
      }
      timed.push({ label, coldMs, medianMs: median(times), rows: first.items.length });
    }
    return timed;
  } finally {
    await log.close();
    db.close();
  }
}
