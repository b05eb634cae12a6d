// Limits decided in Redis, shared by every gateway instance that points at it: each admission, each
// reservation of a call's worst case and each settlement is one operation of a Lua script (limit-scripts.ts),
// atomic on the Redis server and on its clock, so N instances admit exactly what one would. The operations
// of one event-loop turn travel together (script-batch.ts). What this instance
// keeps is only what it must know without asking: which keys have which limits (loaded from the store),
// and the spend it recorded since the last batch was handed to the store (the durable copy, which a Redis
// flushed or restarted empty is seeded from).
//
// When Redis cannot be reached, a key with limits is refused with a 503 that names Redis (the setting
// teamLimitsWhenRedisDown: "open" lets it through uncounted instead); a key without limits never asks
// Redis before its call, so it is served as ever, and its finished calls reach Redis in one batch per
// UNLIMITED_BATCH_MS for the whole instance rather than one round trip each.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { GatewayError } from '../../../core/errors.js';
import { NO_LIMITS, type KeyLimits, type KeyUsage, type SpendDelta, type SpentDay } from '../../../core/limits.js';
import { localIsoTime, periodAt, type Period } from '../calendar.js';
import type { KeyLimitCounters } from '../limit-counters.js';
import { budgetSpent, keyLabel, LimitExceeded, rateOver, reservationRefused } from '../limit-refusals.js';
import type { CallOutcome, LimitTicket } from '../limiter.js';
import type { LimitOperation } from './limit-scripts.js';
import type { RedisHealth } from './redis-connection.js';
import { ScriptBatch } from './script-batch.js';

export type RedisDownPolicy = 'closed' | 'open';

export interface RedisLimiterOptions {
  redis: Redis;
  health: RedisHealth;
  /** Where Redis is (no password), for the 503's message. */
  where: string;
  /** What a key with limits gets while Redis is unreachable; read at each refusal (a setting). */
  whenDown?: () => RedisDownPolicy;
  /** Every Redis key of Gatehouse's limits starts with this. */
  prefix?: string;
  /** Tests pass a fake clock: it is then handed to the scripts instead of Redis's TIME. */
  now?: () => number;
  /** A reservation lapses this long after its instance last renewed it (an instance that died). */
  reservationTtlMs?: number;
}

const DEFAULT_PREFIX = 'gatehouse:limits:';
const DEFAULT_RESERVATION_TTL_MS = 60_000;
/**
 * How long the spend of keys without limits waits before it is sent to Redis (one script for all of them).
 * Only the Usage of a key's limits and a limit set later read it; a limit set flushes the batch at once.
 */
const UNLIMITED_BATCH_MS = 250;

/** Finished calls of one key (and day) with limits, gathered into one settlement until its batch goes. */
interface Settling {
  countTokens: boolean;
  /** Tickets that may hold a reservation. */
  tickets: string[];
  tokens: number;
  usd: number;
  requests: number;
}
/** Calls of one key (and day) asked to be decided in a turn, gathered into one decision until its batch goes. */
interface Deciding {
  /** The limits they are decided against (a change of limits starts another decision). */
  limits: KeyLimits;
  /** Each call's ticket and worst case (whole nano-USD), in the order asked. */
  calls: string[];
  /** One answer per call, in that order. */
  answers: Promise<string[][]>;
}
/** Most calls one decision takes (the script unpacks their holds onto Lua's stack). */
const CALLS_PER_DECISION = 500;
/** Most tickets one settlement lets go (the script unpacks them onto Lua's stack). */
const TICKETS_PER_SETTLEMENT = 500;

interface UnlimitedSpend {
  keyId: string;
  day: string;
  month: string;
  usd: number;
  tokens: number;
  requests: number;
}

/** The 503 a key with limits gets while Redis is unreachable. */
export class LimitsUnavailable extends GatewayError {
  constructor(who: string, where: string, cause: string) {
    super(
      503,
      'api_error',
      `${who} has limits, and limits are decided in Redis (${where}), which cannot be reached (${cause}). ` +
        'The call was refused rather than let through uncounted; it is admitted again as soon as Redis answers.',
      null,
      'limits_unavailable',
    );
  }
}

const text = (value: number | null) => (value === null ? '' : String(value));
/** A reservation as the scripts hold it: whole nano-dollars, so that adding and taking back is exact. */
const nanos = (usd: number) => String(Math.round(usd * 1e9));
const positive = (value: number | null) => (value !== null && Number.isFinite(value) && value > 0 ? value : 0);
const hasBudget = (limits: KeyLimits | undefined) => limits !== undefined && (limits.dailyUsd !== null || limits.monthlyUsd !== null);

const NO_TICKET: LimitTicket = { hasBudget: false, reserve: () => undefined, countCall: () => undefined, release: () => undefined };

class RedisTicket implements LimitTicket {
  private released = false;
  /** Whether Redis holds a reservation of this ticket (so the instance renews it while the call runs). */
  holding = false;
  /** Whether Redis was ever asked to hold one (it may, though the answer has not come): settled with it. */
  askedToHold = false;
  /** A decision or reservation of this ticket is on its way to Redis: its settlement must go after it. */
  asking = false;
  readonly id: string;

  constructor(
    private readonly limiter: RedisKeyLimiter,
    readonly keyId: string,
    readonly name: string | undefined,
    /** The key's limits when it was admitted; undefined when it has none (nothing is asked of Redis before the call). */
    readonly limits: KeyLimits | undefined,
    /** Admitted uncounted while Redis was down (teamLimitsWhenRedisDown: "open"): holds nothing. */
    public uncounted = false,
    /** Admission not decided yet: the first reserve() or confirm() decides it, in the same operation. */
    public undecided = false,
  ) {
    this.id = limiter.ticketId();
  }

  get isReleased(): boolean {
    return this.released;
  }

  get hasBudget(): boolean {
    return !this.uncounted && hasBudget(this.limits);
  }

  confirm(): void | Promise<void> {
    if (this.released || !this.undecided) return;
    return this.limiter.decide(this, 0);
  }

  reserve(worstCaseUsd: number | null): void | Promise<void> {
    if (this.released) return;
    if (this.undecided) return this.limiter.decide(this, this.hasBudget ? positive(worstCaseUsd) : 0);
    if (!this.hasBudget) return;
    const amount = positive(worstCaseUsd);
    if (amount === 0 && !this.holding) return;
    return this.limiter.reserve(this, amount);
  }

  countCall(): void {
    if (!this.released && !this.uncounted && this.limits?.rpm != null) this.limiter.countCall(this.keyId);
  }

  release(outcome: CallOutcome): void {
    if (this.released) return;
    this.released = true;
    this.limiter.settle(this, outcome);
  }
}

export class RedisKeyLimiter implements KeyLimitCounters {
  readonly backend = 'redis' as const;
  private readonly batch: ScriptBatch;
  private readonly health: RedisHealth;
  private readonly where: string;
  private readonly whenDown: () => RedisDownPolicy;
  private readonly prefix: string;
  private readonly fakeNow: (() => number) | undefined;
  private readonly reservationTtlMs: number;
  private readonly limits = new Map<string, KeyLimits>();
  private readonly names = new Map<string, string>();
  /** Spend recorded since the store last took it, per key and local day. */
  private pending = new Map<string, SpendDelta>();
  /** Tickets whose reservations Redis holds, renewed while their calls run. */
  private readonly holding = new Set<RedisTicket>();
  private readonly renewTimer: NodeJS.Timeout;
  private readonly instance = randomBytes(6).toString('hex');
  private tickets = 0;
  private spentSource: () => Promise<SpentDay[]> = async () => [];
  /** Finished calls of keys without limits, not yet sent to Redis (per key and day). */
  private unlimited = new Map<string, UnlimitedSpend>();
  private unlimitedTimer: NodeJS.Timeout | undefined;
  /** Finished calls of keys with limits, not yet sent to Redis (per key, day and whether tokens count). */
  private settling = new Map<string, Settling>();
  /** Calls of keys with limits to be decided in the next batch (per key, day and clock). */
  private deciding = new Map<string, Deciding>();
  private seeding: Promise<void> | undefined;
  private cachedPeriod: Period = periodAt(0);
  private cachedPeriodSeen = 0;

  constructor(options: RedisLimiterOptions) {
    this.batch = new ScriptBatch(options.redis);
    this.health = options.health;
    this.where = options.where;
    this.whenDown = options.whenDown ?? (() => 'closed');
    this.prefix = options.prefix ?? DEFAULT_PREFIX;
    this.fakeNow = options.now;
    this.reservationTtlMs = options.reservationTtlMs ?? DEFAULT_RESERVATION_TTL_MS;
    this.renewTimer = setInterval(() => this.renew(), Math.max(1_000, Math.floor(this.reservationTtlMs / 3)));
    this.renewTimer.unref();
  }

  ticketId(): string {
    return `${this.instance}.${++this.tickets}`;
  }

  admit(keyId: string | null, keyName?: string, options?: { decideLater?: boolean }): LimitTicket | Promise<LimitTicket> {
    if (keyId === null) return NO_TICKET;
    const limits = this.limits.get(keyId);
    const name = keyName ?? this.names.get(keyId);
    // No limits: nothing to decide, so nothing waits on Redis (and a Redis outage does not touch this key).
    if (limits === undefined) return new RedisTicket(this, keyId, name, undefined);
    if (options?.decideLater) return new RedisTicket(this, keyId, name, limits, false, true);
    return this.decided(keyId, name, async () => {
      const period = this.period();
      const answer = await this.seeded(() => this.run('admit', this.keys(keyId, 'req', 'tok', `day:${period.day}`, `month:${period.month}`).concat(this.seededKey()), [
        this.clockArg(),
        text(limits.rpm),
        text(limits.tpm),
        text(limits.dailyUsd),
        text(limits.monthlyUsd),
      ]));
      const refusal = this.admitRefusal(keyId, name, limits, period, answer);
      if (refusal) throw refusal;
      return new RedisTicket(this, keyId, name, limits);
    }, () => new RedisTicket(this, keyId, name, limits, true));
  }

  /** Holds a ticket's worst case in Redis (replacing what it held), or refuses with the budget it would pass. */
  reserve(ticket: RedisTicket, amount: number): Promise<void> {
    const limits = ticket.limits!;
    if (amount > 0) ticket.askedToHold = true;
    ticket.asking = true;
    return this.decided(ticket.keyId, ticket.name, async () => {
      const period = this.period();
      const answer = await this.seeded(() => this.run('reserve', this.keys(ticket.keyId, `day:${period.day}`, `month:${period.month}`, 'held', 'heldexp').concat(this.seededKey()), [
        this.clockArg(),
        ticket.id,
        nanos(amount),
        text(limits.dailyUsd),
        text(limits.monthlyUsd),
        String(this.reservationTtlMs),
      ]));
      ticket.asking = false;
      if (answer[0] === 'ok') {
        ticket.holding = amount > 0;
        if (ticket.holding && !ticket.isReleased) this.holding.add(ticket);
        else this.holding.delete(ticket);
        return;
      }
      throw this.reservationRefusal(ticket, amount, period, answer);
    }, () => undefined);
  }

  /** The 429 of a worst case that does not fit: answer is {'dailyUsd'|'monthlyUsd', spent, heldUsd, heldCalls, now}. */
  private reservationRefusal(ticket: RedisTicket, amount: number, period: Period, answer: string[]): LimitExceeded {
    const limits = ticket.limits!;
    const limit = answer[0] as 'dailyUsd' | 'monthlyUsd';
    const [, spent, heldUsd, heldCalls, now] = answer.map(Number);
    const budget = limit === 'dailyUsd' ? limits.dailyUsd! : limits.monthlyUsd!;
    const at = limit === 'dailyUsd' ? period.dayEnd : period.monthEnd;
    return reservationRefused(keyLabel(ticket.keyId, ticket.name), limit, { budget, spent, heldUsd, heldCalls, amount, at, now: this.fakeNow ? now : this.localNow() });
  }

  /**
   * Decides an undecided ticket's admission and holds its worst case (`amount`, 0 for none) in one
   * operation: refused as admit() or reserve() refuses, 503 (or uncounted) while Redis is unreachable.
   */
  decide(ticket: RedisTicket, amount: number): Promise<void> {
    const limits = ticket.limits!;
    if (amount > 0) ticket.askedToHold = true;
    ticket.asking = true;
    return this.decided(ticket.keyId, ticket.name, async () => {
      const period = this.period();
      const answer = await this.decision(ticket, limits, period, amount);
      ticket.asking = false;
      if (answer[0] === 'held') throw this.reservationRefusal(ticket, amount, period, answer.slice(1));
      const refusal = this.admitRefusal(ticket.keyId, ticket.name, limits, period, answer);
      if (refusal) throw refusal;
      ticket.undecided = false;
      ticket.holding = amount > 0;
      // A call that ended while it was being decided was settled already (after this, in Redis's order).
      if (ticket.holding && !ticket.isReleased) this.holding.add(ticket);
    }, () => {
      ticket.undecided = false;
      ticket.uncounted = true;
    });
  }

  /**
   * A ticket's answer from the decision of its key in the next batch: the calls of a key decided in the
   * same turn join one operation (DECIDE), in the place of the first, until the batch goes.
   */
  private decision(ticket: RedisTicket, limits: KeyLimits, period: Period, amount: number): Promise<string[]> {
    const clock = this.clockArg();
    const id = `${ticket.keyId}\n${period.day}\n${clock}`;
    let deciding = this.deciding.get(id);
    if (deciding === undefined || deciding.limits !== limits || deciding.calls.length >= 2 * CALLS_PER_DECISION) {
      const gathering: Deciding = { limits, calls: [], answers: undefined! };
      const keys = this.keys(ticket.keyId, 'req', 'tok', `day:${period.day}`, `month:${period.month}`, 'held', 'heldexp').concat(this.seededKey());
      const head = [clock, text(limits.rpm), text(limits.tpm), text(limits.dailyUsd), text(limits.monthlyUsd), String(this.reservationTtlMs)];
      gathering.answers = this.seeded(
        () =>
          this.batch.run('decide', keys, () => {
            if (this.deciding.get(id) === gathering) this.deciding.delete(id);
            return head.concat(gathering.calls);
          }) as Promise<string[][]>,
      );
      this.deciding.set(id, gathering);
      deciding = gathering;
    }
    const index = deciding.calls.length / 2;
    deciding.calls.push(ticket.id, nanos(amount));
    return deciding.answers.then((answers) => answers[index]);
  }

  countCall(keyId: string): void {
    this.run('countCall', this.keys(keyId, 'req'), [this.clockArg()]).catch((error: unknown) => this.health.failed(error));
  }

  /** A finished call: counted for the store at once, and in Redis (its reservation let go) without waiting. */
  settle(ticket: RedisTicket, outcome: CallOutcome): void {
    const tokens = Number.isFinite(outcome.tokens) && outcome.tokens > 0 ? Math.round(outcome.tokens) : 0;
    const cost = positive(outcome.costUsd);
    const period = this.period();
    this.addPending({ keyId: ticket.keyId, day: period.day, costUsd: cost, tokens, requests: 1 });
    this.holding.delete(ticket);
    // No limits then nor now, nothing held: nothing to let go, only spend to add, which can wait for the batch.
    if (ticket.limits === undefined && !ticket.holding && !this.limits.has(ticket.keyId)) {
      this.addUnlimited(ticket.keyId, period, cost, tokens);
      return;
    }
    const countTokens = ticket.limits?.tpm != null && !ticket.uncounted;
    const keys = this.keys(ticket.keyId, 'tok', `day:${period.day}`, `month:${period.month}`, 'held', 'heldexp');
    // Its hold still being asked for: settled on its own, after it in the queue, so nothing stays held.
    if (ticket.asking) {
      this.sendSettlement(keys, { countTokens, tickets: [ticket.id], tokens, usd: cost, requests: 1 });
      return;
    }
    // Calls of the same key that end before the batch goes join this one settlement, in its place in the queue.
    const id = `${ticket.keyId}\n${period.day}\n${countTokens}`;
    let settling = this.settling.get(id);
    if (settling === undefined || settling.tickets.length >= TICKETS_PER_SETTLEMENT) {
      settling = { countTokens, tickets: [], tokens: 0, usd: 0, requests: 0 };
      this.settling.set(id, settling);
      const gathering = settling;
      this.sendSettlement(keys, gathering, () => {
        if (this.settling.get(id) === gathering) this.settling.delete(id);
      });
    }
    if (ticket.askedToHold) settling.tickets.push(ticket.id);
    settling.tokens += tokens;
    settling.usd += cost;
    settling.requests += 1;
  }

  /** Queues a settlement; its figures are read as its batch goes. */
  private sendSettlement(keys: string[], settling: Settling, closed: () => void = () => undefined): void {
    // A fake clock (tests) as it was when the first of the calls ended.
    const clock = this.clockArg();
    this.batch.runLater('settle', keys, () => {
      closed();
      return [clock, settling.countTokens ? '1' : '0', String(settling.tokens), String(settling.usd), String(settling.requests), ...settling.tickets];
    }).catch((error: unknown) => {
      // The durable copy has it already; Redis lets the reservations lapse on their own.
      this.health.failed(error);
    });
  }

  // ---- kept in step by the limits service ----

  replaceLimits(limits: ReadonlyMap<string, KeyLimits>, names: ReadonlyMap<string, string> = new Map()): void {
    this.limits.clear();
    for (const [keyId, keyLimits] of limits) this.setLimits(keyId, keyLimits);
    for (const [keyId, name] of names) this.names.set(keyId, name);
  }

  setLimits(keyId: string, limits: KeyLimits | null, name?: string): void {
    if (name !== undefined) this.names.set(keyId, name);
    const active = limits && (limits.rpm !== null || limits.tpm !== null || limits.dailyUsd !== null || limits.monthlyUsd !== null);
    if (active) {
      // Its admissions read the counters from now on: what its calls spent without limits goes first.
      if (!this.limits.has(keyId) && this.unlimited.size > 0) this.sendUnlimited();
      this.limits.set(keyId, { ...limits });
    } else this.limits.delete(keyId);
  }

  takePending(): SpendDelta[] {
    if (this.pending.size === 0) return [];
    const deltas = [...this.pending.values()];
    this.pending = new Map();
    return deltas;
  }

  restorePending(deltas: readonly SpendDelta[]): void {
    for (const delta of deltas) this.addPending(delta);
  }

  currentPeriod(): Period {
    return this.period();
  }

  /** Seeds an empty Redis from the stored spend now, in the background (a Redis still down is seeded when it answers). */
  async startFrom(spent: () => Promise<SpentDay[]>): Promise<void> {
    this.spentSource = spent;
    this.seed().catch((error: unknown) => this.health.failed(error));
  }

  async usage(keyId: string): Promise<KeyUsage> {
    const limits = this.limits.get(keyId);
    const name = this.names.get(keyId);
    const period = this.period();
    const answer = await this.decided(keyId, name, () =>
      this.seeded(() => this.run('read', this.keys(keyId, 'req', 'tok', `day:${period.day}`, `month:${period.month}`, 'held', 'heldexp').concat(this.seededKey()), [
        this.clockArg(),
        text(limits?.rpm ?? null),
        text(limits?.tpm ?? null),
      ])), () => { throw new LimitsUnavailable(keyLabel(keyId, name), this.where, this.health.lastError ?? 'not connected'); });
    const [now, requests, rpmAt, tokens, tpmAt, dayUsd, dayTokens, dayRequests, monthUsd, heldUsd, heldCalls] = answer.map(Number);
    const shown = this.fakeNow ? now : this.localNow();
    const who = keyLabel(keyId, name);
    let refusal: LimitExceeded | undefined;
    if (limits?.dailyUsd != null && dayUsd >= limits.dailyUsd) refusal = budgetSpent(who, 'dailyUsd', limits.dailyUsd, dayUsd, period.dayEnd, shown);
    else if (limits?.monthlyUsd != null && monthUsd >= limits.monthlyUsd) refusal = budgetSpent(who, 'monthlyUsd', limits.monthlyUsd, monthUsd, period.monthEnd, shown);
    else if (limits?.rpm != null && requests >= limits.rpm) refusal = rateOver(who, 'rpm', limits.rpm, requests, rpmAt, shown);
    else if (limits?.tpm != null && tokens >= limits.tpm) refusal = rateOver(who, 'tpm', limits.tpm, tokens, tpmAt, shown);
    return {
      keyId,
      limits: { ...(limits ?? NO_LIMITS) },
      requestsLastMinute: limits?.rpm != null ? requests : 0,
      tokensLastMinute: limits?.tpm != null ? tokens : 0,
      spentTodayUsd: dayUsd,
      spentThisMonthUsd: monthUsd,
      reservedUsd: heldUsd,
      callsInFlight: heldCalls,
      requestsToday: dayRequests,
      tokensToday: dayTokens,
      dayResetsAt: localIsoTime(period.dayEnd),
      monthResetsAt: localIsoTime(period.monthEnd),
      blocked: refusal
        ? { limit: refusal.limit, code: String(refusal.code), message: refusal.message, retryAfterSeconds: refusal.retryAfterSeconds, resetsAt: localIsoTime(refusal.resetsAt) }
        : null,
    };
  }

  close(): void {
    clearInterval(this.renewTimer);
    this.sendUnlimited();
    this.batch.flush();
  }

  // ---- internals ----

  private admitRefusal(keyId: string, name: string | undefined, limits: KeyLimits, period: Period, answer: string[]): LimitExceeded | undefined {
    if (answer[0] === 'ok') return undefined;
    const who = keyLabel(keyId, name);
    const figures = answer.slice(1).map(Number);
    // A fake clock (tests) is the scripts' clock too; otherwise the reset times are shown against this machine's.
    const now = this.fakeNow ? figures[figures.length - 1] : this.localNow();
    switch (answer[0]) {
      case 'dailyUsd':
        return budgetSpent(who, 'dailyUsd', limits.dailyUsd!, figures[0], period.dayEnd, now);
      case 'monthlyUsd':
        return budgetSpent(who, 'monthlyUsd', limits.monthlyUsd!, figures[0], period.monthEnd, now);
      case 'rpm':
        return rateOver(who, 'rpm', limits.rpm!, figures[0], figures[1], figures[2]);
      case 'tpm':
        return rateOver(who, 'tpm', limits.tpm!, figures[0], figures[1], figures[2]);
      default:
        throw new Error(`Unexpected answer from the limits script: ${answer.join(' ')}`);
    }
  }

  /**
   * Runs a decision; when Redis fails (unreachable, timed out) the key is refused with a 503 naming Redis,
   * or with teamLimitsWhenRedisDown "open", `whenDown` decides instead. A limit's own refusal passes through.
   */
  private async decided<T>(keyId: string, name: string | undefined, decide: () => Promise<T>, whenDown: () => T): Promise<T> {
    try {
      return await decide();
    } catch (error) {
      if (error instanceof GatewayError) throw error;
      this.health.failed(error);
      if (this.whenDown() === 'open') return whenDown();
      throw new LimitsUnavailable(keyLabel(keyId, name), this.where, error instanceof Error ? error.message : String(error));
    }
  }

  /** Runs a script that finds Redis unseeded (empty or flushed) once more after seeding it. */
  private async seeded<Answer extends unknown[]>(run: () => Promise<Answer>): Promise<Answer> {
    const answer = await run();
    if (answer[0] !== 'unseeded') return answer;
    await this.seed();
    const again = await run();
    if (again[0] === 'unseeded') throw new Error('Redis lost the limits state again while it was being restored');
    return again;
  }

  /**
   * Puts the stored spend of this month (and what this instance has not handed to the store yet) into
   * Redis, unless another instance did so first. One at a time per instance.
   */
  private seed(): Promise<void> {
    this.seeding ??= (async () => {
      const period = this.period();
      const today = new Map<string, { usd: number; tokens: number; requests: number }>();
      const month = new Map<string, number>();
      const add = (keyId: string, day: string, usd: number, tokens: number, requests: number) => {
        if (!day.startsWith(period.month)) return;
        month.set(keyId, (month.get(keyId) ?? 0) + usd);
        if (day !== period.day) return;
        const sum = today.get(keyId) ?? { usd: 0, tokens: 0, requests: 0 };
        sum.usd += usd;
        sum.tokens += tokens;
        sum.requests += requests;
        today.set(keyId, sum);
      };
      for (const spent of await this.spentSource()) add(spent.keyId, spent.day, spent.costUsd, spent.tokens, spent.requests);
      for (const delta of this.pending.values()) add(delta.keyId, delta.day, delta.costUsd, delta.tokens, delta.requests);
      const keys = [this.seededKey()];
      const args = [String(today.size)];
      for (const [keyId, sum] of today) {
        keys.push(this.key(keyId, `day:${period.day}`));
        args.push(String(sum.usd), String(Math.round(sum.tokens)), String(sum.requests));
      }
      for (const [keyId, usd] of month) {
        keys.push(this.key(keyId, `month:${period.month}`));
        args.push(String(usd));
      }
      await this.run('seed', keys, args);
    })().finally(() => {
      this.seeding = undefined;
    });
    return this.seeding;
  }

  /** Keeps the reservations of this instance's running calls from lapsing. */
  private renew(): void {
    if (this.holding.size === 0) return;
    const tickets = [...this.holding];
    this.run('renew', tickets.map((ticket) => this.key(ticket.keyId, 'heldexp')), [this.clockArg(), String(this.reservationTtlMs), ...tickets.map((ticket) => ticket.id)]).catch(
      (error: unknown) => this.health.failed(error),
    );
  }

  private addUnlimited(keyId: string, period: Period, usd: number, tokens: number): void {
    const id = `${keyId}\n${period.day}`;
    const sum = this.unlimited.get(id);
    if (sum === undefined) this.unlimited.set(id, { keyId, day: period.day, month: period.month, usd, tokens, requests: 1 });
    else {
      sum.usd += usd;
      sum.tokens += tokens;
      sum.requests += 1;
    }
    if (this.unlimitedTimer) return;
    this.unlimitedTimer = setTimeout(() => this.sendUnlimited(), UNLIMITED_BATCH_MS);
    this.unlimitedTimer.unref();
  }

  /** One script for every key without limits that finished calls since the last batch. */
  private sendUnlimited(): void {
    if (this.unlimitedTimer) clearTimeout(this.unlimitedTimer);
    this.unlimitedTimer = undefined;
    if (this.unlimited.size === 0) return;
    const batch = [...this.unlimited.values()];
    this.unlimited = new Map();
    const keys = [this.seededKey()];
    const args: string[] = [];
    for (const spend of batch) {
      keys.push(this.key(spend.keyId, `day:${spend.day}`), this.key(spend.keyId, `month:${spend.month}`));
      args.push(String(spend.usd), String(Math.round(spend.tokens)), String(spend.requests));
    }
    // The durable copy has it already (pending); a Redis that is away is seeded from the store when it is back.
    this.run('settleMany', keys, args).catch((error: unknown) => this.health.failed(error));
  }

  private addPending(delta: SpendDelta): void {
    const id = `${delta.keyId}\n${delta.day}`;
    const sum = this.pending.get(id);
    if (sum === undefined) this.pending.set(id, { ...delta });
    else {
      sum.costUsd += delta.costUsd;
      sum.tokens += delta.tokens;
      sum.requests += delta.requests;
    }
  }

  private async run(operation: LimitOperation, keys: string[], args: string[]): Promise<string[]> {
    return (await this.batch.run(operation, keys, args)) as string[];
  }

  private key(keyId: string, part: string): string {
    return `${this.prefix}${keyId}:${part}`;
  }

  private keys(keyId: string, ...parts: string[]): string[] {
    return parts.map((part) => this.key(keyId, part));
  }

  private seededKey(): string {
    return `${this.prefix}seeded`;
  }

  private clockArg(): string {
    return this.fakeNow ? String(this.fakeNow()) : '';
  }

  private localNow(): number {
    return Date.now();
  }

  /** The local calendar day and month the spend is filed under (the instance's time zone, as on the desktop). */
  private period(): Period {
    const now = this.fakeNow ? this.fakeNow() : Date.now();
    // One comparison per call; the calendar is worked out again only when the day changes.
    if (now >= this.cachedPeriod.dayEnd || now < this.cachedPeriodSeen) {
      this.cachedPeriod = periodAt(now);
      this.cachedPeriodSeen = now;
    }
    return this.cachedPeriod;
  }
}
