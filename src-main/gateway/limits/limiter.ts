// Limits per key, checked in memory on every request: requests per minute, tokens per minute, and USD
// budgets per day and per month. admit() is synchronous, so under any number of concurrent requests the
// counts are exact (Node runs one admit at a time). Requests already admitted are never stopped: their
// tokens and cost are counted when they finish (release), so a budget can be overshot only by what was
// in flight when it ran out. Spend is kept for every key, limited or not (a budget set at noon counts the
// morning), and handed to the store in batches (takePending), never written per request.
import { GatewayError } from '../errors.js';
import { localIsoTime, periodAt, type Period } from './calendar.js';

export interface KeyLimits {
  /** Requests per minute (sliding 60 s window). */
  rpm: number | null;
  /** Tokens (input + output) per minute (sliding 60 s window, 1 s steps). */
  tpm: number | null;
  /** USD per local calendar day. */
  dailyUsd: number | null;
  /** USD per local calendar month. */
  monthlyUsd: number | null;
}

export const NO_LIMITS: KeyLimits = Object.freeze({ rpm: null, tpm: null, dailyUsd: null, monthlyUsd: null });

/** Upper bounds that keep a key's memory small (the rpm window holds one timestamp per allowed request). */
export const MAX_RPM = 100_000;
export const MAX_TPM = 1_000_000_000;
export const MAX_USD = 1_000_000_000;

export interface CallOutcome {
  /** Input + output tokens of the call (0 if unknown). */
  tokens: number;
  /** What the call cost; null when its model has no price (then it counts towards no budget). */
  costUsd: number | null;
}

export interface LimitTicket {
  release(outcome: CallOutcome): void;
}

/** What proxy.ts depends on (ProxyDependencies.limits). */
export interface KeyLimiter {
  admit(keyId: string | null, keyName?: string): LimitTicket;
}

export type LimitName = 'rpm' | 'tpm' | 'dailyUsd' | 'monthlyUsd';

/** A 429 that says which limit, until when, and how long to wait (proxy.ts sends it as Retry-After). */
export class LimitExceeded extends GatewayError {
  constructor(
    message: string,
    code: 'budget_exceeded' | 'rate_limit_exceeded',
    readonly limit: LimitName,
    readonly retryAfterSeconds: number,
    readonly resetsAt: number,
  ) {
    super(429, 'rate_limit_error', message, null, code);
  }
}

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
  requestsToday: number;
  tokensToday: number;
  /** Local ISO times the day and month budgets reset. */
  dayResetsAt: string;
  monthResetsAt: string;
  /** The limit a request would hit now, or null if it would be admitted. */
  blocked: { limit: LimitName; code: string; message: string; retryAfterSeconds: number; resetsAt: string } | null;
}

const WINDOW_MS = 60_000;
const WINDOW_SECONDS = 60;

/** The admission times of the last `capacity` requests, oldest first from `head`: a sliding-window log. */
class RequestWindow {
  private times: Float64Array;
  private head = 0;
  private count = 0;

  constructor(readonly capacity: number, previous?: RequestWindow) {
    this.times = new Float64Array(capacity);
    if (previous) for (const at of previous.recent(capacity)) this.push(at);
  }

  /** When the oldest of a full window leaves it, or 0 if there is room now. */
  fullUntil(now: number): number {
    if (this.count < this.capacity) return 0;
    const oldest = this.times[this.head];
    return now - oldest < WINDOW_MS ? oldest + WINDOW_MS : 0;
  }

  push(at: number): void {
    if (this.count < this.capacity) {
      this.times[(this.head + this.count) % this.capacity] = at;
      this.count++;
    } else {
      this.times[this.head] = at;
      this.head = (this.head + 1) % this.capacity;
    }
  }

  /** The newest `max` timestamps, oldest first. */
  recent(max: number): number[] {
    const out: number[] = [];
    for (let i = Math.max(0, this.count - max); i < this.count; i++) out.push(this.times[(this.head + i) % this.capacity]);
    return out;
  }

  inWindow(now: number): number {
    let n = 0;
    for (let i = 0; i < this.count; i++) if (now - this.times[(this.head + i) % this.capacity] < WINDOW_MS) n++;
    return n;
  }
}

/** Tokens per second over the last 60 seconds, in a ring of 60 buckets. */
class TokenWindow {
  private readonly amounts = new Float64Array(WINDOW_SECONDS);
  private readonly seconds = new Float64Array(WINDOW_SECONDS).fill(-Infinity);

  add(now: number, tokens: number): void {
    const second = Math.floor(now / 1000);
    const i = second % WINDOW_SECONDS;
    if (this.seconds[i] !== second) {
      this.seconds[i] = second;
      this.amounts[i] = 0;
    }
    this.amounts[i] += tokens;
  }

  total(now: number): number {
    const oldest = Math.floor(now / 1000) - WINDOW_SECONDS;
    let sum = 0;
    for (let i = 0; i < WINDOW_SECONDS; i++) if (this.seconds[i] > oldest) sum += this.amounts[i];
    return sum;
  }

  /** When enough old seconds have left the window for the total to fall below `limit`. */
  belowAt(now: number, limit: number): number {
    const oldest = Math.floor(now / 1000) - WINDOW_SECONDS;
    const live: [number, number][] = [];
    for (let i = 0; i < WINDOW_SECONDS; i++) if (this.seconds[i] > oldest) live.push([this.seconds[i], this.amounts[i]]);
    live.sort((a, b) => a[0] - b[0]);
    let total = live.reduce((sum, [, amount]) => sum + amount, 0);
    for (const [second, amount] of live) {
      total -= amount;
      if (total < limit) return (second + WINDOW_SECONDS) * 1000;
    }
    return now;
  }
}

interface KeyState {
  keyId: string;
  name: string | undefined;
  limits: KeyLimits | undefined;
  requests: RequestWindow | undefined;
  tokens: TokenWindow | undefined;
  day: string;
  month: string;
  dayUsd: number;
  monthUsd: number;
  dayTokens: number;
  dayRequests: number;
  /** This key's entry in the current batch of unwritten spend, while it is for the key's current day. */
  pending: SpendDelta | undefined;
}

class Ticket implements LimitTicket {
  private released = false;
  constructor(
    private readonly limiter: InMemoryKeyLimiter,
    private readonly state: KeyState,
  ) {}

  release(outcome: CallOutcome): void {
    if (this.released) return;
    this.released = true;
    this.limiter.record(this.state, outcome);
  }
}

const NO_TICKET: LimitTicket = { release: () => undefined };

const usd = (value: number) => `$${value < 1 ? value.toFixed(4).replace(/0{1,2}$/, '') : value.toFixed(2)}`;
const secondsUntil = (at: number, now: number) => Math.max(1, Math.ceil((at - now) / 1000));

export interface LimiterOptions {
  /** The clock (ms since the epoch); tests pass a fake one. */
  now?: () => number;
}

export class InMemoryKeyLimiter implements KeyLimiter {
  private readonly states = new Map<string, KeyState>();
  /** Unwritten spend; a key's entry is reached through its state, so a finished call costs no lookup. */
  private pending: SpendDelta[] = [];
  private readonly now: () => number;
  private period: Period;
  private periodStart: number;

  constructor(options: LimiterOptions = {}) {
    this.now = options.now ?? Date.now;
    const now = this.now();
    this.period = periodAt(now);
    this.periodStart = now;
  }

  admit(keyId: string | null): LimitTicket {
    if (keyId === null) return NO_TICKET;
    const state = this.state(keyId);
    const limits = state.limits;
    if (limits !== undefined) {
      const now = this.now();
      const refusal = this.check(state, limits, now);
      if (refusal) throw refusal;
      state.requests?.push(now);
    }
    return new Ticket(this, state);
  }

  /** Counts a finished call: its tokens for the minute window, its cost for the day and month. */
  record(state: KeyState, outcome: CallOutcome): void {
    const now = this.now();
    this.align(state, now);
    const tokens = Number.isFinite(outcome.tokens) && outcome.tokens > 0 ? outcome.tokens : 0;
    const cost = outcome.costUsd !== null && Number.isFinite(outcome.costUsd) && outcome.costUsd > 0 ? outcome.costUsd : 0;
    if (tokens > 0) state.tokens?.add(now, tokens);
    state.dayUsd += cost;
    state.monthUsd += cost;
    state.dayTokens += tokens;
    state.dayRequests += 1;
    let delta = state.pending;
    if (delta === undefined || delta.day !== state.day) {
      delta = { keyId: state.keyId, day: state.day, costUsd: 0, tokens: 0, requests: 0 };
      state.pending = delta;
      this.pending.push(delta);
    }
    delta.costUsd += cost;
    delta.tokens += tokens;
    delta.requests += 1;
  }

  // ---- set up and kept in step by the store ----

  /** Replaces every key's limits (keys absent from the map have none) and their display names. */
  replaceLimits(limits: ReadonlyMap<string, KeyLimits>, names: ReadonlyMap<string, string> = new Map()): void {
    for (const [keyId, state] of this.states) {
      if (!limits.has(keyId)) this.applyLimits(state, undefined);
      state.name = names.get(keyId) ?? state.name;
    }
    for (const [keyId, keyLimits] of limits) {
      const state = this.state(keyId);
      state.name = names.get(keyId) ?? state.name;
      this.applyLimits(state, keyLimits);
    }
  }

  setLimits(keyId: string, limits: KeyLimits | null, name?: string): void {
    const state = this.state(keyId);
    if (name !== undefined) state.name = name;
    this.applyLimits(state, limits ?? undefined);
  }

  /** Spend already stored (at start): today's and this month's totals. */
  seedSpend(keyId: string, spend: { dayUsd: number; monthUsd: number; dayTokens: number; dayRequests: number }): void {
    const state = this.state(keyId);
    state.dayUsd += spend.dayUsd;
    state.monthUsd += spend.monthUsd;
    state.dayTokens += spend.dayTokens;
    state.dayRequests += spend.dayRequests;
  }

  /** A call from before a restart, so the minute windows do not start empty. */
  seedCall(keyId: string, at: number, tokens: number): void {
    const state = this.state(keyId);
    state.requests?.push(at);
    if (tokens > 0) state.tokens?.add(at, tokens);
  }

  /** The spend recorded since the last call, for the store to write; give it back if the write failed. */
  takePending(): SpendDelta[] {
    if (this.pending.length === 0) return [];
    const deltas = this.pending;
    this.pending = [];
    for (const delta of deltas) {
      const state = this.states.get(delta.keyId);
      if (state?.pending === delta) state.pending = undefined;
    }
    return deltas;
  }

  /** Amounts whose write failed go back in the batch (as entries of their own: the store adds them up). */
  restorePending(deltas: readonly SpendDelta[]): void {
    for (const delta of deltas) this.pending.push({ ...delta });
  }

  currentPeriod(): Period {
    return this.refreshPeriod(this.now());
  }

  usage(keyId: string): KeyUsage {
    const now = this.now();
    const state = this.state(keyId);
    this.align(state, now);
    const limits = state.limits ?? NO_LIMITS;
    const refusal = state.limits ? this.check(state, state.limits, now) : undefined;
    return {
      keyId,
      limits: { ...limits },
      requestsLastMinute: state.requests?.inWindow(now) ?? 0,
      tokensLastMinute: state.tokens?.total(now) ?? 0,
      spentTodayUsd: state.dayUsd,
      spentThisMonthUsd: state.monthUsd,
      requestsToday: state.dayRequests,
      tokensToday: state.dayTokens,
      dayResetsAt: localIsoTime(this.period.dayEnd),
      monthResetsAt: localIsoTime(this.period.monthEnd),
      blocked: refusal
        ? { limit: refusal.limit, code: String(refusal.code), message: refusal.message, retryAfterSeconds: refusal.retryAfterSeconds, resetsAt: localIsoTime(refusal.resetsAt) }
        : null,
    };
  }

  // ---- internals ----

  private check(state: KeyState, limits: KeyLimits, now: number): LimitExceeded | undefined {
    const who = state.name !== undefined ? `Key '${state.name}'` : `Key ${state.keyId}`;
    if (limits.dailyUsd !== null || limits.monthlyUsd !== null) {
      this.align(state, now);
      if (limits.dailyUsd !== null && state.dayUsd >= limits.dailyUsd) {
        const at = this.period.dayEnd;
        return new LimitExceeded(
          `${who} has used its daily budget of ${usd(limits.dailyUsd)} (${usd(state.dayUsd)} spent today); it resets at local midnight, ${localIsoTime(at)}`,
          'budget_exceeded',
          'dailyUsd',
          secondsUntil(at, now),
          at,
        );
      }
      if (limits.monthlyUsd !== null && state.monthUsd >= limits.monthlyUsd) {
        const at = this.period.monthEnd;
        return new LimitExceeded(
          `${who} has used its monthly budget of ${usd(limits.monthlyUsd)} (${usd(state.monthUsd)} spent this month); it resets on the 1st, ${localIsoTime(at)}`,
          'budget_exceeded',
          'monthlyUsd',
          secondsUntil(at, now),
          at,
        );
      }
    }
    if (state.requests) {
      const at = state.requests.fullUntil(now);
      if (at > 0) {
        return new LimitExceeded(
          `${who} is over its limit of ${limits.rpm} requests per minute; a request is allowed again at ${localIsoTime(at)} (in ${secondsUntil(at, now)} s)`,
          'rate_limit_exceeded',
          'rpm',
          secondsUntil(at, now),
          at,
        );
      }
    }
    if (state.tokens && limits.tpm !== null) {
      const used = state.tokens.total(now);
      if (used >= limits.tpm) {
        const at = state.tokens.belowAt(now, limits.tpm);
        return new LimitExceeded(
          `${who} is over its limit of ${limits.tpm} tokens per minute (${used} used in the last minute); requests are allowed again at ${localIsoTime(at)} (in ${secondsUntil(at, now)} s)`,
          'rate_limit_exceeded',
          'tpm',
          secondsUntil(at, now),
          at,
        );
      }
    }
    return undefined;
  }

  private applyLimits(state: KeyState, limits: KeyLimits | undefined): void {
    const active = limits && (limits.rpm !== null || limits.tpm !== null || limits.dailyUsd !== null || limits.monthlyUsd !== null) ? { ...limits } : undefined;
    state.limits = active;
    const rpm = active?.rpm ?? null;
    // A changed rpm keeps the requests already in the window (the newest ones, up to the new limit).
    if (rpm === null) state.requests = undefined;
    else if (state.requests?.capacity !== rpm) state.requests = new RequestWindow(rpm, state.requests);
    if (active?.tpm === null || active === undefined) state.tokens = undefined;
    else state.tokens ??= new TokenWindow();
  }

  private state(keyId: string): KeyState {
    let state = this.states.get(keyId);
    if (!state) {
      const period = this.refreshPeriod(this.now());
      state = { keyId, name: undefined, limits: undefined, requests: undefined, tokens: undefined, day: period.day, month: period.month, dayUsd: 0, monthUsd: 0, dayTokens: 0, dayRequests: 0, pending: undefined };
      this.states.set(keyId, state);
    }
    return state;
  }

  /** Moves a key's day and month totals to the current period (zero after midnight / the 1st). */
  private align(state: KeyState, now: number): void {
    const period = this.refreshPeriod(now);
    if (state.day !== period.day) {
      state.day = period.day;
      state.dayUsd = 0;
      state.dayTokens = 0;
      state.dayRequests = 0;
    }
    if (state.month !== period.month) {
      state.month = period.month;
      state.monthUsd = 0;
    }
  }

  /** One comparison per call; the calendar is worked out again only when the day changes. */
  private refreshPeriod(now: number): Period {
    if (now >= this.period.dayEnd || now < this.periodStart) {
      this.period = periodAt(now);
      this.periodStart = now;
    }
    return this.period;
  }
}
