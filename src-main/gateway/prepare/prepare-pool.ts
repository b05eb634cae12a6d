// Large request bodies are read off the serving thread. Parsing a 10 MiB body of 300k messages, checking and
// decoding it, collecting the garbage, costs the thread 0.6–1.5 s, during which no other call is answered;
// parsing elsewhere and cloning the object back costs more than parsing here. So the preparing threads do
// all the work that needs the parsed body and hand back only small facts and encoded bytes (jobs.ts).
// Below OFF_THREAD_MIN_BYTES a body is read on the serving thread: the hop would cost more than it saves.
import { availableParallelism } from 'node:os';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker, type ResourceLimits } from 'node:worker_threads';
import { GatewayError } from '../../core/errors.js';
import { JobCancelled, JobFailed, JobOverLimit, PoolBusy, WorkerPool, WorkerStopped } from '../../core/worker-pool.js';
import type { AbortLike } from '../../core/request-abort.js';
import type { GenerationRoute } from '../ingress/types.js';
import type { Generation, RawBody } from '../request-body.js';
import type { EmbeddingsInbound, EmbeddingsIngress } from '../embeddings/embeddings-ingress.js';
import { PreparedGeneration } from './prepared-generation.js';
import { failureError, ingressName, type EmbeddingsReply, type FailureData, type GenerationAsk, type GenerationFacts, type PrepareJob } from './jobs.js';

/**
 * Bodies of this size or more are prepared off the serving thread. Measured (the fastest of 15, on a loaded
 * 2-core machine): read and decoded here, a worst-shaped body holds the serving thread 8 ms (256 KiB of
 * messages) to 20 ms (of member names), 36–60 ms at 512 KiB; the facts' round trip through a preparing
 * thread takes the call 13–16 ms at 256 KiB, 2.6 ms at 64 KiB, while costing the serving thread only the
 * copy into shared memory. Under this size the hop buys the other calls little and costs this one as much.
 */
export const OFF_THREAD_MIN_BYTES = 256 * 1024;
/**
 * The most JSON values a body whose object must be built on the serving thread (an MCP message, which the
 * SDK reads) may hold: JSON.parse of 100k values costs that thread about 30–60 ms, well within the stall bound.
 */
export const MAX_SERVING_THREAD_VALUES = 100_000;
/** How the preparing threads are held to account: one body can neither hold a thread nor blow it up. */
export interface PrepareLimits {
  /** Preparing threads; each reads one body at a time. */
  threads: number;
  /** Jobs waiting per thread; past it a large body is answered 503 `overloaded`. */
  queuedPerThread: number;
  /**
   * The longest one job (one question about one body) may run on a loaded thread; past it the thread is
   * terminated and replaced and the call answered 413 `body_too_costly`. A 10 MiB body of the worst shape
   * takes 0.6–1.5 s on a quiet 2-core machine, and was seen to take 15 s at a load average of 21: the bound
   * is past what an honest body needs on a crowded machine, and still ends a thread held without end.
   */
  jobTimeoutMs: number;
  /**
   * Each thread's heap (V8's old generation, MB); a body whose parse outgrows it ends its thread, answered
   * like the time limit. Measured: the worst 10 MiB bodies (330k one-word messages or text parts, decoded
   * and encoded for Anthropic) fail at 96 MB and pass at 160 MB; the default leaves three times that.
   */
  heapMb: number;
}

export const DEFAULT_PREPARE_LIMITS: PrepareLimits = {
  threads: Math.min(4, Math.max(1, availableParallelism() - 1)),
  queuedPerThread: 16,
  jobTimeoutMs: 30_000,
  heapMb: 512,
};

/** The limits one call's preparation runs under, and the call's abort (a client that left takes its job back). */
export interface PrepareContext {
  limits?: PrepareLimits;
  signal?: AbortLike;
}

/** One pool per set of limits (a gateway's own, or the default), started on first need and kept for the process. */
const pools = new Map<string, WorkerPool>();

/** The pool of these limits: its threads are started as jobs need them, each with its heap limit. */
export function preparePool(limits: PrepareLimits = DEFAULT_PREPARE_LIMITS): WorkerPool {
  const name = `${limits.threads}/${limits.queuedPerThread}/${limits.jobTimeoutMs}/${limits.heapMb}`;
  let pool = pools.get(name);
  if (!pool) {
    const resourceLimits = { maxOldGenerationSizeMb: limits.heapMb };
    pool = new WorkerPool({ size: limits.threads, maxQueued: limits.threads * limits.queuedPerThread, jobTimeoutMs: limits.jobTimeoutMs, start: () => startPreparingThread(resourceLimits) });
    pools.set(name, pool);
  }
  return pool;
}

/** The preparing thread's entry: the TypeScript source through tsx when running from source, else the built file. */
function startPreparingThread(resourceLimits: ResourceLimits): Worker {
  const here = import.meta.url;
  if (here.endsWith('.ts')) {
    const entry = fileURLToPath(new URL('./prepare-worker.ts', here));
    const load = `const load = require('node:module').createRequire(${JSON.stringify(entry)}); load('tsx/cjs'); load(${JSON.stringify(entry)});`;
    return new Worker(load, { eval: true, name: 'gatehouse-prepare', resourceLimits });
  }
  // Built: out/main/prepare-worker.js, beside the entry that bundled this module or one folder above its chunk.
  const beside = new URL('./prepare-worker.js', here);
  return new Worker(existsSync(fileURLToPath(beside)) ? beside : new URL('../prepare-worker.js', here), { name: 'gatehouse-prepare', resourceLimits });
}

/** The body's bytes, shared once with the preparing threads (every question about it reads the same copy). */
function shared(bytes: Buffer): SharedArrayBuffer {
  const copy = new SharedArrayBuffer(bytes.length);
  new Uint8Array(copy).set(bytes);
  return copy;
}

/** A preparing thread's answer, or the error the call is answered with, shaped by the route's dialect. */
function run<T>(job: PrepareJob, { limits, signal }: PrepareContext): Promise<T> {
  const pool = preparePool(limits);
  return pool.run<T>(job, { signal }).catch((error: unknown) => {
    throw callError(error, limits ?? DEFAULT_PREPARE_LIMITS);
  });
}

function callError(error: unknown, limits: PrepareLimits): unknown {
  // The caller left: what it is answered is decided by who noticed (the proxy answers 499); this is only the reason.
  if (error instanceof JobCancelled) return new GatewayError(499, 'api_error', 'The client closed the connection');
  if (error instanceof JobOverLimit) {
    const over = error.limit === 'time' ? `took longer than ${limits.jobTimeoutMs} ms` : `needed more than ${limits.heapMb} MB of memory`;
    return new GatewayError(413, 'invalid_request_error', `Reading this request body ${over} on the gateway's preparing thread, which was stopped; nothing was sent to a provider. Send a smaller or simpler body.`, null, 'body_too_costly');
  }
  if (error instanceof PoolBusy) {
    return new GatewayError(503, 'api_error', 'The gateway is reading as many large request bodies as it can hold; try again shortly', null, 'overloaded');
  }
  if (error instanceof WorkerStopped) {
    return new GatewayError(500, 'api_error', `The gateway's thread reading this request body stopped (${error.why}); nothing was sent to a provider. Try again.`, null, 'prepare_failed');
  }
  if (error instanceof JobFailed) return failureError(error.failure as FailureData);
  return error;
}

/** A large generation body read off the serving thread; undefined for a front door the preparing threads do not know. */
export function prepareGeneration(body: RawBody, route: GenerationRoute, defaultModel: string | undefined, context: PrepareContext = {}): Promise<Generation> | undefined {
  const name = ingressName(route.ingress);
  if (!name) return undefined;
  const bytes = shared(body.bytes);
  const ref = { ingress: name, operation: route.operation, ...(route.path ? { path: route.path } : {}) };
  const ask = <T>(question: GenerationAsk): Promise<T> => run<T>({ kind: 'generation', bytes, route: ref, defaultModel, ask: question }, context);
  return ask<GenerationFacts>({ facts: true }).then((facts) => new PreparedGeneration(route.ingress, route.operation, body.bytes, body.text, facts, ask));
}

/** A large embeddings body read and decoded off the serving thread. */
export function prepareEmbeddings(body: RawBody, ingress: EmbeddingsIngress, defaultModel: string | undefined, context: PrepareContext = {}): Promise<EmbeddingsInbound> {
  return run<EmbeddingsReply>({ kind: 'embeddings', bytes: shared(body.bytes), ingress: ingress.ref, defaultModel }, context).then((reply) =>
    ingress.inbound(reply.request, body.bytes, body.text, reply.rawModel),
  );
}

/**
 * A JSON body whose object the serving thread needs (an MCP message): a large one is scanned and parsed
 * off the thread first, and parsed here only when it holds at most MAX_SERVING_THREAD_VALUES values; the
 * same refusals as an inline read (the scan's GatewayError, JSON.parse's SyntaxError), or a 413.
 */
export async function parseLargeJson(raw: Buffer, parseHere: (raw: Buffer) => unknown, context: PrepareContext = {}): Promise<unknown> {
  if (raw.length < OFF_THREAD_MIN_BYTES) return parseHere(raw);
  const { values } = await run<{ values: number }>({ kind: 'json', bytes: shared(raw) }, context);
  if (values > MAX_SERVING_THREAD_VALUES) {
    throw new GatewayError(413, 'invalid_request_error', `The message holds ${values} JSON values; at most ${MAX_SERVING_THREAD_VALUES} are taken in one message`, null, 'too_many_values');
  }
  return parseHere(raw);
}
