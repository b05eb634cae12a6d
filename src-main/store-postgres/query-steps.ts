// A read of one or more statements, each perhaps depending on the rows of the one before, written once as
// a generator that yields each statement and is given its rows back, and run either way: waited for on the
// serving thread (the synchronous storage contracts, the CLI), or off it for the admin API, whose reads
// must not hold every call while PostgreSQL works on them (or does not answer).
import type { PgBridge, Statement } from './pg-bridge.js';

export type QuerySteps<T> = Generator<Statement, T, unknown[]>;

/** Runs the steps on this thread, waiting for each statement (querySync's bound and 503). */
export function readNow<T>(bridge: PgBridge, steps: QuerySteps<T>): T {
  let step = steps.next();
  while (!step.done) step = steps.next(bridge.querySync(step.value.sql, step.value.params));
  return step.value;
}

/** Runs the steps off this thread (queryForAdmin's bound and 503). */
export async function readLater<T>(bridge: PgBridge, steps: QuerySteps<T>): Promise<T> {
  let step = steps.next();
  while (!step.done) step = steps.next(await bridge.queryForAdmin(step.value.sql, step.value.params));
  return step.value;
}
