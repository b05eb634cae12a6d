// `gatehouse keys limits NAME [--rpm N] [--tpm N] [--daily-usd X] [--monthly-usd X] [--clear]`
// (CONTRACT §1): sets a key's limits by its name (or id), virtual and gateway keys alike. Flags given
// change those limits and keep the others; `none` removes one; --clear removes all first. Without
// flags it prints the limits and today's and this month's spend. It writes through the server's limits
// repository (storage.ts); a running server applies the change within a second (KeyLimitsService polls).
import { parseArgs } from 'node:util';
import { NO_LIMITS, validLimits, type KeyLimits, type KeyLimitsRepository, type LimitedKey } from '../core/limits.js';
import { periodAt } from '../gateway/limits/calendar.js';
import { GatewayError } from '../core/errors.js';
import { UsageError, type CommandIO } from './command.js';
import { findKey } from './find-key.js';
import { STORAGE_OPTIONS, storagePlace, withStorage } from './storage.js';

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
      ...STORAGE_OPTIONS,
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
  const place = storagePlace(values, io.env);
  return withStorage(place, io.env, false, async (storage) => {
    if (!storage) throw new Error(`No keys in ${place.dataDir} yet: create one with 'gatehouse keys add' or 'gatehouse gateway-keys add'.`);
    const table = await storage.limits();
    const key = await findKey(table, positionals[0]);
    const current = await table.get(key.id);
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
      await table.set(key.id, limits);
      limits = await table.get(key.id);
      io.stderr.write(`Limits of ${key.kind === 'virtual' ? 'virtual key' : 'gateway API key'} ${key.id} '${key.name}': ${describe(limits)}.\n`);
    }
    const spend = await spendOf(table, key);
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ keyId: key.id, keyName: key.name, kind: key.kind, limits: limits ?? NO_LIMITS, spentTodayUsd: spend.today, spentThisMonthUsd: spend.month }, null, 2)}\n`);
    } else if (!values.clear && changes.length === 0) {
      io.stdout.write(`${key.id} '${key.name}' (${key.kind}): ${describe(limits)}; spent $${spend.today.toFixed(4)} today, $${spend.month.toFixed(4)} this month\n`);
    }
    return 0;
  });
}

/** What a key spent today and this local month, as its limits count it. */
async function spendOf(table: KeyLimitsRepository, key: LimitedKey): Promise<{ today: number; month: number }> {
  const period = periodAt(Date.now());
  const days = (await table.spendSince(period.monthFirstDay)).filter((spent) => spent.keyId === key.id && spent.day.startsWith(`${period.month}-`));
  return {
    today: days.filter((spent) => spent.day === period.day).reduce((sum, spent) => sum + spent.costUsd, 0),
    month: days.reduce((sum, spent) => sum + spent.costUsd, 0),
  };
}
