// The chunk path: one provider stream written as very many tiny writes (bench/upstream-double.ts's
// `/tiny/N/` path: N writes of 8 bytes, each its own chunk of the chunked encoding), relayed by each proxy
// in turn. What a proxy spends per chunk must not grow with what it has relayed or holds unread: a
// proxy whose per-chunk work re-reads its buffer spends seconds where the floor spends milliseconds.
import { Pool } from 'undici';
import { STREAM_BODY } from './load.js';
import type { ServerProcess } from './processes.js';

/** The stream's writes. */
export const TINY_WRITES = 100_000;

export interface ChunkTarget {
  name: 'bare proxy' | 'Gatehouse' | 'reference';
  /** Where to POST the completion, the stream being asked of the upstream's `/tiny/N/` path. */
  url: string;
  headers: Record<string, string>;
  process: ServerProcess;
}

export interface ChunkPathCost {
  writes: number;
  bytes: number;
  /** Per target and round: the proxy's CPU per chunk (µs), of which its serving thread, and the stream's wall time (ms). */
  rounds: Record<string, { cpuUsPerChunk: number; mainThreadUsPerChunk: number; totalMs: number }[]>;
}

async function relayOnce(target: ChunkTarget): Promise<{ bytes: number; writes: number; cpuMs: number; mainThreadMs: number; totalMs: number }> {
  const url = new URL(target.url);
  const pool = new Pool(url.origin, { connections: 1 });
  try {
    const cpuBefore = target.process.cpuMs();
    const mainBefore = target.process.mainThreadCpuMs();
    const started = performance.now();
    const response = await pool.request({ path: url.pathname, method: 'POST', headers: { 'content-type': 'application/json', ...target.headers }, body: STREAM_BODY });
    let bytes = 0;
    for await (const chunk of response.body) bytes += (chunk as Buffer).length;
    const totalMs = performance.now() - started;
    if (response.statusCode !== 200) throw new Error(`${target.name} answered the tiny-writes stream with ${response.statusCode}`);
    const writes = Number(response.headers['x-bench-writes'] ?? NaN);
    return { bytes, writes, cpuMs: target.process.cpuMs() - cpuBefore, mainThreadMs: target.process.mainThreadCpuMs() - mainBefore, totalMs };
  } finally {
    await pool.close();
  }
}

/** Each round relays the stream once through every target, in a rotated order. */
export async function measureChunkPath(targets: ChunkTarget[], rounds: number, say: (line: string) => void): Promise<ChunkPathCost> {
  const result: ChunkPathCost = { writes: TINY_WRITES, bytes: 0, rounds: Object.fromEntries(targets.map((target) => [target.name, []])) };
  for (const target of targets) await relayOnce(target); // warms each path once
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < targets.length; i++) {
      const target = targets[(i + round) % targets.length];
      const once = await relayOnce(target);
      // The writes as the upstream counted them; a proxy that relays them passes its header on.
      if (Number.isFinite(once.writes)) result.writes = once.writes;
      result.bytes = once.bytes;
      const figures = { cpuUsPerChunk: (once.cpuMs * 1000) / result.writes, mainThreadUsPerChunk: (once.mainThreadMs * 1000) / result.writes, totalMs: once.totalMs };
      result.rounds[target.name].push(figures);
      say(`  ${target.name.padEnd(11)} CPU ${figures.cpuUsPerChunk.toFixed(2)} µs/chunk (serving thread ${figures.mainThreadUsPerChunk.toFixed(2)})  ${figures.totalMs.toFixed(0)} ms for the stream`);
    }
  }
  return result;
}
