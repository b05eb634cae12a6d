// A fixed set of worker threads that take jobs one at a time each, for CPU work that must not hold the
// serving thread (reading very large request bodies). Workers start on first need and are kept; a worker
// that dies fails only the job it held and is replaced before the next one. Waiting jobs are bounded: past
// the bound a job is refused at once (the caller answers 503) rather than held in memory without limit.
// No job can hold a worker for ever: past the pool's time limit the worker is terminated and replaced (its
// heap is bounded by the `resourceLimits` its starter gives it, which ends it the same way). A job whose
// caller left is taken out of the queue; one already running finishes, and its answer is dropped.
import type { Transferable, Worker } from 'node:worker_threads';
import type { AbortLike } from './request-abort.js';

/** Every worker is busy and the queue is full: the job was not taken. */
export class PoolBusy extends Error {
  constructor() {
    super('every worker is busy and the queue is full');
  }
}

/** The worker running the job stopped (crashed, was terminated) before it answered. */
export class WorkerStopped extends Error {
  constructor(readonly why: string) {
    super(`the worker thread stopped before it answered (${why})`);
  }
}

/** The job went past a limit of its worker: its time (the worker was terminated) or its heap (the worker ran out). */
export class JobOverLimit extends Error {
  constructor(readonly limit: 'time' | 'memory') {
    super(limit === 'time' ? 'the job took longer than its time limit' : 'the job ran out of its worker’s memory');
  }
}

/** The job's caller left (its signal aborted) before the job answered: nobody reads the answer. */
export class JobCancelled extends Error {
  constructor(readonly reason: unknown) {
    super('the job was cancelled by its caller');
  }
}

/** What a worker posts back for job `id`: its value, or a failure it caught (plain data); or once, `ready`. */
export interface WorkerReply {
  id: number;
  value?: unknown;
  failure?: unknown;
}

/** A worker posts this once it has loaded and takes jobs: a job's clock starts then, not while its code loads. */
export const WORKER_READY = { ready: true } as const;

/** A failure the worker caught and sent back as data; the pool's user turns it into its own error. */
export class JobFailed extends Error {
  constructor(readonly failure: unknown) {
    super('the job failed in its worker');
  }
}

export interface WorkerPoolOptions {
  /** Workers kept; each runs one job at a time. */
  size: number;
  /** Jobs that may wait for a worker; one more is refused with PoolBusy. */
  maxQueued: number;
  /** The longest a job may run on a ready worker before the worker is terminated (JobOverLimit 'time'). */
  jobTimeoutMs?: number;
  /** Starts one worker. It posts WORKER_READY once, then answers each `{ id, job }` message with one WorkerReply. */
  start: () => Worker;
}

export interface RunOptions {
  /** Buffers moved to the worker (unusable here after). */
  transfer?: readonly Transferable[];
  /** The caller's abort: a waiting job leaves the queue, a running one's answer is dropped (JobCancelled). */
  signal?: AbortLike;
}

interface Job {
  id: number;
  message: unknown;
  transfer: readonly Transferable[];
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  /** Settled already (cancelled): the worker's answer, when it comes, is dropped. */
  settled: boolean;
  signal: AbortLike | undefined;
  onAbort: (() => void) | undefined;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
  ready: boolean;
  timer: NodeJS.Timeout | undefined;
}

const OUT_OF_MEMORY = 'ERR_WORKER_OUT_OF_MEMORY';

export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: WorkerPoolOptions) {}

  /** Runs one job on the next free worker. */
  run<T>(message: unknown, { transfer = [], signal }: RunOptions = {}): Promise<T> {
    if (this.closed) return Promise.reject(new WorkerStopped('the pool is closed'));
    if (signal?.aborted) return Promise.reject(new JobCancelled(signal.reason));
    return new Promise<T>((resolve, reject) => {
      const job: Job = { id: this.nextId++, message, transfer, resolve: resolve as (value: unknown) => void, reject, settled: false, signal, onAbort: undefined };
      const slot = this.freeSlot();
      if (slot) this.assign(slot, job);
      else if (this.queue.length >= this.options.maxQueued) return reject(new PoolBusy());
      else this.queue.push(job);
      if (signal) {
        job.onAbort = () => this.cancel(job);
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
    });
  }

  /** Jobs held by workers and waiting, for the metrics and tests. */
  get load(): { running: number; queued: number; workers: number } {
    return { running: this.slots.filter((slot) => slot.job).length, queued: this.queue.length, workers: this.slots.length };
  }

  /** Stops every worker; jobs still held or waiting fail with WorkerStopped. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) this.settle(job, new WorkerStopped('the pool is closed'));
    await Promise.all(this.slots.splice(0).map((slot) => (clearTimeout(slot.timer), slot.worker.terminate())));
  }

  /** Stops the worker running a job, as a crash would (tests: the job fails, the pool goes on). */
  async stopBusyWorker(): Promise<boolean> {
    const slot = this.slots.find((candidate) => candidate.job);
    if (!slot) return false;
    await slot.worker.terminate();
    return true;
  }

  private freeSlot(): Slot | undefined {
    const idle = this.slots.find((slot) => !slot.job);
    if (idle) return idle;
    if (this.slots.length < this.options.size) return this.spawn();
    return undefined;
  }

  private spawn(): Slot {
    const worker = this.options.start();
    // The pool never keeps the process alive on its own: a gateway that stops lets it exit.
    worker.unref();
    const slot: Slot = { worker, job: undefined, ready: false, timer: undefined };
    worker.on('message', (reply: WorkerReply | typeof WORKER_READY) => ('ready' in reply ? this.readied(slot) : this.answered(slot, reply)));
    worker.on('error', (error: Error & { code?: string }) => this.lost(slot, error.code === OUT_OF_MEMORY ? new JobOverLimit('memory') : new WorkerStopped(error.message)));
    worker.on('exit', (code) => this.lost(slot, new WorkerStopped(`exit code ${code}`)));
    this.slots.push(slot);
    return slot;
  }

  private readied(slot: Slot): void {
    slot.ready = true;
    if (slot.job) this.startClock(slot);
  }

  private assign(slot: Slot, job: Job): void {
    slot.job = job;
    slot.worker.postMessage({ id: job.id, job: job.message }, job.transfer);
    if (slot.ready) this.startClock(slot);
  }

  /** The job's time runs from when a loaded worker has it; past the limit the worker is ended and replaced. */
  private startClock(slot: Slot): void {
    const limit = this.options.jobTimeoutMs;
    if (limit === undefined) return;
    const job = slot.job;
    slot.timer = setTimeout(() => {
      if (slot.job !== job) return;
      const worker = slot.worker;
      this.lost(slot, new JobOverLimit('time'));
      void worker.terminate();
    }, limit);
    slot.timer.unref();
  }

  private answered(slot: Slot, reply: WorkerReply): void {
    const job = slot.job;
    if (!job || job.id !== reply.id) return;
    clearTimeout(slot.timer);
    slot.job = undefined;
    this.settle(job, reply.failure !== undefined ? new JobFailed(reply.failure) : undefined, reply.value);
    this.next(slot);
  }

  /** A worker stopped (or was ended): its job fails, and a new worker takes the next waiting job. */
  private lost(slot: Slot, error: Error): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    this.slots.splice(index, 1);
    clearTimeout(slot.timer);
    slot.worker.removeAllListeners();
    // An exit or error after this one (terminate() on a timed-out worker) is not heard: it was counted here.
    slot.worker.on('error', () => {});
    if (slot.job) this.settle(slot.job, error);
    slot.job = undefined;
    if (!this.closed && this.queue.length > 0) this.assign(this.spawn(), this.queue.shift()!);
  }

  /** The caller left: a waiting job leaves the queue; a running one keeps its worker until it answers, unread. */
  private cancel(job: Job): void {
    const waiting = this.queue.indexOf(job);
    if (waiting !== -1) this.queue.splice(waiting, 1);
    this.settle(job, new JobCancelled(job.signal?.reason));
  }

  private settle(job: Job, error: Error | undefined, value?: unknown): void {
    if (job.settled) return;
    job.settled = true;
    if (job.onAbort) job.signal!.removeEventListener('abort', job.onAbort);
    if (error) job.reject(error);
    else job.resolve(value);
  }

  private next(slot: Slot): void {
    const waiting = this.queue.shift();
    if (waiting) this.assign(slot, waiting);
  }
}
