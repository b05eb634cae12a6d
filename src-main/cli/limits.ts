// `gatehouse keys limits NAME [--rpm N] [--tpm N] [--daily-usd X] [--monthly-usd X] [--clear]`
// (CONTRACT §1): sets a key's limits by its name (or id), virtual and gateway keys alike. Flags given
// change those limits and keep the others; `none` removes one; --clear removes all first. Without
// flags it prints the limits and today's and this month's spend. It writes the database directly; a
// server running on the same data dir applies the change within a second (KeyLimitsService polls).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultDataDir } from '../app.js';
import { DATABASE_FILE, openDatabase } from '../store/database.js';
import { KeyLimitsTable } from '../store/key-limits.js';
import { validLimits } from '../core/limits.js';
import { periodAt } from '../gateway/limits/calendar.js';
import { NO_LIMITS, type KeyLimits } from '../core/limits.js';
import { GatewayError } from '../core/errors.js';
import { UsageError, type CommandIO } from './command.js';
import { findKey } from './find-key.js';

const FLAGS = { rpm: 'rpm', tpm: 'tpm', 'daily-usd': 'dailyUsd', 'monthly-usd': 'monthlyUsd' } as const;

/** A flag's value: `none` (or `off`) removes the limit; rates are whole numbers, budgets amounts in USD. */
function flagValue(flag: string, text: string): number | null {
  const trimmed = text.trim().toLowerCase().replace(/^\$/, '');
  if (trimmed === 'none' || trimmed === 'off') return null;
  if (!/^\d+(\.\d+)?$/.test(trimmed)) throw new UsageError(`--${flag} takes a number (or 'none' to remove it), not '${text}'.`);
  return Number(trimmed);
}

const describe = (limits: KeyLimits | null): string => {
  const shown = limits ?? NO_LIMITS;
  const parts = [
    shown.rpm !== null ? `${shown.rpm} requests/min` : null,
    shown.tpm !== null ? `${shown.tpm} tokens/min` : null,
    shown.dailyUsd !== null ? `$${shown.dailyUsd}/day` : null,
    shown.monthlyUsd !== null ? `$${shown.monthlyUsd}/month` : null,
  ].filter((part) => part !== null);
  return parts.length ? parts.join(', ') : 'no limits';
};

export async function runLimitsCommand(args: string[], io: CommandIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      'data-dir': { type: 'string' },
      rpm: { type: 'string' },
      tpm: { type: 'string' },
      'daily-usd': { type: 'string' },
      'monthly-usd': { type: 'string' },
      clear: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new UsageError("keys limits takes one key name (or id), e.g. gatehouse keys limits ci-bot --rpm 60");
  const dataDir = values['data-dir'] ?? defaultDataDir(io.env);
  if (!existsSync(join(dataDir, DATABASE_FILE))) throw new Error(`No keys in ${dataDir} yet: create one with 'gatehouse keys add' or 'gatehouse gateway-keys add'.`);

  const db = openDatabase(dataDir);
  try {
    const table = new KeyLimitsTable(db);
    const key = findKey(table, positionals[0]);
    const current = table.get(key.id);
    const changes = Object.entries(FLAGS).filter(([flag]) => values[flag as keyof typeof FLAGS] !== undefined);
    let limits = current;
    if (values.clear || changes.length > 0) {
      const next: Record<string, number | null> = values.clear ? { ...NO_LIMITS } : { ...(current ?? NO_LIMITS) };
      for (const [flag, field] of changes) next[field] = flagValue(flag, values[flag as keyof typeof FLAGS] as string);
      try {
        limits = validLimits(next);
      } catch (error) {
        // The admin API's wording names the JSON field; the flag is what the user typed.
        if (error instanceof GatewayError && error.param) {
          const flag = Object.entries(FLAGS).find(([, field]) => field === error.param)?.[0] ?? error.param;
          throw new UsageError(error.message.replace(`'${error.param}'`, `--${flag}`));
        }
        throw error;
      }
      table.set(key.id, limits);
      limits = table.get(key.id);
      io.stderr.write(`Limits of ${key.kind === 'virtual' ? 'virtual key' : 'gateway API key'} ${key.id} '${key.name}': ${describe(limits)}.\n`);
    }
    const period = periodAt(Date.now());
    const spend = db
      .prepare(
        `SELECT coalesce(sum(CASE WHEN day = ? THEN cost_usd END), 0) AS today, coalesce(sum(cost_usd), 0) AS month
         FROM key_spend WHERE key_id = ? AND day >= ? AND day LIKE ?`,
      )
      .get(period.day, key.id, period.monthFirstDay, `${period.month}-%`) as { today: number; month: number };
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ keyId: key.id, keyName: key.name, kind: key.kind, limits: limits ?? NO_LIMITS, spentTodayUsd: spend.today, spentThisMonthUsd: spend.month }, null, 2)}\n`);
    } else if (!values.clear && changes.length === 0) {
      io.stdout.write(`${key.id} '${key.name}' (${key.kind}): ${describe(limits)}; spent $${spend.today.toFixed(4)} today, $${spend.month.toFixed(4)} this month\n`);
    }
    return 0;
  } finally {
    db.close();
  }
}
