// Nothing dropped on stop: log rows (with the usage totals they carry) and key spend that PostgreSQL does
// not take by the end of a graceful stop are kept in the data dir (pg-spill-*.ndjson, owner-only) and
// written at the next start, exactly once: the file stays while PostgreSQL is away, a start that stopped
// before removing it (or a second instance on the same data dir) adds nothing twice, and rows whose batch
// was committed without its answer coming back are not doubled either.
import { copyFileSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PgBridge } from '../../src-main/store-postgres/pg-bridge.js';
import { replaySpills } from '../../src-main/store-postgres/spill.js';
import { spillFiles } from '../../src-main/store/spill-file.js';
import type { RequestLog } from '../../src-main/store/request-log.js';
import type { RowValues } from '../../src-main/store/log-row.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startPostgres, withClient, type TestPostgres } from '../helpers/postgres.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { startTcpProxy } from '../helpers/tcp-proxy.js';

let postgres: TestPostgres;
let fake: OpenAIFake;
const dirs: string[] = [];
/** Whether this file stopped the server: a test that fails midway must not leave the next one without it. */
let serverDown = false;
const stopServer = () => {
  postgres.stopServer();
  serverDown = true;
};
const startServer = () => {
  if (!serverDown) return;
  postgres.startServer();
  serverDown = false;
};

beforeAll(async () => {
  postgres = await startPostgres();
  fake = await startOpenAIFake();
}, 60_000);
afterEach(() => startServer(), 60_000);
afterAll(async () => {
  await fake?.close();
  await postgres?.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}, 30_000);

function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-spill-'));
  dirs.push(dir);
  return dir;
}

function complete(gateway: TestGateway, key: string, prompt: string) {
  return fetch(`${gateway.baseUrl}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'gpt-3.5-turbo-instruct', prompt, max_tokens: 5 }),
  });
}

/** N calls answered with 200, a few at a time. */
async function answer(gateway: TestGateway, key: string, n: number, label: string): Promise<void> {
  for (let start = 0; start < n; start += 10) {
    const results = await Promise.all(Array.from({ length: Math.min(10, n - start) }, (_, i) => complete(gateway, key, `${label} ${start + i}`)));
    for (const result of results) expect(result.status).toBe(200);
  }
}

/** A key with a daily budget (so its spend is kept) on a new instance's database. */
async function keyWithBudget(gateway: TestGateway, name: string): Promise<{ id: string; key: string }> {
  const response = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name, provider: 'openai', secret: `sk-${name}-secret-value`, customHost: fake.baseUrl }) });
  expect(response.status).toBe(201);
  const key = (await response.json()) as { id: string; key: string };
  expect((await gateway.admin(`/keys/${key.id}/limits`, { method: 'PUT', body: JSON.stringify({ dailyUsd: 1000 }) })).status).toBe(200);
  return key;
}

interface Stored {
  rows: number;
  distinctTraces: number;
  rowCost: number;
  usageRequests: number;
  usageCostNanos: number;
  spendRequests: number;
  spendCost: number;
}

/** What PostgreSQL holds for the key: its rows, its usage totals (by key), its spend. */
async function stored(url: string, keyId: string): Promise<Stored> {
  return withClient(url, async (client) => {
    const rows = (await client.query('SELECT count(*)::int AS n, count(DISTINCT trace_id)::int AS traces, coalesce(sum(cost_usd), 0)::float8 AS cost FROM request_log WHERE key_id = $1', [keyId])).rows[0];
    const usage = (await client.query("SELECT coalesce(sum(requests), 0)::int AS requests, coalesce(sum(cost_nanos), 0)::float8 AS cost FROM usage_daily WHERE dim = 'key' AND name = $1", [keyId])).rows[0];
    const spend = (await client.query('SELECT coalesce(sum(requests), 0)::int AS requests, coalesce(sum(cost_usd), 0)::float8 AS cost FROM key_spend WHERE key_id = $1', [keyId])).rows[0];
    return { rows: rows.n, distinctTraces: rows.traces, rowCost: rows.cost, usageRequests: usage.requests, usageCostNanos: usage.cost, spendRequests: spend.requests, spendCost: spend.cost };
  });
}

function expectExactly(found: Stored, n: number): void {
  expect(found.rows).toBe(n);
  expect(found.distinctTraces).toBe(n);
  expect(found.usageRequests).toBe(n);
  expect(found.spendRequests).toBe(n);
  expect(found.rowCost).toBeGreaterThan(0);
  expect(found.usageCostNanos / 1e9).toBeCloseTo(found.rowCost, 9);
  expect(found.spendCost).toBeCloseTo(found.rowCost, 9);
}

const droppedOf = (gateway: TestGateway) => (gateway.running.services.requestLog as RequestLog).droppedCount;

/**
 * An instance on `url` with data dir `dataDir` that answers `written` calls which reach PostgreSQL, then
 * `spilled` more while PostgreSQL is stopped, and is stopped gracefully (PostgreSQL still stopped).
 */
async function outageAtStop(url: string, dataDir: string, written: number, spilled: number): Promise<{ id: string; key: string }> {
  const gateway = await startGateway({ databaseUrl: url, dataDir });
  let key: { id: string; key: string };
  try {
    key = await keyWithBudget(gateway, `spill-${written}-${spilled}`);
    await answer(gateway, key.key, written, 'before');
    await gateway.flushLog();
    // The spend of those calls is written on the limiter's next tick (twice a second).
    await expect.poll(async () => (await stored(url, key.id)).spendRequests, { timeout: 5_000, interval: 100 }).toBe(written);
    stopServer();
    await answer(gateway, key.key, spilled, 'during');
  } finally {
    await gateway.close();
  }
  expect(droppedOf(gateway)).toBe(0);
  return key;
}

describe('team mode: a graceful stop while PostgreSQL is unreachable', () => {
  it('keeps the rows and spend in a spill file (0600, no secret), writes them at the next start exactly once, and removes the file', async () => {
    const url = await postgres.newDatabase();
    const dataDir = freshDir();
    const key = await outageAtStop(url, dataDir, 5, 40);

    const files = spillFiles(dataDir);
    expect(files.length).toBeGreaterThanOrEqual(1);
    const text = files.map((file) => readFileSync(file, 'utf8')).join('');
    for (const file of files) expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(text).toContain('during 39');
    // Neither the provider's secret nor the caller's key (its headers are stored redacted).
    expect(text).not.toContain('secret-value');
    expect(text).not.toContain(key.key);
    expect(readdirSync(dataDir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
    // Kept aside: the same file found again later, as after a start that stopped before removing it.
    const copies = freshDir();
    for (const file of files) copyFileSync(file, join(copies, file.slice(dataDir.length + 1)));

    startServer();
    const again = await startGateway({ databaseUrl: url, dataDir });
    await again.close();
    expectExactly(await stored(url, key.id), 45);
    expect(spillFiles(dataDir)).toEqual([]);

    // Started again: nothing more. A stop with PostgreSQL there writes its queued rows and keeps no file.
    const third = await startGateway({ databaseUrl: url, dataDir });
    const other = await keyWithBudget(third, 'healthy-stop');
    await answer(third, other.key, 3, 'healthy');
    await third.close();
    expect(spillFiles(dataDir)).toEqual([]);
    expectExactly(await stored(url, other.id), 3);
    expectExactly(await stored(url, key.id), 45);
    // And the same files back in the data dir: refused as written, and removed.
    for (const name of readdirSync(copies)) copyFileSync(join(copies, name), join(dataDir, name));
    const fourth = await startGateway({ databaseUrl: url, dataDir });
    // The key's budget, as the limiter read it at start, counts the spilled calls, once.
    const limits = (await (await fourth.admin(`/keys/${key.id}/limits`)).json()) as { requestsToday: number; spentTodayUsd: number };
    await fourth.close();
    expect(limits.requestsToday).toBe(45);
    expectExactly(await stored(url, key.id), 45);
    expect(spillFiles(dataDir)).toEqual([]);
  }, 90_000);

  it('a start that still finds PostgreSQL down keeps the file; the one after writes every row once', async () => {
    const url = await postgres.newDatabase();
    const dataDir = freshDir();
    const key = await outageAtStop(url, dataDir, 0, 30);
    const files = spillFiles(dataDir);
    expect(files.length).toBeGreaterThanOrEqual(1);

    await expect(startGateway({ databaseUrl: url, dataDir })).rejects.toThrow();
    expect(spillFiles(dataDir)).toEqual(files);

    // PostgreSQL answers the start but refuses the replay (here: a bridge to a port nothing listens on).
    const dead = new URL(url);
    dead.port = '1';
    const refusing = new PgBridge({ url: dead.toString(), syncTimeoutMs: 1_000 });
    try {
      expect(await replaySpills(refusing, dataDir)).toBe(0);
    } finally {
      await refusing.close();
    }
    expect(spillFiles(dataDir)).toEqual(files);

    startServer();
    const back = await startGateway({ databaseUrl: url, dataDir });
    await back.close();
    expectExactly(await stored(url, key.id), 30);
    expect(spillFiles(dataDir)).toEqual([]);
  }, 90_000);

  it('two instances replaying one data dir at once write it once; rows committed without their answer are not doubled', async () => {
    const url = await postgres.newDatabase();
    const dataDir = freshDir();
    const key = await outageAtStop(url, dataDir, 3, 20);
    startServer();
    const [file] = spillFiles(dataDir);
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const header = JSON.parse(lines[0]) as { instanceId: string; batches: { writer: string; seq: number; rows: number }[]; rows: number };
    expect(header.rows).toBe(20);
    // Refused while PostgreSQL was stopped: handed over, so each may have been committed.
    expect(header.batches.length).toBeGreaterThan(0);
    const [first] = header.batches;

    const bridges = [new PgBridge({ url }), new PgBridge({ url })];
    try {
      // A batch of the file's rows that PostgreSQL committed though its answer never came back (the same
      // rows under the same mark, as its writer sent it).
      const committed = lines.slice(1, 1 + first.rows).map((line) => JSON.parse(line) as RowValues);
      await new Promise<void>((resolve, reject) =>
        bridges[0].writeLogBatch(committed, header.instanceId, { writer: first.writer, seq: first.seq, forget: [] }, (outcome) => ('error' in outcome ? reject(outcome.error) : resolve())),
      );
      expect((await stored(url, key.id)).rows).toBe(3 + first.rows);

      const written = await Promise.all(bridges.map((bridge) => replaySpills(bridge, dataDir)));
      expect(written[0] + written[1]).toBe(20 - first.rows);
    } finally {
      await Promise.all(bridges.map((bridge) => bridge.close()));
    }
    const found = await stored(url, key.id);
    expect(found.rows).toBe(23);
    expect(found.distinctTraces).toBe(23);
    expect(found.usageRequests).toBe(23);
    expect(found.spendRequests).toBe(23);
    expect(spillFiles(dataDir)).toEqual([]);
  }, 90_000);
});

describe('team mode: a graceful stop while PostgreSQL hangs (answers nothing)', () => {
  it('keeps the rows whose batches were never answered, and the next start writes each once', async () => {
    const url = await postgres.newDatabase();
    const dataDir = freshDir();
    const gateway = await startGateway({ databaseUrl: url, dataDir });
    let key: { id: string; key: string };
    try {
      key = await keyWithBudget(gateway, 'hang');
      await answer(gateway, key.key, 4, 'before');
      await gateway.flushLog();
      await expect.poll(async () => (await stored(url, key.id)).spendRequests, { timeout: 5_000, interval: 100 }).toBe(4);
      postgres.pauseServer();
      try {
        await answer(gateway, key.key, 25, 'hung');
        await gateway.close();
      } finally {
        postgres.resumeServer();
      }
    } finally {
      await gateway.close().catch(() => undefined);
    }
    expect(droppedOf(gateway)).toBe(0);
    expect(spillFiles(dataDir).length).toBeGreaterThanOrEqual(1);
    const again = await startGateway({ databaseUrl: url, dataDir });
    await again.close();
    expectExactly(await stored(url, key.id), 29);
    expect(spillFiles(dataDir)).toEqual([]);
  }, 90_000);

  it('stops within its bound without holding the thread: timers in the process keep their pace, and the rows and spend are spilled', async () => {
    const url = await postgres.newDatabase();
    const dataDir = freshDir();
    const gateway = await startGateway({ databaseUrl: url, dataDir });
    let key: { id: string; key: string };
    let stopMs = 0;
    let slowestTick = 0;
    try {
      key = await keyWithBudget(gateway, 'frozen-stop');
      await answer(gateway, key.key, 2, 'before');
      await gateway.flushLog();
      await expect.poll(async () => (await stored(url, key.id)).spendRequests, { timeout: 5_000, interval: 100 }).toBe(2);
      postgres.pauseServer();
      try {
        await answer(gateway, key.key, 6, 'frozen');
        // Whatever else runs in the process (an Electron window, a second gateway) is held by any wait on this thread.
        let last = performance.now();
        const ticker = setInterval(() => {
          const now = performance.now();
          slowestTick = Math.max(slowestTick, now - last);
          last = now;
        }, 20);
        const started = performance.now();
        await gateway.close();
        stopMs = performance.now() - started;
        clearInterval(ticker);
      } finally {
        postgres.resumeServer();
      }
    } finally {
      await gateway.close().catch(() => undefined);
    }
    // The log's flush (5 s) and the pool's end (2 s) are each bounded; each later step fails at once once PostgreSQL is silent.
    expect(stopMs).toBeLessThan(12_000);
    expect(slowestTick).toBeLessThan(500);
    expect(droppedOf(gateway)).toBe(0);
    expect(spillFiles(dataDir).length).toBeGreaterThanOrEqual(1);
    const again = await startGateway({ databaseUrl: url, dataDir });
    await again.close();
    expectExactly(await stored(url, key.id), 8);
  }, 90_000);
});

describe('team mode: a COMMIT that lands while its answer is lost', () => {
  it('counts the spend (and rows) of those writes once: retried, written on stop and replayed from the spill', async () => {
    const url = await postgres.newDatabase();
    const dataDir = freshDir();
    const parsed = new URL(url);
    const proxy = await startTcpProxy(Number(parsed.port));
    parsed.port = String(proxy.port);
    let key: { id: string; key: string };
    try {
      const gateway = await startGateway({ databaseUrl: parsed.toString(), dataDir });
      try {
        key = await keyWithBudget(gateway, 'lost-answers');
        await answer(gateway, key.key, 3, 'before');
        await gateway.flushLog();
        await expect.poll(async () => (await stored(url, key.id)).spendRequests, { timeout: 5_000, interval: 100 }).toBe(3);
        // From here PostgreSQL commits every write, and the gateway hears no answer to a COMMIT.
        await proxy.loseAnswersAfterCommit();
        await answer(gateway, key.key, 7, 'unanswered');
        await gateway.flushLog();
        // A write of the spend (on the limiter's next tick) is committed: the gateway cannot know.
        await expect.poll(async () => (await stored(url, key.id)).spendRequests, { timeout: 10_000, interval: 100 }).toBeGreaterThan(3);
      } finally {
        await gateway.close();
      }
      expect(droppedOf(gateway)).toBe(0);
      expect(spillFiles(dataDir).length).toBeGreaterThanOrEqual(1);
    } finally {
      await proxy.close();
    }
    const again = await startGateway({ databaseUrl: url, dataDir });
    await again.close();
    expectExactly(await stored(url, key.id), 10);
    expect(spillFiles(dataDir)).toEqual([]);
    // Every write applied: the replay's writer took its mark back; the one whose answers were lost keeps its own.
    const marks = await withClient(url, async (client) => (await client.query('SELECT writer FROM spend_writes')).rows as { writer: string }[]);
    expect(marks.length).toBeLessThanOrEqual(1);
  }, 90_000);
});

describe('team mode: a log batch whose COMMIT lands while its connection is cut', () => {
  it('is written once: its retry on a new connection finds it written, and the live log still hears each row', async () => {
    const url = await postgres.newDatabase();
    const dataDir = freshDir();
    const parsed = new URL(url);
    const proxy = await startTcpProxy(Number(parsed.port));
    parsed.port = String(proxy.port);
    let key: { id: string; key: string };
    const heard: string[] = [];
    try {
      const gateway = await startGateway({ databaseUrl: parsed.toString(), dataDir });
      try {
        key = await keyWithBudget(gateway, 'cut-commits');
        await answer(gateway, key.key, 3, 'before');
        await gateway.flushLog();
        await expect.poll(async () => (await stored(url, key.id)).spendRequests, { timeout: 5_000, interval: 100 }).toBe(3);
        const unsubscribe = (gateway.running.services.requestLog as RequestLog).subscribe((entry) => heard.push(entry.id));
        // The next COMMITs (log batches, and spend on the limiter's tick) land, and the gateway hears an error.
        await proxy.cutAfterCommits(4);
        await answer(gateway, key.key, 7, 'cut');
        await gateway.flushLog();
        // Refused batches are tried again every second: each then finds its rows written.
        await expect.poll(async () => heard.length, { timeout: 10_000, interval: 100 }).toBe(7);
        unsubscribe();
        const found = await stored(url, key.id);
        expect(found.rows).toBe(10);
        expect(found.distinctTraces).toBe(10);
        expect(found.usageRequests).toBe(10);
      } finally {
        await gateway.close();
      }
      expect(droppedOf(gateway)).toBe(0);
    } finally {
      await proxy.close();
    }
    // A start adds nothing (and writes the spend a cut write left, if any, once).
    const again = await startGateway({ databaseUrl: url, dataDir });
    await again.close();
    expectExactly(await stored(url, key.id), 10);
    // Each row the listeners heard once, by the id it was stored under.
    const ids = await withClient(url, async (client) => (await client.query("SELECT id::text AS id FROM request_log WHERE key_id = $1 AND prompt_tokens IS NOT NULL AND request_body LIKE '%cut %' ORDER BY request_log.id", [key.id])).rows.map((row) => row.id as string));
    expect(ids).toHaveLength(7);
    expect([...new Set(heard)].sort()).toEqual(ids.sort());
    // The writer took its batches' marks back on stop.
    expect(await withClient(url, async (client) => (await client.query('SELECT count(*)::int AS n FROM log_batches')).rows[0].n)).toBe(0);
  }, 90_000);
});

describe('a spill file that cannot be written', () => {
  it('counts the rows as dropped: the only way they are lost', async () => {
    const url = await postgres.newDatabase();
    const dataDir = freshDir();
    const gateway = await startGateway({ databaseUrl: url, dataDir });
    try {
      const key = await keyWithBudget(gateway, 'full-disk');
      stopServer();
      await answer(gateway, key.key, 12, 'lost');
      // No file can be made where the data dir was (as on a full disk, the write fails).
      rmSync(dataDir, { recursive: true, force: true });
      writeFileSync(dataDir, '');
    } finally {
      await gateway.close();
      startServer();
    }
    expect(droppedOf(gateway)).toBe(12);
  }, 60_000);
});
