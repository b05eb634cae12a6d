// `npm run bench [-- --quick] [-- --profile] [-- --against <ref>]`: Gatehouse against the floor (a bare
// node:http proxy), against no proxy at all and against its own build at an older commit (the one in
// bench/reference.json in full runs; `--against <ref>` picks another, `--against none` none), on one
// machine in one run, in alternating rounds; medians reported. Then the request log's write cost and its
// queries at a million rows. Writes docs/performance.md (full runs)
// and bench/results/<time>.json. `--save-baseline` also keeps the figures as bench/baseline.json, which
// later reports show as the "before" column. `--profile` writes a CPU profile of Gatehouse under load;
// `--from bench/results/<time>.json` renders the page again from a saved run. `--check` exits 1 when any
// figure misses its target on docs/performance.md (a run without it always exits 0). `--chunks-only` measures
// only the chunk path (a stream of 100k tiny writes, bench/chunk-cost.ts) and prints it, writing nothing.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { Pool } from 'undici';
import { DATABASE_FILE } from '../src-main/store/database.js';
import { bundleReference, bundleServers, REPO_ROOT, sampleRss, startServer, type ServerProcess } from './processes.js';
import { COMPLETION_BODY, loadWithAutocannon, median, timeStreams, type LoadResult, type Target } from './load.js';
import { createLargeLog, logQueries, measureLogWrites, timeListCalls, toSearchParams } from './log-cost.js';
import { dialectVariants, geminiVariants, measureVariants } from './variants.js';
import { measureUsageQueries } from './usage-cost.js';
import { measureMcpCall } from './mcp-cost.js';
import { measureTeam } from './team.js';
import { onInterrupt } from './interrupt.js';
import { missedTargets, renderReport, summarize, type BenchResults } from './report.js';
import { measureChunkPath, measureChunkScaling, TINY_WRITES, type ChunkScalingTarget, type ChunkTarget } from './chunk-cost.js';

const args = new Set(process.argv.slice(2));
const quick = args.has('--quick');
const plan = quick
  ? { rounds: 1, loadSeconds: 3, singleSeconds: 2, warmSeconds: 1, ttfbStreams: 100, longStreams: 10, settleSeconds: 3, logRows: 200_000, queryRepeats: 3 }
  : { rounds: 5, loadSeconds: 4, singleSeconds: 3, warmSeconds: 2, ttfbStreams: 300, longStreams: 20, settleSeconds: 5, logRows: 1_000_000, queryRepeats: 7 };
const LONG_STREAM_CHUNKS = 1000;
const GATEWAY_KEY = 'gh-bench-gateway-key-0123456789';
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const PROVIDER_TOKEN = 'sk-bench-provider-token-0000000000';
const MB = 1024 * 1024;

const say = (line: string) => process.stdout.write(`${line}\n`);

function gatehouseEnv(dataDir: string): NodeJS.ProcessEnv {
  return {
    GATEWAY_API_KEY: GATEWAY_KEY,
    GATEHOUSE_ADMIN_TOKEN: ADMIN_TOKEN,
    GATEHOUSE_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
    HOME: dataDir,
  };
}

function startGatehouse(cli: string, dataDir: string, nodeOptions: string[] = [], name = 'Gatehouse', extraArgs: string[] = []): Promise<ServerProcess> {
  return startServer(name, cli, { args: ['serve', '--port', '0', '--data-dir', dataDir, ...extraArgs], env: gatehouseEnv(dataDir), nodeOptions });
}

/**
 * The older commit measured alongside the current sources: absolute figures move between machines and
 * days, a build measured in the same rounds does not. `--against <ref>`, else bench/reference.json in a
 * full run; `--against none` (and a quick run without the flag) measures none.
 */
function chooseReference(): { ref: string; why?: string } | undefined {
  const pinned = JSON.parse(readFileSync(join(REPO_ROOT, 'bench', 'reference.json'), 'utf8')) as { ref: string; why: string };
  const index = process.argv.indexOf('--against');
  const ref = index === -1 ? (quick ? undefined : pinned.ref) : process.argv[index + 1];
  if (index !== -1 && (!ref || ref.startsWith('--'))) throw new Error('--against needs a git ref (or none)');
  if (ref === undefined || ref === 'none') return undefined;
  return { ref, why: ref === pinned.ref ? pinned.why : undefined };
}

function directTarget(port: number, name: 'direct' | 'bare proxy'): Target {
  return {
    name,
    url: (chunks) => `http://127.0.0.1:${port}${chunks ? `/chunks/${chunks}` : ''}/v1/completions`,
    // The same headers a Gatehouse client sends, so every target reads the same bytes.
    headers: (chunks) => gatehouseHeaders(port, chunks),
  };
}

function gatehouseHeaders(upstreamPort: number, chunks?: number): Record<string, string> {
  return {
    'x-gateway-api-key': GATEWAY_KEY,
    'x-gateway-provider': 'openai',
    'x-gateway-custom-host': `http://127.0.0.1:${upstreamPort}${chunks ? `/chunks/${chunks}` : ''}/v1`,
    authorization: `Bearer ${PROVIDER_TOKEN}`,
  };
}

/**
 * A stored gateway key with a daily budget and a rate limit far above what the run sends: every call
 * is checked and counted (the cost of limits), none is refused.
 */
async function createLimitedKey(port: number): Promise<string> {
  const admin = (path: string, method: string, body: unknown) =>
    fetch(`http://127.0.0.1:${port}/admin/api${path}`, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const created = (await (await admin('/gateway-keys', 'POST', { name: 'bench with limits' })).json()) as { id: string; key: string };
  const limited = await admin(`/keys/${created.id}/limits`, 'PUT', { rpm: 1_000_000_000, dailyUsd: 1_000_000 });
  if (limited.status !== 200) throw new Error(`Setting the bench key's limits answered ${limited.status}: ${await limited.text()}`);
  return created.key;
}

/** A stored gateway key, with limits as createLimitedKey() sets them (far above what the run sends) or none. */
async function createStoredKey(port: number, limits: boolean): Promise<string> {
  const created = (await adminCall(port, 'POST', '/gateway-keys', { name: limits ? 'bench with limits' : 'bench without limits' })) as { id: string; key: string };
  if (limits) await adminCall(port, 'PUT', `/keys/${created.id}/limits`, { rpm: 1_000_000_000, dailyUsd: 1_000_000 });
  return created.key;
}

/**
 * Two stored gateway keys alike but for a daily budget far above what the run spends: every call of the
 * budgeted one works out and holds its worst-case cost (a priced model) and gives it back, the other not.
 */
async function createBudgetPair(port: number): Promise<{ withBudget: string; without: string }> {
  const without = (await adminCall(port, 'POST', '/gateway-keys', { name: 'bench without limits' })) as { key: string };
  const budgeted = (await adminCall(port, 'POST', '/gateway-keys', { name: 'bench with a budget' })) as { id: string; key: string };
  await adminCall(port, 'PUT', `/keys/${budgeted.id}/limits`, { dailyUsd: 1_000_000 });
  return { withBudget: budgeted.key, without: without.key };
}

async function checkAnswers(target: Target): Promise<void> {
  const response = await fetch(target.url(), { method: 'POST', headers: { 'content-type': 'application/json', ...target.headers() }, body: target.body ?? COMPLETION_BODY });
  const text = await response.text();
  if (response.status !== 200 || !text.includes('cmpl-bench')) throw new Error(`${target.name} does not answer as expected: ${response.status} ${text}`);
}

/** Name of the route the routes phase calls (a model name no provider has). */
const BENCH_ROUTE = 'bench-route';

async function adminCall(port: number, method: string, path: string, body: unknown): Promise<unknown> {
  const response = await fetch(`http://127.0.0.1:${port}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(`admin ${method} ${path} answered ${response.status}: ${JSON.stringify(answer)}`);
  return answer;
}

/**
 * Two virtual keys for the upstream double, and a fallback route over them: the first target (healthy)
 * sends the upstream's model name in place of the route's. Returns the two targets of the routes phase.
 */
async function setUpRoutes(gatehousePort: number, upstreamPort: number): Promise<Target[]> {
  const customHost = `http://127.0.0.1:${upstreamPort}/v1`;
  const primary = (await adminCall(gatehousePort, 'POST', '/virtual-keys', { name: 'bench-primary', provider: 'openai', secret: PROVIDER_TOKEN, customHost })) as { key: string };
  await adminCall(gatehousePort, 'POST', '/virtual-keys', { name: 'bench-spare', provider: 'openai', secret: PROVIDER_TOKEN, customHost });
  await adminCall(gatehousePort, 'POST', '/routes', {
    name: BENCH_ROUTE,
    match: BENCH_ROUTE,
    strategy: 'fallback',
    targets: [{ key: 'bench-primary', model: 'gpt-3.5-turbo-instruct' }, { key: 'bench-spare', model: 'gpt-3.5-turbo-instruct' }],
  });
  const url = () => `http://127.0.0.1:${gatehousePort}/v1/completions`;
  return [
    { name: 'virtual key', url, headers: () => ({ authorization: `Bearer ${primary.key}` }) },
    { name: 'route', url, headers: () => ({ authorization: `Bearer ${GATEWAY_KEY}` }), body: COMPLETION_BODY.replace('gpt-3.5-turbo-instruct', BENCH_ROUTE) },
  ];
}

/**
 * The two virtual keys a Gemini client calls with in the Gemini rows: one whose provider is Gemini (AI
 * Studio's format) and one whose provider speaks OpenAI Chat, both on the upstream double.
 */
async function createGeminiKeys(gatehousePort: number, upstreamPort: number): Promise<{ gemini: string; chat: string }> {
  const gemini = (await adminCall(gatehousePort, 'POST', '/virtual-keys', { name: 'bench-gemini', provider: 'google', secret: 'AIza-bench-provider-key-000000000', customHost: `http://127.0.0.1:${upstreamPort}` })) as { key: string };
  const chat = (await adminCall(gatehousePort, 'POST', '/virtual-keys', { name: 'bench-gemini-to-chat', provider: 'openai', secret: PROVIDER_TOKEN, customHost: `http://127.0.0.1:${upstreamPort}/v1` })) as { key: string };
  return { gemini: gemini.key, chat: chat.key };
}

/** The proxies of the chunk-path row, each asking the upstream double for its stream of tiny writes. */
function chunkTargets(upstreamPort: number, bare: ServerProcess, gatehouse: ServerProcess, reference?: ServerProcess): ChunkTarget[] {
  const tinyHost = `http://127.0.0.1:${upstreamPort}/tiny/${TINY_WRITES}/v1`;
  const viaGatehouse = (name: 'Gatehouse' | 'reference', server: ServerProcess): ChunkTarget => ({
    name,
    url: `http://127.0.0.1:${server.port}/v1/completions`,
    headers: { ...gatehouseHeaders(upstreamPort), 'x-gateway-custom-host': tinyHost },
    process: server,
  });
  return [
    { name: 'bare proxy', url: `http://127.0.0.1:${bare.port}/tiny/${TINY_WRITES}/v1/completions`, headers: gatehouseHeaders(upstreamPort), process: bare },
    viaGatehouse('Gatehouse', gatehouse),
    ...(reference ? [viaGatehouse('reference', reference)] : []),
  ];
}

/** The proxies of the chunk-scaling row, each asking the upstream double for a stream of N events. */
function scalingTargets(upstreamPort: number, bare: ServerProcess, gatehouse: ServerProcess, reference?: ServerProcess): ChunkScalingTarget[] {
  const viaGatehouse = (name: 'Gatehouse' | 'reference', server: ServerProcess): ChunkScalingTarget => ({
    name,
    process: server,
    request: (chunks) => ({ url: `http://127.0.0.1:${server.port}/v1/completions`, headers: gatehouseHeaders(upstreamPort, chunks) }),
  });
  return [
    { name: 'bare proxy', process: bare, request: (chunks) => ({ url: `http://127.0.0.1:${bare.port}/chunks/${chunks}/v1/completions`, headers: gatehouseHeaders(upstreamPort, chunks) }) },
    viaGatehouse('Gatehouse', gatehouse),
    ...(reference ? [viaGatehouse('reference', reference)] : []),
  ];
}

/** `--chunks-only`: the chunk-path row alone, printed (the full run takes a quarter of an hour). */
async function chunksOnly(): Promise<void> {
  const bundles = await bundleServers();
  const chosenReference = chooseReference();
  const referenceBuild = chosenReference && { ...chosenReference, ...(await bundleReference(chosenReference.ref)) };
  const workDir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
  const servers: ServerProcess[] = [];
  try {
    const upstream = await startServer('upstream double', bundles.upstreamDouble);
    servers.push(upstream);
    const bare = await startServer('bare proxy', bundles.bareProxy, { env: { UPSTREAM_URL: `http://127.0.0.1:${upstream.port}` } });
    servers.push(bare);
    const gatehouse = await startGatehouse(bundles.gatehouseCli, join(workDir, 'gatehouse'));
    servers.push(gatehouse);
    const reference = referenceBuild && (await startGatehouse(referenceBuild.cli, join(workDir, 'reference'), [], 'reference'));
    if (reference) servers.push(reference);
    say(`Chunk path: a stream of ${TINY_WRITES.toLocaleString('en')} writes of 8 bytes, ${plan.rounds} round(s)…`);
    await measureChunkPath(chunkTargets(upstream.port, bare, gatehouse, reference), plan.rounds, say);
    say(`Chunk scaling: streams of 1,000 and 64,000 events, ${plan.rounds} round(s)…`);
    await measureChunkScaling(scalingTargets(upstream.port, bare, gatehouse, reference), plan.rounds, say);
  } finally {
    for (const server of servers.reverse()) await server.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
}

/** Each round visits every target, in a rotated order so none always runs first or last. */
async function inRounds<T>(targets: Target[], rounds: number, measure: (target: Target) => Promise<T>): Promise<Map<Target['name'], T[]>> {
  const results = new Map<Target['name'], T[]>(targets.map((target) => [target.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < targets.length; i++) {
      const target = targets[(i + round) % targets.length];
      results.get(target.name)!.push(await measure(target));
    }
  }
  return results;
}

function countLogRows(dataDir: string): number {
  const db = new Database(join(dataDir, DATABASE_FILE), { readonly: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM request_log').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

async function timeAdminQueries(baseUrl: string, queries: ReturnType<typeof logQueries>, repeats: number) {
  // undici's Pool rather than fetch: fetch's own overhead (several ms at first) would swamp the query.
  const pool = new Pool(baseUrl, { connections: 1 });
  const timeOne = async (search: string) => {
    const started = performance.now();
    const response = await pool.request({ path: `/admin/api/logs?${search}`, method: 'GET', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
    const body = (await response.body.json()) as { items: unknown[] };
    if (response.statusCode !== 200) throw new Error(`admin logs answered ${response.statusCode}`);
    return { ms: performance.now() - started, rows: body.items.length };
  };
  try {
    // Warms the connection and the client, on a path that touches no log row.
    for (let i = 0; i < 20; i++) await pool.request({ path: '/admin/api/health', method: 'GET', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }).then((r) => r.body.dump());
    const results = [];
    for (const { label, query } of queries) {
      const search = toSearchParams(query);
      const cold = await timeOne(search);
      const times: number[] = [];
      for (let i = 0; i < repeats; i++) times.push((await timeOne(search)).ms);
      results.push({ label, coldMs: cold.ms, medianMs: median(times), rows: cold.rows });
    }
    return results;
  } finally {
    await pool.close();
  }
}

/** `--from <results.json>`: renders docs/performance.md again from a saved run, without measuring. */
function renderSaved(file: string): void {
  const results = JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
  const baselineFile = join(REPO_ROOT, 'bench', 'baseline.json');
  const baseline = existsSync(baselineFile) ? (JSON.parse(readFileSync(baselineFile, 'utf8')) as BenchResults) : undefined;
  writeFileSync(join(REPO_ROOT, 'docs', 'performance.md'), renderReport(results, baseline).markdown);
  say(`Wrote docs/performance.md from ${file}`);
  say(summarize(results).ratioLine);
  checkTargets(results);
}

/**
 * `--check`: exits non-zero when a figure misses its target (the table on docs/performance.md), so a
 * script or CI job can gate on the benchmark. Without it a run always exits 0. Not part of `npm test`.
 */
function checkTargets(results: BenchResults): void {
  if (!args.has('--check')) return;
  const missed = missedTargets(summarize(results));
  if (missed.length === 0) {
    say('CHECK passed: every target met.');
    return;
  }
  say(`CHECK failed: ${missed.length} target(s) missed:`);
  for (const line of missed) say(`  - ${line}`);
  process.exitCode = 1;
}

async function main(): Promise<void> {
  const savedIndex = process.argv.indexOf('--from');
  if (savedIndex !== -1) return renderSaved(process.argv[savedIndex + 1]);
  if (args.has('--chunks-only')) return chunksOnly();
  const startedAt = Date.now();
  say(`Gatehouse benchmark (${quick ? 'quick' : 'full'} run)`);
  const bundles = await bundleServers();
  const chosenReference = chooseReference();
  const referenceBuild = chosenReference && { ...chosenReference, ...(await bundleReference(chosenReference.ref)) };
  if (referenceBuild) say(`Reference: Gatehouse at ${referenceBuild.sha} (${referenceBuild.ref}), bundled from git archive`);
  const workDir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-'));
  const gatehouseDataDir = join(workDir, 'gatehouse');
  const profileDir = join(REPO_ROOT, 'bench', 'results', 'profiles');
  const servers: ServerProcess[] = [];
  const forgetCleanup = onInterrupt(async () => {
    for (const server of servers.reverse()) await server.stop();
    rmSync(workDir, { recursive: true, force: true });
  });
  try {
    const upstream = await startServer('upstream double', bundles.upstreamDouble);
    servers.push(upstream);
    const bare = await startServer('bare proxy', bundles.bareProxy, { env: { UPSTREAM_URL: `http://127.0.0.1:${upstream.port}` } });
    servers.push(bare);
    const gatehouse = await startGatehouse(bundles.gatehouseCli, gatehouseDataDir, args.has('--profile') ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []);
    servers.push(gatehouse);
    const reference = referenceBuild && (await startGatehouse(referenceBuild.cli, join(workDir, 'reference'), [], 'reference'));
    if (reference) servers.push(reference);

    const targets: Target[] = [
      directTarget(upstream.port, 'direct'),
      { ...directTarget(bare.port, 'bare proxy'), headers: (chunks) => gatehouseHeaders(upstream.port, chunks) },
      {
        name: 'Gatehouse',
        url: () => `http://127.0.0.1:${gatehouse.port}/v1/completions`,
        headers: (chunks) => gatehouseHeaders(upstream.port, chunks),
      },
    ];
    const referenceTarget: Target | undefined = reference && {
      name: 'reference',
      url: () => `http://127.0.0.1:${reference.port}/v1/completions`,
      headers: (chunks) => gatehouseHeaders(upstream.port, chunks),
    };
    // A fourth proxying target, in the same rounds as the others.
    if (referenceTarget) targets.push(referenceTarget);
    const limitedKey = await createLimitedKey(gatehouse.port);
    const withLimits: Target = {
      name: 'Gatehouse with limits',
      url: targets[2].url,
      headers: (chunks) => ({ ...gatehouseHeaders(upstream.port, chunks), 'x-gateway-api-key': limitedKey }),
    };
    const budgetPair = await createBudgetPair(gatehouse.port);
    const keyTarget = (name: 'key without limits' | 'key with a budget', key: string): Target => ({
      name,
      url: targets[2].url,
      headers: (chunks) => ({ ...gatehouseHeaders(upstream.port, chunks), 'x-gateway-api-key': key }),
    });
    const budgetTargets = [keyTarget('key without limits', budgetPair.without), keyTarget('key with a budget', budgetPair.withBudget)];
    let gatehouseRequests = 0;
    for (const target of [...targets, withLimits, ...budgetTargets]) await checkAnswers(target);
    gatehouseRequests++;

    // Idle: started and served a few requests (code loaded), then left alone; the reference likewise.
    for (let i = 0; i < 50; i++) await checkAnswers(targets[2]);
    gatehouseRequests += 50;
    if (referenceTarget) for (let i = 0; i < 50; i++) await checkAnswers(referenceTarget);
    await sleep(2000);
    const idleRss = gatehouse.rss();
    const referenceIdleRss = reference?.rss();
    say(`Gatehouse idle RSS: ${(idleRss / MB).toFixed(1)} MB${referenceIdleRss === undefined ? '' : `; reference ${(referenceIdleRss / MB).toFixed(1)} MB`}`);

    // The peak covers every load phase: 32 connections, 1 connection and the streams.
    const rssUnderLoad = sampleRss(gatehouse);
    const referenceRssUnderLoad = reference && sampleRss(reference);
    say(`Warming up (${plan.warmSeconds} s at 32 connections each)…`);
    for (const target of targets) {
      const warm = await loadWithAutocannon(target, 32, plan.warmSeconds);
      if (target.name === 'Gatehouse') gatehouseRequests += warm.completed;
    }

    say(`Throughput: ${plan.rounds} round(s) × ${plan.loadSeconds} s at 32 connections…`);
    const proxyProcess: Partial<Record<Target['name'], ServerProcess>> = {
      'bare proxy': bare,
      Gatehouse: gatehouse,
      'Gatehouse with limits': gatehouse,
      'key without limits': gatehouse,
      'key with a budget': gatehouse,
      reference,
    };
    const throughput = await inRounds([...targets, withLimits, ...budgetTargets], plan.rounds, async (target) => {
      const proxy = proxyProcess[target.name];
      const cpuBefore = proxy?.cpuMs() ?? 0;
      const mainThreadBefore = proxy?.mainThreadCpuMs() ?? 0;
      const result = await loadWithAutocannon(target, 32, plan.loadSeconds);
      if (proxy) {
        result.proxyCpuUsPerRequest = ((proxy.cpuMs() - cpuBefore) * 1000) / result.completed;
        result.proxyMainThreadCpuUsPerRequest = ((proxy.mainThreadCpuMs() - mainThreadBefore) * 1000) / result.completed;
      }
      if (target.name.startsWith('Gatehouse')) gatehouseRequests += result.completed;
      const cpu = result.proxyCpuUsPerRequest === undefined ? '' : `  CPU ${result.proxyCpuUsPerRequest.toFixed(0)} µs/request (serving thread ${result.proxyMainThreadCpuUsPerRequest?.toFixed(0)})`;
      say(`  ${target.name.padEnd(21)} ${result.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${result.p50Ms} ms  p99 ${result.p99Ms} ms${cpu}${result.failures ? `  FAILURES ${result.failures}` : ''}`);
      return result;
    });

    const medianOf = (name: Target['name'], figure: (result: LoadResult) => number) => median(throughput.get(name)!.map(figure));
    const limitsRatio = medianOf('Gatehouse with limits', (r) => r.requestsPerSecond) / medianOf('Gatehouse', (r) => r.requestsPerSecond);
    // CPU per request is the steadier figure on a busy machine.
    const cpuWith = medianOf('Gatehouse with limits', (r) => r.proxyCpuUsPerRequest ?? NaN);
    const cpuWithout = medianOf('Gatehouse', (r) => r.proxyCpuUsPerRequest ?? NaN);
    say(`  A budget and a rate limit on the key: ${limitsRatio.toFixed(3)}× the throughput without (target ≥ 0.95×); CPU ${cpuWith.toFixed(0)} vs ${cpuWithout.toFixed(0)} µs/request`);
    const budgetRatio = medianOf('key with a budget', (r) => r.requestsPerSecond) / medianOf('key without limits', (r) => r.requestsPerSecond);
    say(
      `  A budget on a stored key (reservations on): ${budgetRatio.toFixed(3)}× the same key without limits (target ≥ 0.95×); CPU ${medianOf('key with a budget', (r) => r.proxyCpuUsPerRequest ?? NaN).toFixed(0)} vs ${medianOf('key without limits', (r) => r.proxyCpuUsPerRequest ?? NaN).toFixed(0)} µs/request`,
    );

    say(`Latency: ${plan.rounds} round(s) × ${plan.singleSeconds} s at 1 connection…`);
    const single = await inRounds(targets, plan.rounds, async (target) => {
      const result = await loadWithAutocannon(target, 1, plan.singleSeconds);
      if (target.name === 'Gatehouse') gatehouseRequests += result.completed;
      say(`  ${target.name.padEnd(11)} mean ${result.meanMs.toFixed(3)} ms${result.failures ? `  FAILURES ${result.failures}` : ''}`);
      return result;
    });

    say(`Streams: ${plan.ttfbStreams} short streams and ${plan.longStreams} streams of ${LONG_STREAM_CHUNKS} chunks per target and round…`);
    const streams = await inRounds(targets, plan.rounds, async (target) => {
      const short = await timeStreams(target, plan.ttfbStreams);
      const long = await timeStreams(target, plan.longStreams, LONG_STREAM_CHUNKS);
      if (target.name === 'Gatehouse') gatehouseRequests += short.length + long.length + 2;
      const result = { ttfbMs: median(short.map((t) => t.ttfbMs)), longStreamMs: median(long.map((t) => t.totalMs)) };
      say(`  ${target.name.padEnd(11)} first byte ${result.ttfbMs.toFixed(3)} ms  ${LONG_STREAM_CHUNKS} chunks ${result.longStreamMs.toFixed(2)} ms`);
      return result;
    });

    // Memory over the three proxying phases only, the same for both builds (the reference has no other
    // paths to load) and the same phases as on the page before the other paths were measured.
    const peakRss = rssUnderLoad.stop();
    const referencePeakRss = referenceRssUnderLoad?.stop();
    await sleep(plan.settleSeconds * 1000);
    const afterRss = gatehouse.rss();
    const referenceAfterRss = reference?.rss();
    // After the memory figures, so they stay those of the three proxying phases; the reference still runs.
    say(`Chunk path: a stream of ${TINY_WRITES.toLocaleString('en')} writes of 8 bytes per target and round…`);
    const chunkPath = await measureChunkPath(chunkTargets(upstream.port, bare, gatehouse, reference), plan.rounds, say);
    say(`Chunk scaling: streams of 1,000 and 64,000 events per target and round…`);
    const chunkScaling = await measureChunkScaling(scalingTargets(upstream.port, bare, gatehouse, reference), plan.rounds, say);
    say(`Gatehouse RSS: idle ${(idleRss / MB).toFixed(1)} MB, peak under load ${(peakRss / MB).toFixed(1)} MB, ${plan.settleSeconds} s after ${(afterRss / MB).toFixed(1)} MB`);
    let referenceResults: BenchResults['reference'];
    if (referenceBuild && reference) {
      const { ref, sha, why } = referenceBuild;
      referenceResults = { ref, sha, why, rss: { idle: referenceIdleRss!, peak: referencePeakRss!, after: referenceAfterRss! } };
      const { rss } = referenceResults;
      say(`Reference RSS: idle ${(rss.idle / MB).toFixed(1)} MB, peak under load ${(rss.peak / MB).toFixed(1)} MB, ${plan.settleSeconds} s after ${(rss.after / MB).toFixed(1)} MB`);
      // Nothing after this measures the reference: it leaves the machine to the phases that follow.
      await reference.stop();
      servers.splice(servers.indexOf(reference), 1);
    }

    say(`Other paths: ${plan.rounds} round(s) each, against Gatehouse's /v1/completions…`);
    const geminiKeys = await createGeminiKeys(gatehouse.port, upstream.port);
    const variants = await measureVariants(
      [...dialectVariants(gatehouse.port, upstream.port, { gatewayKey: GATEWAY_KEY, providerToken: PROVIDER_TOKEN }), ...geminiVariants(gatehouse.port, geminiKeys)],
      plan,
      say,
    );
    for (const variant of variants) gatehouseRequests += variant.sent;

    say(`Routes: ${plan.rounds} round(s) × ${plan.loadSeconds} s at 32 connections, virtual key vs a two-target fallback route…`);
    const routeTargets = await setUpRoutes(gatehouse.port, upstream.port);
    for (const target of routeTargets) {
      await checkAnswers(target);
      await loadWithAutocannon(target, 32, plan.warmSeconds);
    }
    const routeRounds = await inRounds(routeTargets, plan.rounds, async (target) => {
      const cpuBefore = gatehouse.cpuMs();
      const result = await loadWithAutocannon(target, 32, plan.loadSeconds);
      result.proxyCpuUsPerRequest = ((gatehouse.cpuMs() - cpuBefore) * 1000) / result.completed;
      gatehouseRequests += result.completed;
      say(`  ${target.name.padEnd(11)} ${result.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${result.p50Ms} ms  p99 ${result.p99Ms} ms  CPU ${result.proxyCpuUsPerRequest.toFixed(0)} µs/request${result.failures ? `  FAILURES ${result.failures}` : ''}`);
      return result;
    });
    const routes = { virtualKey: routeRounds.get('virtual key')!, route: routeRounds.get('route')! };
    const routeRatio = median(routes.route.map((r) => r.requestsPerSecond)) / median(routes.virtualKey.map((r) => r.requestsPerSecond));
    say(`  route / virtual key throughput: ${routeRatio.toFixed(3)}×`);

    await gatehouse.stop();
    servers.splice(servers.indexOf(gatehouse), 1);
    const loggedRows = countLogRows(gatehouseDataDir);
    say(`Request log: ${loggedRows} rows for about ${gatehouseRequests} requests answered`);

    // Four rounds: the balanced order of the team rows (bench/team.ts) is complete over four.
    const teamPlan = { ...plan, rounds: quick ? 1 : 4 };
    say(`Team mode: Gatehouse on PostgreSQL + Redis vs on SQLite, keys with and without limits, ${teamPlan.rounds} round(s)…`);
    let teamInstances = 0;
    const team = await measureTeam({
      // With --profile each team instance writes its own profile too, in a folder per instance.
      startGatehouse: (name, extraArgs) => {
        const instance = ++teamInstances;
        const profiling = args.has('--profile') ? ['--cpu-prof', `--cpu-prof-dir=${join(profileDir, `team-${instance}`)}`] : [];
        return startGatehouse(bundles.gatehouseCli, join(workDir, `team-${instance}`), profiling, name, extraArgs);
      },
      createKey: createStoredKey,
      headers: (key) => ({ ...gatehouseHeaders(upstream.port), 'x-gateway-api-key': key }),
      check: checkAnswers,
      plan: teamPlan,
      // Quick runs: a smaller log (the page says how many rows).
      log: { rows: quick ? 100_000 : 1_000_000, repeats: plan.queryRepeats, adminToken: ADMIN_TOKEN },
      say,
    });

    say('Log write cost…');
    const logWrites = await measureLogWrites(quick ? 10_000 : 50_000);
    say(`  ${logWrites.rowsPerSecond.toFixed(0)} rows/s; a batch of ${logWrites.batchSize} holds the event loop ${logWrites.msPerBatch.toFixed(1)} ms`);

    say(`Log at scale: inserting ${plan.logRows.toLocaleString('en')} rows…`);
    const large = createLargeLog(plan.logRows);
    say(`  inserted in ${large.insertSeconds.toFixed(1)} s; ${large.bytesPerRow.toFixed(0)} bytes per row on disk`);
    const queries = logQueries(large.rareTraceId, plan.logRows);
    const listCalls = await timeListCalls(large.dataDir, queries, plan.queryRepeats);
    const scaled = await startGatehouse(bundles.gatehouseCli, large.dataDir);
    servers.push(scaled);
    const adminCalls = await timeAdminQueries(`http://127.0.0.1:${scaled.port}`, queries, plan.queryRepeats);
    await scaled.stop();
    servers.splice(servers.indexOf(scaled), 1);
    rmSync(large.dataDir, { recursive: true, force: true });
    for (const [index, call] of adminCalls.entries()) {
      say(`  ${call.label.padEnd(40)} admin API ${call.medianMs.toFixed(1).padStart(7)} ms (cold ${call.coldMs.toFixed(1)})  list() ${listCalls[index].medianMs.toFixed(1).padStart(7)} ms  ${call.rows} rows`);
    }

    const usageRows = quick ? plan.logRows : 1_000_000;
    say(`Usage views: building ${usageRows.toLocaleString('en')} rows and their usage totals in a temp database…`);
    const usageCost = measureUsageQueries(usageRows, plan.queryRepeats);
    say(`  built in ${usageCost.buildSeconds.toFixed(1)} s (insert ${usageCost.insertSeconds.toFixed(1)} s); ${usageCost.totalsRows.toLocaleString('en')} daily total rows`);
    for (const query of usageCost.queries) say(`  ${query.label.padEnd(40)} ${query.medianMs.toFixed(1).padStart(7)} ms (cold ${query.coldMs.toFixed(1)})`);

    say('MCP: a tool call through /mcp/{server} against the same call made to the server directly…');
    const mcp = await measureMcpCall(quick ? 100 : 200, plan.rounds);
    say(`  median ${mcp.directMedianMs.toFixed(2)} ms directly, ${mcp.gatewayMedianMs.toFixed(2)} ms through Gatehouse: ${mcp.addedMedianMs.toFixed(2)} ms added`);

    const results: BenchResults = {
      mode: quick ? 'quick' : 'full',
      date: new Date(startedAt).toISOString(),
      durationSeconds: (Date.now() - startedAt) / 1000,
      plan: { ...plan, longStreamChunks: LONG_STREAM_CHUNKS },
      throughput: Object.fromEntries(throughput) as BenchResults['throughput'],
      single: Object.fromEntries(single) as BenchResults['single'],
      streams: Object.fromEntries(streams) as BenchResults['streams'],
      chunkPath,
      chunkScaling,
      rss: { idle: idleRss, peak: peakRss, after: afterRss, settleSeconds: plan.settleSeconds },
      reference: referenceResults,
      log: { rowsLogged: loggedRows, requestsAnswered: gatehouseRequests, writes: logWrites },
      scale: { rows: plan.logRows, insertSeconds: large.insertSeconds, bytesPerRow: large.bytesPerRow, admin: adminCalls, list: listCalls },
      variants,
      routes,
      usage: usageCost,
      mcp,
      team,
    };
    const baselineFile = join(REPO_ROOT, 'bench', 'baseline.json');
    const baseline = existsSync(baselineFile) ? (JSON.parse(readFileSync(baselineFile, 'utf8')) as BenchResults) : undefined;
    const report = renderReport(results, baseline);
    mkdirSync(join(REPO_ROOT, 'bench', 'results'), { recursive: true });
    writeFileSync(join(REPO_ROOT, 'bench', 'results', `${results.date.replace(/[:.]/g, '-')}.json`), JSON.stringify(results, null, 2));
    if (args.has('--save-baseline')) writeFileSync(baselineFile, `${JSON.stringify(results, null, 2)}\n`);
    if (!quick || args.has('--write-docs')) {
      mkdirSync(join(REPO_ROOT, 'docs'), { recursive: true });
      writeFileSync(join(REPO_ROOT, 'docs', 'performance.md'), report.markdown);
      say('Wrote docs/performance.md');
    }
    say(`Done in ${results.durationSeconds.toFixed(0)} s.`);
    say(summarize(results).ratioLine);
    checkTargets(results);
  } finally {
    forgetCleanup();
    for (const server of servers.reverse()) await server.stop();
    rmSync(workDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
