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

/** The stream lengths of the scaling row: what a proxy spends per chunk must be the same at both. */
export const SCALING_CHUNKS = [1_000, 64_000] as const;

export interface ChunkScalingTarget {
  name: ChunkTarget['name'];
  process: ServerProcess;
  /** The request that asks the upstream for a stream of `chunks` events, each its own write (`/chunks/N/`). */
  request(chunks: number): { url: string; headers: Record<string, string> };
}

export interface ChunkScaling {
  /** Per stream length, per target: the medians of the rounds (µs of CPU per chunk, all threads and the serving thread). */
  sizes: { chunks: number; targets: Record<string, { cpuUsPerChunk: number; mainThreadUsPerChunk: number }> }[];
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * CPU per chunk of streams of 1,000 and 64,000 events (each event one write of the upstream, as a model's
 * tokens come): a proxy whose end-of-stream work rescans what it relayed, or whose per-chunk work grows with
 * what it holds, spends more per chunk on the long stream; one that prices a stream per byte spends the same.
 */
export async function measureChunkScaling(targets: ChunkScalingTarget[], rounds: number, say: (line: string) => void): Promise<ChunkScaling> {
  const result: ChunkScaling = { sizes: [] };
  for (const chunks of SCALING_CHUNKS) {
    const figures: Record<string, { cpu: number[]; main: number[] }> = Object.fromEntries(targets.map((target) => [target.name, { cpu: [], main: [] }]));
    for (let round = -1; round < rounds; round++) {
      for (let i = 0; i < targets.length; i++) {
        const target = targets[(i + Math.max(round, 0)) % targets.length];
        const { url, headers } = target.request(chunks);
        // As many streams as make 64,000 chunks: a process's CPU is read in 10 ms ticks, more than a short stream costs.
        const streams = Math.ceil(SCALING_CHUNKS[SCALING_CHUNKS.length - 1] / chunks);
        let cpuMs = 0;
        let mainThreadMs = 0;
        for (let i = 0; i < streams; i++) {
          const once = await relayOnce({ name: target.name, url, headers, process: target.process });
          cpuMs += once.cpuMs;
          mainThreadMs += once.mainThreadMs;
        }
        // Round -1 warms each path at this length.
        if (round < 0) continue;
        figures[target.name].cpu.push((cpuMs * 1000) / (chunks * streams));
        figures[target.name].main.push((mainThreadMs * 1000) / (chunks * streams));
      }
    }
    const size = { chunks, targets: Object.fromEntries(targets.map((target) => [target.name, { cpuUsPerChunk: median(figures[target.name].cpu), mainThreadUsPerChunk: median(figures[target.name].main) }])) };
    result.sizes.push(size);
    for (const target of targets) {
      const { cpuUsPerChunk, mainThreadUsPerChunk } = size.targets[target.name];
      say(`  ${chunks.toLocaleString('en').padStart(6)} chunks  ${target.name.padEnd(11)} CPU ${cpuUsPerChunk.toFixed(2)} µs/chunk (serving thread ${mainThreadUsPerChunk.toFixed(2)})`);
    }
  }
  return result;
}
