// Limits per key, checked in memory on every request: requests per minute, tokens per minute, and USD
// budgets per day and per month. admit() and reserve() are synchronous, so under any number of concurrent
// requests the counts are exact (Node runs one at a time). admit() is the cheap check made before a body
// is read (a key already over a limit costs nothing more); once the body says what the call may cost,
// reserve() holds its worst case against the budgets, and release() replaces that with what it did cost.
// A budget is then overshot only by what a call's estimate missed, never by the calls in flight. Each
// provider call a request makes beyond its first (fan-out, retries, fallbacks) counts one more request
// per minute (countCall). Spend is kept for every key, limited or not (a budget set at noon counts the
// morning), and handed to the store in batches (takePending), never written per request. (Counters in
// Redis may take admit()'s decision later, with the first reserve(): see LimitTicket.confirm.)
import { localIsoTime, periodAt, type Period } from './calendar.js';
import { budgetSpent, keyLabel, LimitExceeded, rateOver, reservationRefused } from './limit-refusals.js';
import { NO_LIMITS, type KeyLimits, type KeyUsage, type SpendDelta, type SpentDay } from '../../core/limits.js';
import type { KeyLimitCounters } from './limit-counters.js';

export interface CallOutcome {
  /** Input + output tokens of the call (0 if unknown). */
  tokens: number;
  /** What the call cost; null when its model has no price (then it counts towards no budget). */
  costUsd: number | null;
}

export interface LimitTicket {
  /** Whether the key has a USD budget: only then is a call's worst-case cost worth working out. */
  readonly hasBudget: boolean;
  /**
   * Holds `worstCaseUsd` of every budget covering the key until release (a second reserve replaces the
   * amount: a route's next target); throws (or rejects with) LimitExceeded, holding nothing new, when it
   * would not fit. Synchronous for counters in this process; a promise when they are in Redis.
   */
  reserve(worstCaseUsd: number | null): void | Promise<void>;
  /**
   * A ticket admitted with `decideLater` (counters in Redis) is decided with its first reserve(), in the
   * same round trip; confirm() decides it without a reservation (a key without a budget, a model list).
   * Refuses as admit() would. Absent, or nothing to do, for a ticket already decided.
   */
  confirm?(): void | Promise<void>;
  /** One more provider call of this request (fan-out, a retry, a fallback): one more request this minute. */
  countCall(): void;
  /** The call is over: its reservation goes, its tokens and real cost are counted. */
  release(outcome: CallOutcome): void;
}

/**
 * What proxy.ts depends on (ProxyDependencies.limits). A ticket comes back at once from counters in
 * this process (no promise hop on the hot path) and as a promise from counters in Redis.
 */
export interface KeyLimiter {
  /**
   * `decideLater`: a caller that reserves (or confirms) before any provider call may take the ticket at
   * once and have Redis decide the admission together with the reservation: one round trip, not two.
   */
  admit(keyId: string | null, keyName?: string, options?: { decideLater?: boolean }): LimitTicket | Promise<LimitTicket>;
}

export { LimitExceeded, MAX_RATE_LIMIT_RETRY_AFTER_SECONDS } from './limit-refusals.js';

const WINDOW_SECONDS = 60;

/**
 * Counts per second over the last 60 seconds (a ring of 60 buckets with a running total), for requests
 * and for tokens alike: O(1) per call and a fixed few hundred bytes per key, whatever the limit. What
 * was counted in second t leaves the window when second t + 60 begins.
 */
class SecondsWindow {
  private readonly amounts = new Float64Array(WINDOW_SECONDS);
  private total = 0;
  /** The newest second seen; buckets older than 59 seconds before it are empty. */
  private second = -Infinity;

  add(now: number, amount: number): void {
    this.advance(now);
    this.amounts[this.second % WINDOW_SECONDS] += amount;
    this.total += amount;
  }

  sum(now: number): number {
    this.advance(now);
    return this.total;
  }

  /** When enough old seconds have left the window for the total to fall below `limit`. */
  belowAt(now: number, limit: number): number {
    this.advance(now);
    let total = this.total;
    for (let second = this.second - WINDOW_SECONDS + 1; second <= this.second; second++) {
      total -= this.amounts[((second % WINDOW_SECONDS) + WINDOW_SECONDS) % WINDOW_SECONDS];
      if (total < limit) return (second + WINDOW_SECONDS) * 1000;
    }
    return now;
  }

  /** Empties the buckets of the seconds passed since the last call (a clock that steps back stays put). */
  private advance(now: number): void {
    const second = Math.floor(now / 1000);
    if (second <= this.second) return;
    if (second - this.second >= WINDOW_SECONDS) {
      this.amounts.fill(0);
      this.total = 0;
    } else {
      for (let passed = this.second + 1; passed <= second; passed++) {
        const i = passed % WINDOW_SECONDS;
        this.total -= this.amounts[i];
        this.amounts[i] = 0;
      }
    }
    this.second = second;
  }
}

interface KeyState {
  keyId: string;
  name: string | undefined;
  limits: KeyLimits | undefined;
  requests: SecondsWindow | undefined;
  tokens: SecondsWindow | undefined;
  day: string;
  month: string;
  dayUsd: number;
  monthUsd: number;
  dayTokens: number;
  dayRequests: number;
  /** What calls in flight hold of the budgets (their worst-case costs), and how many calls hold some. */
  reservedUsd: number;
  reservations: number;
  /** This key's entry in the current batch of unwritten spend, while it is for the key's current day. */
  pending: SpendDelta | undefined;
}

class Ticket implements LimitTicket {
  private released = false;
  /** What this call holds of its key's budgets. */
  reservedUsd = 0;
  constructor(
    private readonly limiter: InMemoryKeyLimiter,
    private readonly state: KeyState,
  ) {}

  get hasBudget(): boolean {
    const limits = this.state.limits;
    return limits !== undefined && (limits.dailyUsd !== null || limits.monthlyUsd !== null);
  }

  reserve(worstCaseUsd: number | null): void {
    if (this.released) return;
    this.limiter.reserve(this.state, this, worstCaseUsd);
  }

  countCall(): void {
    if (!this.released) this.state.requests?.add(this.limiter.clock(), 1);
  }

  release(outcome: CallOutcome): void {
    if (this.released) return;
    this.released = true;
    this.limiter.unreserve(this.state, this);
    this.limiter.record(this.state, outcome);
  }
}

const NO_TICKET: LimitTicket = { hasBudget: false, reserve: () => undefined, countCall: () => undefined, release: () => undefined };

export interface LimiterOptions {
  /** The clock (ms since the epoch); tests pass a fake one. */
  now?: () => number;
}

export class InMemoryKeyLimiter implements KeyLimitCounters {
  readonly backend = 'memory' as const;
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
      state.requests?.add(now, 1);
    }
    return new Ticket(this, state);
  }

  clock(): number {
    return this.now();
  }

  /**
   * Holds a call's worst-case cost (replacing what the ticket held) when spent + held by others + this
   * stays within every budget of the key; else refuses, and the ticket keeps what it held. A call whose
   * cost is unknown (a model without a price) holds nothing: it counts towards no budget.
   */
  reserve(state: KeyState, ticket: Ticket, worstCaseUsd: number | null): void {
    const amount = worstCaseUsd !== null && Number.isFinite(worstCaseUsd) && worstCaseUsd > 0 ? worstCaseUsd : 0;
    if (amount === 0 && ticket.reservedUsd === 0) return;
    const limits = state.limits;
    const othersUsd = state.reservedUsd - ticket.reservedUsd;
    const othersCalls = state.reservations - (ticket.reservedUsd > 0 ? 1 : 0);
    if (limits !== undefined && amount > 0) {
      const now = this.now();
      this.align(state, now);
      const refusal = this.checkReservation(state, limits, now, amount, othersUsd, othersCalls);
      if (refusal) throw refusal;
    }
    state.reservedUsd = othersUsd + amount;
    state.reservations = othersCalls + (amount > 0 ? 1 : 0);
    ticket.reservedUsd = amount;
    // Sums of fractions drift: with nothing in flight, nothing is held.
    if (state.reservations === 0) state.reservedUsd = 0;
  }

  unreserve(state: KeyState, ticket: Ticket): void {
    if (ticket.reservedUsd === 0) return;
    state.reservedUsd -= ticket.reservedUsd;
    state.reservations -= 1;
    ticket.reservedUsd = 0;
    if (state.reservations <= 0) {
      state.reservations = 0;
      state.reservedUsd = 0;
    }
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
    state.requests?.add(at, 1);
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

  /** This month's stored spend added to the totals, and the last minute's calls of keys with a minute limit put back in their windows. */
  async startFrom(spent: () => Promise<SpentDay[]>, recentCalls: (keyId: string, since: number) => Promise<[number, number][]>, limits: ReadonlyMap<string, KeyLimits>): Promise<void> {
    const stored = await spent();
    const since = this.now() - 60_000;
    const limited = [...limits].filter(([, keyLimits]) => keyLimits.rpm !== null || keyLimits.tpm !== null).map(([keyId]) => keyId);
    const calls = await Promise.all(limited.map((keyId) => recentCalls(keyId, since)));
    const period = this.currentPeriod();
    for (const day of stored) {
      if (!day.day.startsWith(period.month)) continue;
      const today = day.day === period.day;
      this.seedSpend(day.keyId, { dayUsd: today ? day.costUsd : 0, monthUsd: day.costUsd, dayTokens: today ? day.tokens : 0, dayRequests: today ? day.requests : 0 });
    }
    limited.forEach((keyId, index) => {
      for (const [at, tokens] of calls[index]) this.seedCall(keyId, at, tokens);
    });
  }

  /** Nothing to let go: the counts live and die with this process. */
  close(): void {}

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
      requestsLastMinute: state.requests?.sum(now) ?? 0,
      tokensLastMinute: state.tokens?.sum(now) ?? 0,
      spentTodayUsd: state.dayUsd,
      spentThisMonthUsd: state.monthUsd,
      reservedUsd: state.reservedUsd,
      callsInFlight: state.reservations,
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
    const who = keyLabel(state.keyId, state.name);
    if (limits.dailyUsd !== null || limits.monthlyUsd !== null) {
      this.align(state, now);
      if (limits.dailyUsd !== null && state.dayUsd >= limits.dailyUsd) return budgetSpent(who, 'dailyUsd', limits.dailyUsd, state.dayUsd, this.period.dayEnd, now);
      if (limits.monthlyUsd !== null && state.monthUsd >= limits.monthlyUsd) return budgetSpent(who, 'monthlyUsd', limits.monthlyUsd, state.monthUsd, this.period.monthEnd, now);
    }
    if (state.requests && limits.rpm !== null) {
      const used = state.requests.sum(now);
      if (used >= limits.rpm) return rateOver(who, 'rpm', limits.rpm, used, state.requests.belowAt(now, limits.rpm), now);
    }
    if (state.tokens && limits.tpm !== null) {
      const used = state.tokens.sum(now);
      if (used >= limits.tpm) return rateOver(who, 'tpm', limits.tpm, used, state.tokens.belowAt(now, limits.tpm), now);
    }
    return undefined;
  }

  /** A reservation that would take a budget past its amount, counting what calls in flight hold. */
  private checkReservation(state: KeyState, limits: KeyLimits, now: number, amount: number, heldUsd: number, heldCalls: number): LimitExceeded | undefined {
    const who = keyLabel(state.keyId, state.name);
    if (limits.dailyUsd !== null && state.dayUsd + heldUsd + amount > limits.dailyUsd) {
      return reservationRefused(who, 'dailyUsd', { budget: limits.dailyUsd, spent: state.dayUsd, heldUsd, heldCalls, amount, at: this.period.dayEnd, now });
    }
    if (limits.monthlyUsd !== null && state.monthUsd + heldUsd + amount > limits.monthlyUsd) {
      return reservationRefused(who, 'monthlyUsd', { budget: limits.monthlyUsd, spent: state.monthUsd, heldUsd, heldCalls, amount, at: this.period.monthEnd, now });
    }
    return undefined;
  }

  private applyLimits(state: KeyState, limits: KeyLimits | undefined): void {
    const active = limits && (limits.rpm !== null || limits.tpm !== null || limits.dailyUsd !== null || limits.monthlyUsd !== null) ? { ...limits } : undefined;
    state.limits = active;
    // A changed limit keeps what is already in its window; a removed one forgets it.
    if (active?.rpm === null || active === undefined) state.requests = undefined;
    else state.requests ??= new SecondsWindow();
    if (active?.tpm === null || active === undefined) state.tokens = undefined;
    else state.tokens ??= new SecondsWindow();
  }

  private state(keyId: string): KeyState {
    let state = this.states.get(keyId);
    if (!state) {
      const period = this.refreshPeriod(this.now());
      state = {
        keyId,
        name: undefined,
        limits: undefined,
        requests: undefined,
        tokens: undefined,
        day: period.day,
        month: period.month,
        dayUsd: 0,
        monthUsd: 0,
        dayTokens: 0,
        dayRequests: 0,
        reservedUsd: 0,
        reservations: 0,
        pending: undefined,
      };
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
