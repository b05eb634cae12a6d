// Every check of the admin token (the admin API, /metrics) goes through one guard: wrong tokens are
// counted per client address, and an address with too many in a minute is refused outright, right
// token or not, until its block ends (429 with Retry-After). Loopback clients too: a local process can
// guess as well as a remote one. Each refusal becomes a refused row through the same path as the
// gateway's 401s (RefusalCoalescer: one row per address and window, with a count), never the token.
//
// Memory is bounded: at most `maxAddresses` addresses are tracked (IPv6 by /64, the block one host
// usually holds); when that many are fresh, further addresses share one bucket ("other addresses"),
// throttled together, so an attacker rotating addresses gains no more guesses than one address would.
import type { IncomingMessage } from 'node:http';
import { GatewayError } from '../core/errors.js';
import type { CallRecord } from '../core/call-record.js';
import { tokensMatch } from '../core/token-match.js';

export interface AdminTokenGuardOptions {
  /** Wrong tokens an address may send in one window; the next attempt is refused until the block ends. */
  maxFailures: number;
  windowMs: number;
  /** How long an address that used up its failures is refused, right token or not. */
  blockMs: number;
  maxAddresses: number;
  now: () => number;
}

export const DEFAULT_ADMIN_TOKEN_GUARD: AdminTokenGuardOptions = { maxFailures: 10, windowMs: 60_000, blockMs: 60_000, maxAddresses: 4096, now: Date.now };

/** The bucket of addresses past `maxAddresses`. */
const OTHER_ADDRESSES = 'other addresses';

/** A 429 for an address that sent too many wrong admin tokens; its answer carries Retry-After. */
export class AdminTokenThrottled extends GatewayError {
  constructor(readonly retryAfterSeconds: number) {
    super(429, 'rate_limit_error', `Too many wrong admin tokens from this address: every admin request from it is refused for ${retryAfterSeconds} s more`, null, 'too_many_wrong_tokens');
  }

  get headers(): Record<string, string> {
    return { 'retry-after': String(this.retryAfterSeconds) };
  }
}

interface Slot {
  failures: number;
  windowStart: number;
  blockedUntil: number;
}

/** The address a client is counted under: IPv4 as it is, IPv6 by its /64. */
export function clientAddressKey(address: string | undefined): string {
  if (!address) return 'unknown';
  const plain = address.toLowerCase().replace(/%.*$/, '');
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(plain);
  if (v4) return v4[1];
  if (!plain.includes(':')) return plain;
  const [head, tail] = plain.split('::');
  const front = head ? head.split(':') : [];
  const back = tail === undefined ? [] : tail ? tail.split(':') : [];
  const groups = tail === undefined ? front : [...front, ...Array<string>(Math.max(0, 8 - front.length - back.length)).fill('0'), ...back];
  return `${groups
    .slice(0, 4)
    .map((group) => (Number.parseInt(group, 16) || 0).toString(16))
    .join(':')}::/64`;
}

export class AdminTokenGuard {
  private readonly slots = new Map<string, Slot>();
  private readonly options: AdminTokenGuardOptions;
  private lastSweep = 0;

  constructor(
    private readonly token: string,
    /** The refused rows' way into the log (and metrics): the same as the gateway's 401s. */
    private readonly record: (entry: CallRecord) => void,
    options: Partial<AdminTokenGuardOptions> = {},
  ) {
    this.options = { ...DEFAULT_ADMIN_TOKEN_GUARD, ...options };
  }

  /** Addresses tracked now (bounded by maxAddresses). */
  get trackedAddresses(): number {
    return this.slots.size;
  }

  /**
   * True for the admin token, false when none was presented; a wrong one is counted and throws the 401,
   * and an address that is blocked gets the 429 whatever it sent. `where` is the log row's path.
   */
  verify(req: IncomingMessage, presented: string | undefined, where: '/admin/api' | '/metrics'): boolean {
    const now = this.options.now();
    const key = this.slotKey(clientAddressKey(req.socket.remoteAddress), now);
    const slot = this.slots.get(key);
    if (slot && slot.blockedUntil > now) {
      const refusal = new AdminTokenThrottled(Math.max(1, Math.ceil((slot.blockedUntil - now) / 1000)));
      this.refused(req, where, 429, `Admin request refused: too many wrong admin tokens from ${key}`);
      throw refusal;
    }
    if (!presented) return false;
    if (tokensMatch(presented, this.token)) return true;
    if (!slot || now - slot.windowStart >= this.options.windowMs) {
      this.slots.delete(key);
      this.slots.set(key, { failures: 1, windowStart: now, blockedUntil: 0 });
    } else if (++slot.failures >= this.options.maxFailures) {
      slot.blockedUntil = now + this.options.blockMs;
    }
    this.refused(req, where, 401, `Wrong admin token from ${key}`);
    throw new GatewayError(401, 'authentication_error', 'Missing or wrong admin token');
  }

  /** The slot an address is counted in: its own, or past the bound the shared one. */
  private slotKey(address: string, now: number): string {
    if (this.slots.has(address) || this.slots.size < this.options.maxAddresses) return address;
    // Full: forget addresses whose window and block are over (at most once a second), else share.
    if (now - this.lastSweep >= 1000) {
      this.lastSweep = now;
      for (const [key, slot] of this.slots) {
        if (slot.blockedUntil <= now && now - slot.windowStart >= this.options.windowMs) this.slots.delete(key);
      }
      if (this.slots.size < this.options.maxAddresses) return address;
    }
    return OTHER_ADDRESSES;
  }

  private refused(req: IncomingMessage, path: string, status: number, error: string): void {
    const userAgent = req.headers['user-agent'];
    this.record({
      createdAt: Date.now(),
      traceId: '',
      metadata: {},
      keyId: null,
      provider: null,
      model: null,
      // One path for every admin URL: a client choosing paths cannot open a log group per path.
      path,
      status,
      latencyMs: 0,
      ttfbMs: null,
      stream: false,
      error,
      attempts: 1,
      // Never the Authorization header: a wrong token is often the right one mistyped.
      requestHeaders: typeof userAgent === 'string' ? { 'user-agent': userAgent.slice(0, 256) } : {},
      requestBody: null,
      responseBody: null,
      unauthenticated: true,
    });
  }
}
