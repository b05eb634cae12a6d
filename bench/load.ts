// What the benchmark asks of each target: autocannon runs for throughput and latency, and a plain
// keep-alive client for stream timings (autocannon cannot see the first byte of a body).
import autocannon from 'autocannon';
import { Pool } from 'undici';
import type { TeamRowName } from './team.js';

export interface Target {
  /**
   * The three proxying targets, the two of the routes phase (Gatehouse with a virtual key, and through a route),
   * 'Gatehouse with limits': a stored key with a budget and a rate limit (throughput rounds only), and
   * 'reference': Gatehouse built from an older commit, a fourth proxying target when a run asks for one;
   * the team-mode rows (bench/team.ts).
   */
  name: 'direct' | 'bare proxy' | 'Gatehouse' | 'virtual key' | 'route' | 'Gatehouse with limits' | 'key without limits' | 'key with a budget' | 'reference' | TeamRowName;
  /** URL of a completion; `chunks` asks the upstream double for a stream of that many events. */
  url(chunks?: number): string;
  headers(chunks?: number): Record<string, string>;
  /** The completion body sent; COMPLETION_BODY when absent. */
  body?: string;
}

export const COMPLETION_BODY = JSON.stringify({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say this is a test', max_tokens: 16, temperature: 0 });
export const STREAM_BODY = JSON.stringify({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say this is a test', max_tokens: 16, temperature: 0, stream: true });

export interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Exact mean from the count: with one connection, each request waits for the previous one. */
  meanMs: number;
  completed: number;
  failures: number;
  /** CPU time the proxy process spent per request (user + system): steadier than requests/s on a busy machine. */
  proxyCpuUsPerRequest?: number;
  /** Of that, what the main thread (the event loop serving requests) used. */
  proxyMainThreadCpuUsPerRequest?: number;
  /** Team mode: what Redis and PostgreSQL spent per request meanwhile (on the same cores as the rest). */
  redisCpuUsPerRequest?: number;
  postgresCpuUsPerRequest?: number;
}

export async function loadWithAutocannon(target: Target, connections: number, durationSeconds: number): Promise<LoadResult> {
  const result = await autocannon({
    url: target.url(),
    connections,
    duration: durationSeconds,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...target.headers() },
    body: target.body ?? COMPLETION_BODY,
  });
  const completed = result.requests.total;
  return {
    requestsPerSecond: completed / result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    meanMs: (connections * result.duration * 1000) / Math.max(completed, 1),
    completed,
    failures: result.errors + result.timeouts + result.non2xx,
  };
}

export interface StreamTiming {
  /** Request sent → first body byte. */
  ttfbMs: number;
  /** Request sent → last byte. */
  totalMs: number;
  bytes: number;
}

/** One stream over a keep-alive connection, timed from the moment the request is sent. */
async function timeOneStream(pool: Pool, target: Target, chunks: number | undefined): Promise<StreamTiming> {
  const url = new URL(target.url(chunks));
  const started = performance.now();
  const response = await pool.request({
    path: url.pathname,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...target.headers(chunks) },
    body: STREAM_BODY,
  });
  let ttfbMs = 0;
  let bytes = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    if (bytes === 0) ttfbMs = performance.now() - started;
    bytes += chunk.length;
  }
  if (response.statusCode !== 200) throw new Error(`${target.name} answered a stream with ${response.statusCode}`);
  return { ttfbMs, totalMs: performance.now() - started, bytes };
}

export async function timeStreams(target: Target, count: number, chunks?: number): Promise<StreamTiming[]> {
  const pool = new Pool(new URL(target.url(chunks)).origin, { connections: 1, pipelining: 1 });
  try {
    await timeOneStream(pool, target, chunks); // opens the connection
    const timings: StreamTiming[] = [];
    for (let i = 0; i < count; i++) timings.push(await timeOneStream(pool, target, chunks));
    return timings;
  } finally {
    await pool.close();
  }
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export function mean(values: readonly number[]): number {
  return values.reduce((sum, value) => sum + value, 0) / values.length;
}
