// The limiter's persistence: spend written in batches and read back for the current day and month only,
// and limits changed by another process (the CLI) applied to a running server's limiter.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type SqliteDatabase } from '../../../src-main/store/database.js';
import { KeyLimitsTable } from '../../../src-main/store/key-limits.js';
import { KeyLimitsService } from '../../../src-main/gateway/limits/limits-service.js';
import { LimitExceeded } from '../../../src-main/gateway/limits/limiter.js';

let dir: string;
let db: SqliteDatabase;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'gatehouse-limits-store-'));
  db = openDatabase(dir);
  const now = Date.now();
  db.prepare("INSERT INTO gateway_keys (id, name, key_hash, key_prefix, created_at, updated_at) VALUES ('gk_aa', 'agent', x'01', 'gh-gk-aaaa', ?, ?)").run(now, now);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('key limits store', () => {
  it("restores today's and this month's spend, not last month's, and adds new spend to the stored day", async () => {
    let now = new Date(2026, 6, 15, 10, 0, 0).getTime();
    const insert = db.prepare('INSERT INTO key_spend (key_id, day, cost_usd, tokens, requests) VALUES (?, ?, ?, ?, ?)');
    insert.run('gk_aa', '2026-06-30', 100, 1000, 10);
    insert.run('gk_aa', '2026-07-01', 2, 20, 2);
    insert.run('gk_aa', '2026-07-15', 0.5, 50, 5);
    const service = await KeyLimitsService.start(new KeyLimitsTable(db), { now: () => now, intervalMs: 60_000 });
    try {
      expect(await service.get('gk_aa')).toMatchObject({ keyName: 'agent', spentTodayUsd: 0.5, spentThisMonthUsd: 2.5, requestsToday: 5, tokensToday: 50 });
      service.limiter.admit('gk_aa').release({ tokens: 10, costUsd: 0.25 });
      service.limiter.admit('gk_aa').release({ tokens: 10, costUsd: 0.25 });
      // Nothing is written per call; one flush writes the batch.
      expect(db.prepare("SELECT cost_usd FROM key_spend WHERE day = '2026-07-15'").get()).toEqual({ cost_usd: 0.5 });
      service.flush();
      expect(db.prepare("SELECT cost_usd, tokens, requests FROM key_spend WHERE day = '2026-07-15'").get()).toEqual({ cost_usd: 1, tokens: 70, requests: 7 });
      now = new Date(2026, 7, 1, 0, 0, 1).getTime();
      expect(await service.get('gk_aa')).toMatchObject({ spentTodayUsd: 0, spentThisMonthUsd: 0 });
    } finally {
      service.close();
    }
  });

  it('applies limits another connection writes (the CLI) within an interval, and forgets them when removed', async () => {
    const service = await KeyLimitsService.start(new KeyLimitsTable(db), { intervalMs: 20 });
    const cli = openDatabase(dir);
    try {
      await new KeyLimitsTable(cli).set('gk_aa', { rpm: 1, tpm: null, dailyUsd: null, monthlyUsd: null });
      await expect.poll(async () => (await service.get('gk_aa')).limits.rpm, { timeout: 2000 }).toBe(1);
      service.limiter.admit('gk_aa');
      expect(() => service.limiter.admit('gk_aa')).toThrow(LimitExceeded);
      await new KeyLimitsTable(cli).clear('gk_aa');
      await expect.poll(async () => (await service.get('gk_aa')).limits.rpm, { timeout: 2000 }).toBeNull();
      expect(() => service.limiter.admit('gk_aa')).not.toThrow();
    } finally {
      cli.close();
      service.close();
    }
  });

  it('writes what is left on close', async () => {
    const service = await KeyLimitsService.start(new KeyLimitsTable(db), { intervalMs: 60_000 });
    service.limiter.admit('gk_aa').release({ tokens: 3, costUsd: 0.125 });
    service.close();
    expect(db.prepare('SELECT sum(cost_usd) AS usd FROM key_spend').get()).toEqual({ usd: 0.125 });
  });

  it('does not wait for another writer: the spend stays pending while the database is busy, then is written', async () => {
    const service = await KeyLimitsService.start(new KeyLimitsTable(db), { intervalMs: 20 });
    const other = openDatabase(dir);
    try {
      other.exec('BEGIN IMMEDIATE');
      service.limiter.admit('gk_aa').release({ tokens: 1, costUsd: 0.5 });
      const started = performance.now();
      await new Promise((resolve) => setTimeout(resolve, 120));
      // Several ticks ran meanwhile; waiting on the lock (5 s busy timeout) would have held this timer up.
      expect(performance.now() - started).toBeLessThan(1_000);
      other.exec('COMMIT');
      await expect.poll(() => (other.prepare('SELECT sum(cost_usd) AS usd FROM key_spend').get() as { usd: number | null }).usd, { timeout: 2000 }).toBe(0.5);
      expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    } finally {
      other.close();
      service.close();
    }
  });
});
