// The preparing threads' pool (core/worker-pool.ts) with real worker threads: jobs answered, a worker that
// dies fails only its own job and is replaced, and a full queue refuses at once instead of growing.
import { afterEach, describe, expect, it } from 'vitest';
import { Worker } from 'node:worker_threads';
import { JobFailed, PoolBusy, WorkerPool, WorkerStopped } from '../../../src-main/core/worker-pool.js';

// Doubles a number; 'crash' ends the thread; 'hold' answers after 300 ms; 'fail' answers a failure.
const SOURCE = `
const { parentPort } = require('node:worker_threads');
parentPort.postMessage({ ready: true });
parentPort.on('message', ({ id, job }) => {
  if (job === 'crash') process.exit(3);
  if (job === 'fail') return parentPort.postMessage({ id, failure: { reason: 'refused' } });
  if (job === 'hold') return setTimeout(() => parentPort.postMessage({ id, value: 'held' }), 300);
  parentPort.postMessage({ id, value: job * 2 });
});
`;

let pool: WorkerPool | undefined;
afterEach(async () => {
  await pool?.close();
});

const start = () => new Worker(SOURCE, { eval: true });

describe('WorkerPool', () => {
  it('answers each job from a worker', async () => {
    pool = new WorkerPool({ size: 2, maxQueued: 8, start });
    expect(await Promise.all([1, 2, 3, 4, 5].map((n) => pool!.run<number>(n)))).toEqual([2, 4, 6, 8, 10]);
    expect(pool.load.workers).toBe(2);
  });

  it('fails only the job of a worker that dies, and the next job is answered by a new worker', async () => {
    pool = new WorkerPool({ size: 1, maxQueued: 8, start });
    const crashed = pool.run('crash');
    const queued = pool.run<number>(21);
    await expect(crashed).rejects.toBeInstanceOf(WorkerStopped);
    expect(await queued).toBe(42);
    expect(await pool.run<number>(4)).toBe(8);
  });

  it('hands back a failure the worker sent as data', async () => {
    pool = new WorkerPool({ size: 1, maxQueued: 8, start });
    const failed = await pool.run('fail').catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(JobFailed);
    expect((failed as JobFailed).failure).toEqual({ reason: 'refused' });
  });

  it('refuses a job at once when every worker is busy and the queue is full', async () => {
    pool = new WorkerPool({ size: 1, maxQueued: 2, start });
    const held = [pool.run('hold'), pool.run('hold'), pool.run('hold')];
    await expect(pool.run('hold')).rejects.toBeInstanceOf(PoolBusy);
    expect(pool.load).toEqual({ running: 1, queued: 2, workers: 1 });
    expect(await Promise.all(held)).toEqual(['held', 'held', 'held']);
  });

  it('fails a running job when its worker is stopped from outside', async () => {
    pool = new WorkerPool({ size: 1, maxQueued: 2, start });
    const held = pool.run('hold');
    expect(await pool.stopBusyWorker()).toBe(true);
    await expect(held).rejects.toBeInstanceOf(WorkerStopped);
    expect(await pool.run<number>(1)).toBe(2);
  });
});
