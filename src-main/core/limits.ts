// Limits per key as every layer speaks of them: the four limits, what a key has spent, and the storage
// contract the running limiter keeps its limits and spend in (SQLite in store/key-limits.ts; any
// implementation of KeyLimitsRepository will do).
import { invalidRequest } from './errors.js';

export interface KeyLimits {
  /** Requests per minute (sliding 60 s window, in 1 s steps). */
  rpm: number | null;
  /** Tokens (input + output) per minute (sliding 60 s window, in 1 s steps). */
  tpm: number | null;
  /** USD per local calendar day. */
  dailyUsd: number | null;
  /** USD per local calendar month. */
  monthlyUsd: number | null;
}

export const NO_LIMITS: KeyLimits = Object.freeze({ rpm: null, tpm: null, dailyUsd: null, monthlyUsd: null });

/** Whether any of the four is set. */
export const hasAnyLimit = (limits: KeyLimits): boolean => limits.rpm !== null || limits.tpm !== null || limits.dailyUsd !== null || limits.monthlyUsd !== null;

/** Upper bounds that keep the figures sane (the windows take the same memory whatever the limit). */
export const MAX_RPM = 1_000_000_000;
export const MAX_TPM = 1_000_000_000;
export const MAX_USD = 1_000_000_000;

export type LimitName = 'rpm' | 'tpm' | 'dailyUsd' | 'monthlyUsd';

/** Spend not yet written to the store, per key and local day. */
export interface SpendDelta {
  keyId: string;
  day: string;
  costUsd: number;
  tokens: number;
  requests: number;
}

export interface KeyUsage {
  keyId: string;
  limits: KeyLimits;
  /** Admitted in the last 60 s (counted only while the key has an rpm limit). */
  requestsLastMinute: number;
  /** Tokens finished in the last 60 s (counted only while the key has a tpm limit). */
  tokensLastMinute: number;
  spentTodayUsd: number;
  spentThisMonthUsd: number;
  /** The worst-case cost held by calls in flight (reservations), counted against both budgets. */
  reservedUsd: number;
  /** Calls of this key holding a reservation now. */
  callsInFlight: number;
  requestsToday: number;
  tokensToday: number;
  /** Local ISO times the day and month budgets reset. */
  dayResetsAt: string;
  monthResetsAt: string;
  /** The limit a request would hit now, or null if it would be admitted. */
  blocked: { limit: LimitName; code: string; message: string; retryAfterSeconds: number; resetsAt: string } | null;
}

export interface LimitedKey {
  id: string;
  name: string;
  kind: 'virtual' | 'gateway';
}

/** A key's limits and how close it is to each, as the admin API and the Keys page show them. */
export interface KeyLimitsView extends KeyUsage {
  keyName: string;
  kind: 'virtual' | 'gateway';
}

/** Checks limits from any caller (admin API, CLI): whole numbers for rates, non-negative amounts, null = none. */
export function validLimits(input: Partial<Record<keyof KeyLimits, unknown>>): KeyLimits {
  const whole = (name: 'rpm' | 'tpm', max: number): number | null => {
    const value = input[name];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
      throw invalidRequest(`'${name}' must be a whole number from 1 to ${max}, or null for no limit`, name);
    }
    return value;
  };
  const amount = (name: 'dailyUsd' | 'monthlyUsd'): number | null => {
    const value = input[name];
    if (value === undefined || value === null) return null;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > MAX_USD) {
      throw invalidRequest(`'${name}' must be an amount in USD from 0 to ${MAX_USD}, or null for no limit`, name);
    }
    return value;
  };
  return { rpm: whole('rpm', MAX_RPM), tpm: whole('tpm', MAX_TPM), dailyUsd: amount('dailyUsd'), monthlyUsd: amount('monthlyUsd') };
}

/** A day of one key's spend, as stored. */
export interface SpentDay {
  keyId: string;
  /** Local day, `YYYY-MM-DD`. */
  day: string;
  costUsd: number;
  tokens: number;
  requests: number;
}

/** The limits and the active keys, read together: what the running limiter is loaded from. */
export interface LimitsSnapshot {
  limits: Map<string, KeyLimits>;
  keys: LimitedKey[];
  /** Changes whenever the limits or the set of keys change, in this process or another. */
  version: string;
}

/**
 * Where key limits and spend are kept. Implemented on SQLite (store/) and PostgreSQL (store-postgres/); the
 * limits service depends only on this. Reads and admin writes are promises on both backends (PostgreSQL
 * answers off the serving thread); only what the limiter's tick does on the serving thread is synchronous:
 * handing spend over and asking whether anything changed.
 */
export interface KeyLimitsRepository {
  /** The active key of that id, with its name and kind; 404 when there is none. */
  key(id: string): Promise<LimitedKey>;
  keysNamed(name: string): Promise<LimitedKey[]>;
  activeKeys(): Promise<LimitedKey[]>;
  get(keyId: string): Promise<KeyLimits | null>;
  /** Sets a key's limits; all null removes them. */
  set(keyId: string, limits: KeyLimits): Promise<void>;
  clear(keyId: string): Promise<void>;
  /** The limits and the active keys with their version, read together: what the running limiter is loaded from. */
  snapshot(): Promise<LimitsSnapshot>;
  /** Whether anyone (another process included) may have written since this was last asked; a cheap poll of memory. */
  mayHaveChanged(): boolean;
  /** Spend per key and day from `firstDay` on. */
  spendSince(firstDay: string): Promise<SpentDay[]>;
  /** `[at, tokens]` of the admitted calls a key made or served since `since` (ms), oldest first. */
  recentCalls(keyId: string, since: number): Promise<[number, number][]>;
  /**
   * Takes spend; on the serving thread (the limiter's tick), so it never waits on a network. SQLite writes
   * it in one transaction: with `wait: false` it does not wait for another writer and returns false when the
   * store is busy (nothing written); otherwise it waits its turn. PostgreSQL hands it over either way and
   * keeps what was refused for the next write (and for its close).
   */
  addSpend(deltas: readonly SpendDelta[], options: { wait: boolean }): boolean;
  /** Whether the store can still be written (false once closed). */
  readonly isOpen: boolean;
}

/** Amounts given a number: sent as one write, as often as needed, and applied once (store-postgres/key-limits.ts: a write whose COMMIT landed but whose answer was lost is not applied twice). */
export interface SpendWrite {
  writer: string;
  seq: number;
  spend: SpendDelta[];
}
