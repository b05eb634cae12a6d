// Growth of a function's time with its input, for the complexity suite (test/unit/reliability/complexity.test.ts):
// the same builder at size n and 8n, each timed as the minimum of several runs, and the ratio of the two.
// Linear work gives about 8, n·log n about 10, quadratic about 64: a ratio over GROWTH_LIMIT is superlinear.
// Time is the process's CPU time, not the clock's: on a loaded machine a run of 1 ms often slips in between
// other processes while one of 30 ms never does, so clock times inflate the ratio by the load (×5 seen on
// 2 cores running 13 jobs); CPU time counts only this process's work (its worker threads included: the
// token counter, the in-process gateway and MCP server).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Above n·log n with room for a loaded 2-core machine and for the collector at 8n; well below quadratic (~64).
 * In the whole suite, linear encoders (JSON.stringify of one long string among them) read ×15 to ×20.4: the 8n
 * input's garbage outgrows the young generation, the n input's does not. 28 keeps a quadratic more than twice over.
 */
export const GROWTH_LIMIT = 28;
/** The larger size's time must reach this (ms): a row timed in microseconds says nothing about its growth. */
export const MIN_LARGE_MS = 0.2;
/** Past this (clock time) a row stops sampling: plenty for linear rows, bounded for superlinear ones. */
export const ROW_BUDGET_MS = 300;
/** Work at n is repeated until one timing takes this long (CPU ms), at most MAX_REPEAT times. */
export const MIN_SMALL_MS = 1;
const MAX_REPEAT = 100;

export interface ComplexityRow<Input = unknown> {
  /** What is timed, on which shape: `json-scan: many member names`. */
  path: string;
  /** The size at which the row is timed (and 8× it); chosen so the larger case takes roughly 10–40 ms. */
  n: number;
  /** The input at size n, made once per size, outside the timing (the row's `run` must not consume it). */
  build(n: number): Input;
  /** The work timed: everything the serving thread does with the input. */
  run(input: Input): unknown;
  /** Calls of `run` per timing at least (more are made when one call at n is under MIN_SMALL_MS). */
  repeat?: number;
}

export interface Growth {
  smallMs: number;
  largeMs: number;
  ratio: number;
}

// A full collection once per row, before its inputs are built: the garbage of the rows before is not charged
// to this one. Before each timing only the young generation is collected (a scavenge, about a millisecond):
// a full collection of this process (the gateway, the MCP server, the codecs) took about 45 ms, and one before
// every timing was two thirds of the suite's CPU. What a run leaves in the old generation is small beside its
// input, and a collection it sets off lands in some runs, not in their minimum.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as (options?: { type: 'minor' | 'major' }) => void;

async function timeOnce<Input>(row: ComplexityRow<Input>, input: Input, repeat: number): Promise<number> {
  collectGarbage({ type: 'minor' });
  const started = process.cpuUsage();
  for (let i = 0; i < repeat; i++) {
    const out = row.run(input);
    if (out instanceof Promise) await out;
  }
  const spent = process.cpuUsage(started);
  return (spent.user + spent.system) / 1000;
}

/**
 * Times the row at n and 8n, `runs` times each (alternating, after a warm-up that compiles the code),
 * keeping the minimum. Work under MIN_SMALL_MS at n is repeated until it takes that long, at both sizes:
 * a run of a few µs is all fixed cost and cache-hot, and would make any growth look steep. A ratio over
 * the limit is measured again with twice the runs before it is reported: a quadratic stays at ~64
 * however often it is timed, a burst of load does not. A row past ROW_BUDGET_MS stops sampling (a
 * superlinear row takes seconds per run at 8n: one sample says enough).
 */
export async function measureGrowth<Input>(row: ComplexityRow<Input>, runs = 3): Promise<Growth> {
  collectGarbage();
  const small = row.build(row.n);
  const large = row.build(row.n * 8);
  const started = performance.now();
  const warm = row.repeat ?? 1;
  const once = Math.min(await timeOnce(row, small, warm), await timeOnce(row, small, warm), await timeOnce(row, small, warm)) / warm;
  const repeat = Math.max(row.repeat ?? 1, Math.min(MAX_REPEAT, Math.ceil(MIN_SMALL_MS / Math.max(once, 0.001))));
  let smallMs = Infinity;
  let largeMs = await timeOnce(row, large, repeat);
  const sample = async (count: number, budget: number) => {
    for (let i = 0; i < count && (i === 0 || performance.now() - started < budget); i++) {
      smallMs = Math.min(smallMs, await timeOnce(row, small, repeat));
      largeMs = Math.min(largeMs, await timeOnce(row, large, repeat));
    }
  };
  await sample(runs, ROW_BUDGET_MS);
  // Just over the limit: measured again in full (a busy neighbour); far over it: one more sample is enough.
  if (largeMs / smallMs > GROWTH_LIMIT) await sample(runs * 2, largeMs / smallMs < 2.5 * GROWTH_LIMIT ? Infinity : ROW_BUDGET_MS);
  return { smallMs, largeMs, ratio: largeMs / smallMs };
}

/** `1.2 ms → 9.9 ms (×8.2)`: what a failing row says. */
export const describeGrowth = ({ smallMs, largeMs, ratio }: Growth): string => `${smallMs.toFixed(2)} ms → ${largeMs.toFixed(2)} ms (×${ratio.toFixed(1)})`;

/** An async iterable of the given chunks, as a socket delivers them (one per read). */
export async function* chunked<T>(chunks: readonly T[]): AsyncGenerator<T> {
  for (const chunk of chunks) yield chunk;
}

/** `bytes` cut into pieces of `size` bytes (the last may be shorter). */
export function cut(bytes: Buffer, size: number): Buffer[] {
  const pieces: Buffer[] = [];
  for (let at = 0; at < bytes.length; at += size) pieces.push(bytes.subarray(at, at + size));
  return pieces;
}
