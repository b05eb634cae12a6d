// A fixed set of worker threads that take jobs one at a time each, for CPU work that must not hold the
// serving thread (reading very large request bodies). Workers start on first need and are kept; a worker
// that dies fails only the job it held and is replaced before the next one. Waiting jobs are bounded: past
// the bound a job is refused at once (the caller answers 503) rather than held in memory without limit.
import type { Transferable, Worker } from 'node:worker_threads';

/** Every worker is busy and the queue is full: the job was not taken. */
export class PoolBusy extends Error {
  constructor() {
    super('every worker is busy and the queue is full');
  }
}

/** The worker running the job stopped (crashed, ran out of memory, was terminated) before it answered. */
export class WorkerStopped extends Error {
  constructor(readonly why: string) {
    super(`the worker thread stopped before it answered (${why})`);
  }
}

/** What a worker posts back for job `id`: its value, or a failure it caught (plain data). */
export interface WorkerReply {
  id: number;
  value?: unknown;
  failure?: unknown;
}

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
  /** Starts one worker. It answers each `{ id, job }` message with one WorkerReply. */
  start: () => Worker;
}

interface Job {
  id: number;
  message: unknown;
  transfer: readonly Transferable[];
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

interface Slot {
  worker: Worker;
  job: Job | undefined;
}

export class WorkerPool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: WorkerPoolOptions) {}

  /** Runs one job on the next free worker; the message's `transfer` buffers move to it (unusable here after). */
  run<T>(message: unknown, transfer: readonly Transferable[] = []): Promise<T> {
    if (this.closed) return Promise.reject(new WorkerStopped('the pool is closed'));
    return new Promise<T>((resolve, reject) => {
      const job: Job = { id: this.nextId++, message, transfer, resolve: resolve as (value: unknown) => void, reject };
      const slot = this.freeSlot();
      if (slot) return this.assign(slot, job);
      if (this.queue.length >= this.options.maxQueued) return reject(new PoolBusy());
      this.queue.push(job);
    });
  }

  /** Jobs held by workers and waiting, for the metrics and tests. */
  get load(): { running: number; queued: number; workers: number } {
    return { running: this.slots.filter((slot) => slot.job).length, queued: this.queue.length, workers: this.slots.length };
  }

  /** Stops every worker; jobs still held or waiting fail with WorkerStopped. */
  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new WorkerStopped('the pool is closed'));
    await Promise.all(this.slots.splice(0).map((slot) => slot.worker.terminate()));
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
    const slot: Slot = { worker, job: undefined };
    worker.on('message', (reply: WorkerReply) => this.answered(slot, reply));
    worker.on('error', (error: Error) => this.lost(slot, error.message));
    worker.on('exit', (code) => this.lost(slot, `exit code ${code}`));
    this.slots.push(slot);
    return slot;
  }

  private assign(slot: Slot, job: Job): void {
    slot.job = job;
    slot.worker.postMessage({ id: job.id, job: job.message }, job.transfer);
  }

  private answered(slot: Slot, reply: WorkerReply): void {
    const job = slot.job;
    if (!job || job.id !== reply.id) return;
    slot.job = undefined;
    if (reply.failure !== undefined) job.reject(new JobFailed(reply.failure));
    else job.resolve(reply.value);
    this.next(slot);
  }

  /** A worker stopped: its job fails, and a new worker takes the next waiting job. */
  private lost(slot: Slot, why: string): void {
    const index = this.slots.indexOf(slot);
    if (index === -1) return;
    this.slots.splice(index, 1);
    slot.worker.removeAllListeners();
    slot.job?.reject(new WorkerStopped(why));
    slot.job = undefined;
    if (!this.closed && this.queue.length > 0) this.assign(this.spawn(), this.queue.shift()!);
  }

  private next(slot: Slot): void {
    const waiting = this.queue.shift();
    if (waiting) this.assign(slot, waiting);
  }
}
