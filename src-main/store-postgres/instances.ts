// Each running instance has a row with a heartbeat (PostgreSQL's clock, so machines' clocks need not agree):
// who else is serving. Without Redis, limits are counted per instance, so a second live instance is refused.
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { PgBridge } from './pg-bridge.js';

export const HEARTBEAT_INTERVAL_MS = 5_000;
/** An instance whose heartbeat is older than this is taken for gone (killed, or cut off). */
export const HEARTBEAT_STALE_MS = 15_000;
const NOW_MS = '(extract(epoch from clock_timestamp()) * 1000)::bigint';
/** Registration is one at a time, so two instances starting at once without Redis cannot both pass the check. */
const REGISTRATION_LOCK = 0x67617465;

export class InstanceAlreadyRunningError extends Error {
  override name = 'InstanceAlreadyRunningError';
}

export interface LiveInstance {
  id: string;
  host: string;
  pid: number;
  sharedLimits: boolean;
}

/** What an instance's name may be: a label for the Logs page, one line, at most 100 characters. */
export const MAX_INSTANCE_NAME_CHARS = 100;

/** The name an instance runs under: the one given (trimmed), else this machine's host name; an unusable name throws. */
export function instanceNameOf(given: string | undefined): string {
  const name = (given ?? '').trim() || hostname().trim() || 'host';
  if (name.length > MAX_INSTANCE_NAME_CHARS || /[\u0000-\u001f\u007f]/.test(name)) {
    throw new Error(`The instance name (--instance-name, GATEHOUSE_INSTANCE_NAME) must be one line of at most ${MAX_INSTANCE_NAME_CHARS} characters`);
  }
  return name;
}

export function newInstanceId(): string {
  return `${hostname().replace(/[^A-Za-z0-9.-]/g, '').slice(0, 40) || 'host'}-${process.pid}-${randomBytes(3).toString('hex')}`;
}

export class InstanceRegistration {
  private timer: NodeJS.Timeout | null = null;

  private constructor(
    private readonly bridge: PgBridge,
    readonly id: string,
    private readonly sharedLimits: boolean,
  ) {}

  /**
   * Registers this instance. Without shared limits (no Redis) it refuses to start while another live
   * instance is registered, and any instance refuses to join while a live one counts limits on its own.
   */
  static async register(bridge: PgBridge, options: { id: string; name: string; sharedLimits: boolean }): Promise<InstanceRegistration> {
    const [, , live] = await bridge.run(
      [
        { sql: 'SELECT pg_advisory_xact_lock($1)', params: [REGISTRATION_LOCK] },
        { sql: `DELETE FROM instances WHERE heartbeat_at < ${NOW_MS} - $1`, params: [HEARTBEAT_STALE_MS] },
        { sql: 'SELECT id, host, pid, shared_limits AS "sharedLimits" FROM instances WHERE id <> $1', params: [options.id] },
        {
          sql: `INSERT INTO instances (id, host, pid, started_at, heartbeat_at, shared_limits)
                SELECT $1, $2, $3, ${NOW_MS}, ${NOW_MS}, $4
                WHERE $4 AND NOT EXISTS (SELECT 1 FROM instances WHERE NOT shared_limits AND id <> $1)
                   OR NOT $4 AND NOT EXISTS (SELECT 1 FROM instances WHERE id <> $1)`,
          params: [options.id, hostname(), process.pid, options.sharedLimits],
        },
        // Only once registered: a refused instance served nothing, so its name names no row.
        {
          sql: `INSERT INTO instance_names (instance_id, instance_name) SELECT $1, $2 WHERE EXISTS (SELECT 1 FROM instances WHERE id = $1)
                ON CONFLICT (instance_id) DO UPDATE SET instance_name = EXCLUDED.instance_name`,
          params: [options.id, options.name],
        },
      ],
      { transaction: true },
    );
    const others = live as unknown as LiveInstance[];
    const blocking = options.sharedLimits ? others.filter((other) => !other.sharedLimits) : others;
    if (blocking.length) {
      const other = blocking[0];
      throw new InstanceAlreadyRunningError(
        `Another Gatehouse instance (${other.id} on ${other.host}, pid ${other.pid}) is serving from this database ` +
          `${options.sharedLimits ? 'without Redis' : ''}. Limits across instances need Redis: start every instance with --redis-url ` +
          '(GATEHOUSE_REDIS_URL), or stop the other one. A single instance may run on PostgreSQL alone.',
      );
    }
    const registration = new InstanceRegistration(bridge, options.id, options.sharedLimits);
    registration.timer = setInterval(() => registration.beat(), HEARTBEAT_INTERVAL_MS);
    registration.timer.unref();
    return registration;
  }

  /** Removes this instance's row (on a clean stop); a killed instance's row goes stale instead. */
  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    try {
      await this.bridge.runForAdmin([{ sql: 'DELETE FROM instances WHERE id = $1', params: [this.id] }]);
    } catch {
      // PostgreSQL away: the row goes stale and the next start clears it.
    }
  }

  private beat(): void {
    // Back after an outage long enough to have been cleared: the row is put back.
    this.bridge
      .query(
        `INSERT INTO instances (id, host, pid, started_at, heartbeat_at, shared_limits) VALUES ($1, $2, $3, ${NOW_MS}, ${NOW_MS}, $4)
         ON CONFLICT (id) DO UPDATE SET heartbeat_at = ${NOW_MS}`,
        [this.id, hostname(), process.pid, this.sharedLimits],
      )
      .catch(() => undefined);
  }
}
