// Prices the log rows written before costs were (migration 8), so an upgraded install's Usage page shows
// their spend instead of counting every earlier call as unknown. Runs once after start, a slice of rows
// per turn of the event loop (a request waits on one short slice at most); a row is marked done by
// giving it its local day, whether or not the catalog knows its model. The usage totals follow through
// the reprice trigger of migration 8.
import type { SqliteDatabase } from './database.js';
import { priceCall } from '../catalog/pricing.js';
import { localDay } from '../core/usage.js';

interface UndatedRow {
  id: number;
  created_at: number;
  provider: string | null;
  model: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  cache_read_tokens: number | null;
  cache_write_tokens: number | null;
  reasoning_tokens: number | null;
}

/** Rows priced; stops early (and resumes at the next start) once `stopped()` says so. */
export async function backfillCosts(db: SqliteDatabase, stopped: () => boolean, sliceRows = 500): Promise<number> {
  const next = db.prepare(
    `SELECT id, created_at, provider, model, prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens, reasoning_tokens
     FROM request_log WHERE day IS NULL ORDER BY id LIMIT ?`,
  );
  const price = db.prepare('UPDATE request_log SET cost_usd = ?, day = ? WHERE id = ?');
  const date = db.prepare('UPDATE request_log SET day = ? WHERE id = ?');
  const slice = db.transaction((rows: UndatedRow[]) => {
    for (const row of rows) {
      const day = localDay(new Date(row.created_at));
      const cost =
        row.prompt_tokens === null
          ? null
          : priceCall(row.provider, row.model, {
              inputTokens: row.prompt_tokens,
              outputTokens: row.completion_tokens ?? 0,
              cacheReadTokens: row.cache_read_tokens ?? 0,
              cacheWriteTokens: row.cache_write_tokens ?? 0,
              reasoningTokens: row.reasoning_tokens ?? 0,
            });
      // Only a row that gets a price goes through the reprice trigger.
      if (cost === null) date.run(day, row.id);
      else price.run(cost, day, row.id);
    }
  });
  let done = 0;
  while (!stopped() && db.open) {
    const rows = next.all(sliceRows) as UndatedRow[];
    if (rows.length === 0) break;
    slice(rows);
    done += rows.length;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return done;
}
