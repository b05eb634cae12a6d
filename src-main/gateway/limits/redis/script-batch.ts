// The limit operations an instance asks of Redis, sent as one batch per turn of the event loop: every
// admission, reservation and settlement queued while the loop handled its I/O goes in one EVALSHA of
// the BATCH script after it (setImmediate), and each caller gets its own operation's answer. One call at
// a time costs what it did (one round trip, a few µs later); 32 at once cost a few round trips instead of
// ~100, and far less of the serving thread and of Redis's one core. An operation nothing waits for (a
// finished call's settlement) does not make a batch of its own: it rides with the next one, or goes after
// LATER_MS when none comes. An operation's arguments may be worked out only as the batch goes, so that
// calls meanwhile join it (one decision for the calls of a key asked in a turn, one settlement for those
// that finished). The queue keeps its order, so every
// operation runs after those queued before it.
// One batch is in flight at a time: what is queued meanwhile goes as one batch when it is answered, so the
// busier the instance, the larger its batches (one alone still goes at once).
import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { BATCH, type LimitOperation } from './limit-scripts.js';

const BATCH_SHA = createHash('sha1').update(BATCH).digest('hex');

interface Queued {
  operation: LimitOperation;
  keys: string[];
  args: string[] | (() => string[]);
  resolve(answer: unknown): void;
  reject(error: Error): void;
}

/** Longest an operation nothing waits for stays queued when no other operation comes to take it along. */
export const LATER_MS = 10;

/** An operation's own failure inside a batch that ran (the others' answers stand). */
export class LimitOperationFailed extends Error {}

export class ScriptBatch {
  private queue: Queued[] = [];
  private scheduled = false;
  private laterTimer: NodeJS.Timeout | undefined;
  private inFlight = false;
  /** Something was queued while a batch was in flight: it goes when that batch is answered. */
  private sendWhenAnswered = false;

  constructor(private readonly redis: Redis) {}

  /**
   * Runs one operation in the batch sent after this turn; its answer as the operation's script returns it.
   * `args` may be asked for only as the batch goes (operations that gather more callers until then).
   */
  run(operation: LimitOperation, keys: string[], args: string[] | (() => string[])): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queue.push({ operation, keys, args, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => this.send());
    });
  }

  /** Runs one operation nothing waits for: with the next batch, or within LATER_MS (`args` asked for as it goes). */
  runLater(operation: LimitOperation, keys: string[], args: string[] | (() => string[])): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queue.push({ operation, keys, args, resolve, reject });
      if (this.scheduled || this.laterTimer || this.sendWhenAnswered) return;
      this.laterTimer = setTimeout(() => this.send(), LATER_MS);
    });
  }

  /** Sends what is queued now (an instance that stops). */
  flush(): void {
    this.send();
  }

  private send(): void {
    this.scheduled = false;
    clearTimeout(this.laterTimer);
    this.laterTimer = undefined;
    if (this.queue.length === 0) return;
    if (this.inFlight) {
      this.sendWhenAnswered = true;
      return;
    }
    this.inFlight = true;
    const batch = this.queue;
    this.queue = [];
    const failAll = (error: unknown) => {
      const failure = error instanceof Error ? error : new Error(String(error));
      for (const queued of batch) queued.reject(failure);
    };
    this.evaluate(JSON.stringify(batch.map((queued) => [queued.operation, queued.keys, typeof queued.args === 'function' ? queued.args() : queued.args]))).then(
      (answers) => {
        let list: unknown[];
        try {
          list = JSON.parse(answers) as unknown[];
        } catch {
          failAll(new Error(`Redis answered the limits batch with something that is not its JSON: ${String(answers).slice(0, 80)}`));
          return;
        }
        batch.forEach((queued, index) => {
          const answer = list[index];
          if (Array.isArray(answer) && answer[0] === 'failed') queued.reject(new LimitOperationFailed(`Redis could not run the ${queued.operation} operation: ${String(answer[1])}`));
          else queued.resolve(answer);
        });
      },
      failAll,
    ).finally(() => {
      this.inFlight = false;
      if (!this.sendWhenAnswered) return;
      this.sendWhenAnswered = false;
      this.send();
    });
  }

  /** EVALSHA, and EVAL once when Redis does not have the script (a restarted or flushed Redis). */
  private async evaluate(operations: string): Promise<string> {
    try {
      return (await this.redis.evalsha(BATCH_SHA, 0, operations)) as string;
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('NOSCRIPT')) throw error;
      return (await this.redis.eval(BATCH, 0, operations)) as string;
    }
  }
}
