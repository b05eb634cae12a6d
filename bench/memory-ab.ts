// `node --import tsx bench/memory-ab.ts [--rounds N] [--requests M] [--node-option F] [ref ...]`: Gatehouse's memory and CPU per
// request at several commits, measured in interleaved rounds so a busy machine cancels out. Each round
// starts every build afresh (its own process and data directory, in a rotated order), serves it a fixed
// number of completions over 32 connections and reads, from /proc: RSS idle, RSS peak under the load,
// RSS 3 s after, and the CPU-seconds per request of the whole process and of its serving thread. Wall
// time is not reported: with the cores shared it says nothing; a fixed request count makes the memory
// and CPU figures comparable. `current` names the working tree's sources. Prints medians and spreads.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import autocannon from 'autocannon';
import { bundleReference, bundleServers, sampleRss, startServer, type ServerProcess } from './processes.js';
import { COMPLETION_BODY, median } from './load.js';

const GATEWAY_KEY = 'gh-bench-gateway-key-0123456789';
const MB = 1024 * 1024;

function option(name: string, fallback: number): number {
  const index = process.argv.indexOf(name);
  return index === -1 ? fallback : Number(process.argv[index + 1]);
}

const rounds = option('--rounds', 3);
const requests = option('--requests', 20_000);
/** The options that take a value: what follows them is not a ref (a V8 flag given to --node-option starts with `--` too). */
const VALUED = new Set(['--rounds', '--requests', '--node-option']);
const refs = process.argv.slice(2).filter((arg, index, all) => !arg.startsWith('--') && !VALUED.has(all[index - 1]));
if (refs.length === 0) refs.push('38091f8', 'current');

interface Sample {
  idleMb: number;
  peakMb: number;
  afterMb: number;
  cpuUs: number;
  mainUs: number;
  errors: number;
}

async function measureOnce(cli: string, upstreamPort: number, nodeOptions: string[]): Promise<Sample> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-memory-ab-'));
  let server: ServerProcess | undefined;
  try {
    server = await startServer('Gatehouse', cli, {
      args: ['serve', '--port', '0', '--data-dir', dataDir],
      env: { GATEWAY_API_KEY: GATEWAY_KEY, GATEHOUSE_ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef', GATEHOUSE_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'), HOME: dataDir },
      nodeOptions,
    });
    const url = `http://127.0.0.1:${server.port}/v1/completions`;
    const headers = {
      'content-type': 'application/json',
      'x-gateway-api-key': GATEWAY_KEY,
      'x-gateway-provider': 'openai',
      'x-gateway-custom-host': `http://127.0.0.1:${upstreamPort}/v1`,
      authorization: 'Bearer sk-bench-provider-token-0000000000',
    };
    for (let i = 0; i < 50; i++) {
      const response = await fetch(url, { method: 'POST', headers, body: COMPLETION_BODY });
      if (response.status !== 200) throw new Error(`Gatehouse answered ${response.status}: ${await response.text()}`);
      await response.arrayBuffer();
    }
    await sleep(1000);
    const idle = server.rss();
    const peak = sampleRss(server, 50);
    const cpuBefore = server.cpuMs();
    const mainBefore = server.mainThreadCpuMs();
    const result = await autocannon({ url, connections: 32, amount: requests, method: 'POST', headers, body: COMPLETION_BODY });
    const cpuMs = server.cpuMs() - cpuBefore;
    const mainMs = server.mainThreadCpuMs() - mainBefore;
    const peakRss = peak.stop();
    // A wrong answer is a broken build; a few client timeouts are the shared machine (counted, reported).
    if (result.non2xx > 0 || result.errors > requests / 100) throw new Error(`${result.non2xx} non-2xx answers and ${result.errors} errors`);
    await sleep(3000);
    const completed = result.requests.total;
    return { idleMb: idle / MB, peakMb: peakRss / MB, afterMb: server.rss() / MB, cpuUs: (cpuMs * 1000) / completed, mainUs: (mainMs * 1000) / completed, errors: result.errors + result.timeouts };
  } finally {
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function spread(values: number[]): string {
  return `${median(values).toFixed(1)} [${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}]`;
}

async function main(): Promise<void> {
  const bundles = await bundleServers();
  const builds: { ref: string; cli: string }[] = [];
  for (const ref of refs) builds.push({ ref, cli: ref === 'current' ? bundles.gatehouseCli : (await bundleReference(ref)).cli });
  // `--node-option <flag>` (repeatable): passed to every build's process, e.g. a V8 heap flag to test a cause.
  const nodeOptions = process.argv.flatMap((arg, i, all) => (all[i - 1] === '--node-option' ? [arg] : []));
  const upstream = await startServer('upstream double', bundles.upstreamDouble);
  const samples = new Map<string, Sample[]>(builds.map((build) => [build.ref, []]));
  try {
    for (let round = 0; round < rounds; round++) {
      for (let i = 0; i < builds.length; i++) {
        const build = builds[(i + round) % builds.length];
        const sample = await measureOnce(build.cli, upstream.port, nodeOptions);
        samples.get(build.ref)!.push(sample);
        process.stdout.write(
          `round ${round + 1} ${build.ref.padEnd(8)} idle ${sample.idleMb.toFixed(1)} MB  peak ${sample.peakMb.toFixed(1)} MB  after ${sample.afterMb.toFixed(1)} MB  CPU ${sample.cpuUs.toFixed(0)} µs/req (serving thread ${sample.mainUs.toFixed(0)})${sample.errors ? `  ${sample.errors} client errors` : ''}\n`,
        );
      }
    }
  } finally {
    await upstream.stop();
  }
  process.stdout.write(`\n${requests} requests at 32 connections, ${rounds} rounds: median [min–max]\n`);
  for (const [ref, list] of samples) {
    const of = (figure: (sample: Sample) => number) => spread(list.map(figure));
    process.stdout.write(
      `${ref.padEnd(8)} idle ${of((s) => s.idleMb)} MB  peak ${of((s) => s.peakMb)} MB  after ${of((s) => s.afterMb)} MB  CPU ${of((s) => s.cpuUs)} µs/req  serving thread ${of((s) => s.mainUs)} µs/req\n`,
    );
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
