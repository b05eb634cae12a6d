// Turns the benchmark's raw figures into the summary, the ratio line against the targets of issue 6 (and
// the line against the reference build, when the run had one), and docs/performance.md (generated, never
// typed by hand).
import { renderVariants, type VariantResult } from './variants.js';
import { cpus, totalmem, type as osType, release, arch } from 'node:os';
import type { LoadResult, Target } from './load.js';
import type { LogWriteCost } from './log-cost.js';
import type { UsageCost } from './usage-cost.js';
import type { McpCallCost } from './mcp-cost.js';
import type { ChunkPathCost, ChunkScaling } from './chunk-cost.js';
import { renderTeam, teamChecks, type TeamResults } from './team.js';
import { median } from './load.js';

/** The proxying targets every run measured. */
const TARGET_NAMES = ['direct', 'bare proxy', 'Gatehouse'] as const satisfies readonly Target['name'][];
type TargetName = (typeof TARGET_NAMES)[number];
/**
 * Figures per target: the three above always; 'Gatehouse with limits' (throughput rounds) and 'reference'
 * only in runs that measured them, so results saved before either existed still render.
 */
type PerTargetRecord<T> = Record<TargetName, T> & Partial<Record<'Gatehouse with limits' | 'key without limits' | 'key with a budget' | 'reference', T>>;
const MB = 1024 * 1024;

interface QueryTiming {
  label: string;
  coldMs: number;
  medianMs: number;
  rows: number;
}

export interface BenchResults {
  mode: 'quick' | 'full';
  date: string;
  durationSeconds: number;
  plan: Record<string, number>;
  throughput: PerTargetRecord<LoadResult[]>;
  single: PerTargetRecord<LoadResult[]>;
  streams: PerTargetRecord<{ ttfbMs: number; longStreamMs: number }[]>;
  /** One stream of 100k writes of 8 bytes through each proxy: CPU per chunk (absent in runs from before it). */
  chunkPath?: ChunkPathCost;
  /** Streams of 1,000 and 64,000 events through each proxy: CPU per chunk at each length (absent in runs from before it). */
  chunkScaling?: ChunkScaling;
  rss: { idle: number; peak: number; after: number; settleSeconds: number };
  /**
   * Gatehouse built from an older commit and measured as a fourth proxying target in the same rounds (its
   * figures are the 'reference' rows above); `why` is bench/reference.json's reason when the run used that ref.
   */
  reference?: { ref: string; sha: string; why?: string; rss: { idle: number; peak: number; after: number } };
  log: { rowsLogged: number; requestsAnswered: number; writes: LogWriteCost };
  scale: { rows: number; insertSeconds: number; bytesPerRow: number; admin: QueryTiming[]; list: QueryTiming[] };
  /** Other paths through Gatehouse, against its /v1/completions row (absent in runs from before them). */
  variants?: VariantResult[];
  /**
   * Routes: Gatehouse called with a virtual key (no route matches) against the same upstream through a
   * two-target fallback route whose first target is healthy (a gateway key and the route's name). Absent in
   * runs saved before routes existed.
   */
  routes?: { virtualKey: LoadResult[]; route: LoadResult[] };
  /** The Usage page's views over a large log (absent in runs saved before they were measured). */
  usage?: UsageCost;
  /** A tool call through /mcp/{server} against the same call made to the MCP server directly (absent in runs from before the MCP gateway). */
  mcp?: McpCallCost;
  /** Team mode (PostgreSQL + Redis) against SQLite, current build only (absent in runs from before it; `skipped` when PostgreSQL or Redis was missing). */
  team?: TeamResults;
}

interface PerTarget {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  singleMeanMs: number;
  ttfbMs: number;
  longStreamMs: number;
  cpuUsPerRequest: number;
  mainThreadCpuUsPerRequest: number;
}

/** One figure of the reference build against the same figure now. */
export interface ReferenceComparison {
  label: string;
  reference: string;
  now: string;
  /** Now is worse than the reference by no more than the noise tolerance (NOISE_FRACTION, NOISE_MS). */
  noWorse: boolean;
}

export interface Summary {
  perTarget: Record<TargetName, PerTarget> & { reference?: PerTarget };
  throughputRatio: number;
  addedLatencyMs: number;
  addedTtfbMs: number;
  addedLongStreamMs: number;
  peakRssMb: number;
  rssAfterOverIdle: number;
  newestPageMs: number;
  worstFilteredPageMs: number;
  worstFilteredLabel: string;
  checks: { label: string; value: string; target: string; met: boolean }[];
  ratioLine: string;
  /** Requests/s through the route over requests/s with the virtual key; undefined without a routes phase. */
  routeRatio?: number;
  /** The current figures against the reference build's; undefined when the run had no reference. */
  reference?: { sha: string; comparisons: ReferenceComparison[] };
}

/**
 * Single rounds are noisy, so "no worse" allows now to be worse than the reference by this fraction of the
 * reference's figure, and the millisecond rows by at least NOISE_MS.
 */
const NOISE_FRACTION = 0.03;
const NOISE_MS = 0.01;

/**
 * `npm run bench -- --check`: the targets this run missed, one line each (empty when every target was
 * met). The same targets as the table on docs/performance.md.
 */
export function missedTargets(summary: Pick<Summary, 'checks'>): string[] {
  return summary.checks.filter((check) => !check.met).map((check) => `${check.label}: ${check.value}, target ${check.target}`);
}

function figuresOf(results: BenchResults, name: TargetName | 'reference'): PerTarget {
  const throughput = results.throughput[name] ?? [];
  const single = results.single[name] ?? [];
  const streams = results.streams[name] ?? [];
  return {
    requestsPerSecond: median(throughput.map((r) => r.requestsPerSecond)),
    p50Ms: median(throughput.map((r) => r.p50Ms)),
    p99Ms: median(throughput.map((r) => r.p99Ms)),
    singleMeanMs: median(single.map((r) => r.meanMs)),
    ttfbMs: median(streams.map((s) => s.ttfbMs)),
    longStreamMs: median(streams.map((s) => s.longStreamMs)),
    cpuUsPerRequest: median(throughput.map((r) => r.proxyCpuUsPerRequest ?? NaN)),
    mainThreadCpuUsPerRequest: median(throughput.map((r) => r.proxyMainThreadCpuUsPerRequest ?? NaN)),
  };
}

/** The reference build's figures against the same figures now, each measured against the same direct and bare proxy rounds. */
function compareWithReference(
  results: BenchResults,
  perTarget: Summary['perTarget'],
  reference: PerTarget,
  rss: NonNullable<BenchResults['reference']>['rss'],
): ReferenceComparison[] {
  const { direct, Gatehouse: now } = perTarget;
  const bare = perTarget['bare proxy'];
  const settle = results.rss.settleSeconds;
  const measures: { label: string; was: number; now: number; show: (value: number) => string; higherIsBetter?: boolean; ms?: boolean }[] = [
    { label: 'throughput vs bare proxy, 32 connections (ratio, higher is better)', was: reference.requestsPerSecond / bare.requestsPerSecond, now: now.requestsPerSecond / bare.requestsPerSecond, show: (v) => `${fixed(v, 3)}×`, higherIsBetter: true },
    { label: 'Gatehouse requests/s, 32 connections (higher is better)', was: reference.requestsPerSecond, now: now.requestsPerSecond, show: (v) => fixed(v, 0), higherIsBetter: true },
    { label: 'Gatehouse CPU per request, 32 connections (lower is better)', was: reference.cpuUsPerRequest, now: now.cpuUsPerRequest, show: (v) => `${fixed(v, 0)} µs` },
    { label: 'of which the serving thread', was: reference.mainThreadCpuUsPerRequest, now: now.mainThreadCpuUsPerRequest, show: (v) => `${fixed(v, 0)} µs` },
    { label: 'added latency vs direct, 1 connection (lower is better)', was: reference.singleMeanMs - direct.singleMeanMs, now: now.singleMeanMs - direct.singleMeanMs, show: (v) => `${fixed(v, 3)} ms`, ms: true },
    { label: 'added stream first byte vs direct (lower is better)', was: reference.ttfbMs - direct.ttfbMs, now: now.ttfbMs - direct.ttfbMs, show: (v) => `${fixed(v, 3)} ms`, ms: true },
    { label: `added time for ${results.plan.longStreamChunks} chunks vs direct`, was: reference.longStreamMs - direct.longStreamMs, now: now.longStreamMs - direct.longStreamMs, show: (v) => `${fixed(v, 2)} ms`, ms: true },
    { label: 'RSS under load (peak)', was: rss.peak / MB, now: results.rss.peak / MB, show: (v) => `${fixed(v, 1)} MB` },
    { label: `RSS ${settle} s after load vs idle`, was: rss.after / rss.idle, now: results.rss.after / results.rss.idle, show: (v) => `${fixed(v, 2)}×` },
  ];
  return measures
    // Figures a platform cannot measure (the serving thread's CPU without /proc) are left out.
    .filter((measure) => Number.isFinite(measure.was) && Number.isFinite(measure.now))
    .map((measure) => {
      const worseBy = measure.higherIsBetter ? measure.was - measure.now : measure.now - measure.was;
      const tolerance = Math.max(NOISE_FRACTION * Math.abs(measure.was), measure.ms ? NOISE_MS : 0);
      return { label: measure.label, reference: measure.show(measure.was), now: measure.show(measure.now), noWorse: worseBy <= tolerance };
    });
}

export function summarize(results: BenchResults): Summary {
  const perTarget: Summary['perTarget'] = Object.fromEntries(TARGET_NAMES.map((name) => [name, figuresOf(results, name)])) as Record<TargetName, PerTarget>;
  let reference: Summary['reference'];
  if (results.reference) {
    perTarget.reference = figuresOf(results, 'reference');
    reference = { sha: results.reference.sha, comparisons: compareWithReference(results, perTarget, perTarget.reference, results.reference.rss) };
  }
  const gatehouse = perTarget.Gatehouse;
  const direct = perTarget.direct;
  const throughputRatio = gatehouse.requestsPerSecond / perTarget['bare proxy'].requestsPerSecond;
  const addedLatencyMs = gatehouse.singleMeanMs - direct.singleMeanMs;
  const addedTtfbMs = gatehouse.ttfbMs - direct.ttfbMs;
  const addedLongStreamMs = gatehouse.longStreamMs - direct.longStreamMs;
  const peakRssMb = results.rss.peak / MB;
  const rssAfterOverIdle = results.rss.after / results.rss.idle;
  const newest = results.scale.admin.find((q) => q.label === 'newest 50')!;
  const filtered = results.scale.admin.filter((q) => q !== newest);
  const worst = filtered.reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
  // Runs before the limits row existed have no such figures.
  const limited = results.throughput['Gatehouse with limits'];
  const limitsRatio = limited?.length ? median(limited.map((r) => r.requestsPerSecond)) / gatehouse.requestsPerSecond : undefined;
  // Runs before budgets held reservations have no such figures.
  const budgeted = results.throughput['key with a budget'];
  const unbudgeted = results.throughput['key without limits'];
  const budgetRatio = budgeted?.length && unbudgeted?.length ? median(budgeted.map((r) => r.requestsPerSecond)) / median(unbudgeted.map((r) => r.requestsPerSecond)) : undefined;
  const checks = [
    { label: 'throughput vs bare proxy (32 connections)', value: `${throughputRatio.toFixed(2)}×`, target: '≥ 0.9×', met: throughputRatio >= 0.9 },
    ...(limitsRatio === undefined
      ? []
      : [{ label: 'throughput with a budget and a rate limit on the key vs without (32 connections)', value: `${limitsRatio.toFixed(2)}×`, target: '≥ 0.95×', met: limitsRatio >= 0.95 }]),
    ...(budgetRatio === undefined
      ? []
      : [{ label: 'throughput of a key with a budget (reservations on) vs the same key without limits (32 connections)', value: `${budgetRatio.toFixed(2)}×`, target: '≥ 0.95×', met: budgetRatio >= 0.95 }]),
    { label: 'added latency, 1 connection (mean)', value: `${addedLatencyMs.toFixed(3)} ms`, target: '≤ 0.3 ms', met: addedLatencyMs <= 0.3 },
    { label: 'added stream first byte (median)', value: `${addedTtfbMs.toFixed(3)} ms`, target: '≤ 1 ms', met: addedTtfbMs <= 1 },
    { label: 'RSS under load (peak)', value: `${peakRssMb.toFixed(0)} MB`, target: '≤ 150 MB', met: peakRssMb <= 150 },
    { label: `RSS ${results.rss.settleSeconds} s after load vs idle`, value: `${rssAfterOverIdle.toFixed(2)}×`, target: '≤ 1.2×', met: rssAfterOverIdle <= 1.2 },
    { label: `${results.scale.rows.toLocaleString('en')}-row log: newest 50 (admin API)`, value: `${newest.medianMs.toFixed(1)} ms`, target: '≤ 20 ms', met: newest.medianMs <= 20 },
    { label: `${results.scale.rows.toLocaleString('en')}-row log: worst filtered page (${worst.label})`, value: `${worst.medianMs.toFixed(1)} ms`, target: '≤ 50 ms', met: worst.medianMs <= 50 },
  ];
  let routeRatio: number | undefined;
  if (results.routes) {
    routeRatio = median(results.routes.route.map((r) => r.requestsPerSecond)) / median(results.routes.virtualKey.map((r) => r.requestsPerSecond));
    checks.push({ label: 'throughput via a two-target fallback route vs the virtual key (32 connections)', value: `${routeRatio.toFixed(3)}×`, target: '≥ 0.95×', met: routeRatio >= 0.95 });
  }
  if (results.usage) {
    const slowest = results.usage.queries.reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
    checks.push({
      label: `${results.usage.rows.toLocaleString('en')}-row log: slowest Usage view (${slowest.label})`,
      value: `${slowest.medianMs.toFixed(1)} ms`,
      target: '≤ 50 ms',
      met: slowest.medianMs <= 50,
    });
  }
  checks.push(...teamChecks(results.team));
  const ratioLine =
    'RATIOS vs targets: ' +
    checks.map((check) => `${check.label.replace(/ \(.*\)$/, '')} ${check.value} (${check.target}) ${check.met ? 'ok' : 'MISSED'}`).join(' | ') +
    (reference
      ? `\nAGAINST ${reference.sha}: ` +
        reference.comparisons.map((row) => `${row.label.replace(/ \(.*\)$/, '')} ${row.now} (was ${row.reference}) ${row.noWorse ? 'ok' : 'WORSE'}`).join(' | ')
      : '');
  return {
    perTarget,
    throughputRatio,
    addedLatencyMs,
    addedTtfbMs,
    addedLongStreamMs,
    peakRssMb,
    rssAfterOverIdle,
    newestPageMs: newest.medianMs,
    worstFilteredPageMs: worst.medianMs,
    worstFilteredLabel: worst.label,
    checks,
    ratioLine,
    routeRatio,
    reference,
  };
}

function describeMachine(): string {
  const list = cpus();
  const model = list[0]?.model.trim() ?? 'unknown CPU';
  return `${list.length} × ${model}, ${(totalmem() / 1024 ** 3).toFixed(1)} GiB RAM, ${osType()} ${release()} (${arch()}), Node ${process.version}`;
}

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : '–');

/** The chunk-path section: CPU per chunk of a stream of many tiny writes, each proxy against the bare proxy. */
function renderChunkPath(chunkPath: ChunkPathCost | undefined): string[] {
  if (!chunkPath) return [];
  const bare = median((chunkPath.rounds['bare proxy'] ?? []).map((round) => round.cpuUsPerChunk));
  const lines = ['## Many tiny writes (the chunk path)', ''];
  lines.push(
    `One completion stream that the upstream double writes as ${chunkPath.writes.toLocaleString('en')} writes of 8 bytes (${fixed(chunkPath.bytes / MB, 1)} MB), as fast as it can, ` +
      'relayed by each proxy in turn (bench/chunk-cost.ts); medians of the rounds. Each write is its own chunk of the chunked encoding, so a proxy whose work per chunk ' +
      'grew with what it holds would show here as many times the floor.',
  );
  lines.push('');
  lines.push('| proxy | CPU per chunk (µs) | of which the serving thread (µs) | against the bare proxy | stream total (ms) |');
  lines.push('|---|---|---|---|---|');
  for (const [name, rounds] of Object.entries(chunkPath.rounds)) {
    const cpu = median(rounds.map((round) => round.cpuUsPerChunk));
    lines.push(
      `| ${name} | ${fixed(cpu, 2)} | ${fixed(median(rounds.map((round) => round.mainThreadUsPerChunk)), 2)} | ${fixed(cpu / bare, 2)}× | ${fixed(median(rounds.map((round) => round.totalMs)), 0)} |`,
    );
  }
  lines.push('');
  return lines;
}

/** The chunk-scaling section: CPU per chunk at 1,000 and 64,000 chunks; a proxy priced per byte spends the same at both. */
function renderChunkScaling(scaling: ChunkScaling | undefined): string[] {
  if (!scaling) return [];
  const lines = ['## CPU per chunk from 1,000 to 64,000 chunks', ''];
  lines.push(
    'Completion streams of 1,000 and 64,000 events, each event one write of the upstream double (bench/chunk-cost.ts), relayed by each proxy in turn; ' +
      'medians of the rounds. What a proxy does once per stream (the call, its log row) is a larger share of the short stream; what it does per chunk is the same at both lengths, ' +
      'unless its end-of-stream work rereads what it relayed.',
  );
  lines.push('');
  const names = Object.keys(scaling.sizes[0]?.targets ?? {});
  lines.push(`| chunks | ${names.map((name) => `${name} CPU / serving thread (µs per chunk)`).join(' | ')} |`);
  lines.push(`|---|${names.map(() => '---').join('|')}|`);
  for (const size of scaling.sizes) {
    lines.push(`| ${size.chunks.toLocaleString('en')} | ${names.map((name) => `${fixed(size.targets[name].cpuUsPerChunk, 2)} / ${fixed(size.targets[name].mainThreadUsPerChunk, 2)}`).join(' | ')} |`);
  }
  lines.push('');
  return lines;
}

export function renderReport(results: BenchResults, baseline?: BenchResults): { markdown: string } {
  const summary = summarize(results);
  const before = baseline ? summarize(baseline) : undefined;
  const { perTarget } = summary;
  const chunks = results.plan.longStreamChunks;
  const lines: string[] = [];
  lines.push('# Performance');
  lines.push('');
  lines.push('<!-- Generated by `npm run bench`; do not edit by hand. -->');
  lines.push('');
  lines.push(`Measured ${results.date} on ${describeMachine()} (${results.mode} run, ${fixed(results.durationSeconds, 0)} s).`);
  lines.push('');
  lines.push(
    'Every server runs in its own process on loopback: an upstream double answering a fixed completion (or a stream of small SSE events), ' +
      '`bench/bare-proxy.ts` (a bare `node:http` keep-alive reverse proxy: the floor) and Gatehouse (`gatehouse serve`, bundled from the current sources, ' +
      'request logging on, auth with a gateway key, full validation). autocannon loads each in turn, ' +
      `${results.plan.rounds} alternating round(s); figures are medians of the rounds. The load generator shares the machine's cores with the servers, ` +
      'so compare the columns with each other, not with other machines.',
  );
  lines.push('');
  lines.push('## Against the targets');
  lines.push('');
  lines.push(`| measure | ${before ? 'before (bench/baseline.json) | ' : ''}now | target | met |`);
  lines.push(`|---|${before ? '---|' : ''}---|---|---|`);
  // By label: a baseline from before a check existed has no figure for it.
  summary.checks.forEach((check) => {
    const earlier = before?.checks.find((candidate) => candidate.label === check.label)?.value ?? '–';
    lines.push(`| ${check.label} | ${before ? `${earlier} | ` : ''}${check.value} | ${check.target} | ${check.met ? 'yes' : '**no**'} |`);
  });
  const cpu = (of: Summary) => `${fixed(of.perTarget.Gatehouse.cpuUsPerRequest, 0)} µs (bare proxy ${fixed(of.perTarget['bare proxy'].cpuUsPerRequest, 0)} µs)`;
  lines.push(`| Gatehouse CPU per request, 32 connections (for reference) | ${before ? `${cpu(before)} | ` : ''}${cpu(summary)} | – | – |`);
  lines.push('');
  if (summary.reference && results.reference) {
    const { sha, why } = results.reference;
    lines.push(`## Against the reference build (${sha})`);
    lines.push('');
    lines.push(
      `Gatehouse from the sources at \`${sha}\`, bundled and run the same way (its own process and data directory), was a fourth target in the same alternating rounds ` +
        `on the same machine, so the machine's speed cancels out${why ? `; that commit is ${why}` : ''}. The rounds are noisy, so a row counts as no worse unless now is worse ` +
        `than the reference by more than ${NOISE_FRACTION * 100}% (the ms rows: by more than ${NOISE_FRACTION * 100}% or ${NOISE_MS} ms, whichever is larger).`,
    );
    lines.push('');
    lines.push(`| measure | reference (${sha}) | now | no worse? |`);
    lines.push('|---|---|---|---|');
    for (const row of summary.reference.comparisons) lines.push(`| ${row.label} | ${row.reference} | ${row.now} | ${row.noWorse ? 'yes' : '**no**'} |`);
    lines.push('');
  }
  lines.push('## Proxying');
  lines.push('');
  const columns = [...TARGET_NAMES.map((name) => perTarget[name]), ...(perTarget.reference ? [perTarget.reference] : [])];
  lines.push(`| | direct | bare proxy | Gatehouse |${results.reference ? ` Gatehouse at ${results.reference.sha} (reference) |` : ''}`);
  lines.push(`|---|---|---|---|${results.reference ? '---|' : ''}`);
  const row = (label: string, pick: (t: PerTarget) => string) => lines.push(`| ${label} | ${columns.map(pick).join(' | ')} |`);
  row('requests/s, 32 connections', (t) => fixed(t.requestsPerSecond, 0));
  row('p50 / p99 latency, 32 connections (ms)', (t) => `${t.p50Ms} / ${t.p99Ms}`);
  row('proxy CPU per request, 32 connections (µs)', (t) => fixed(t.cpuUsPerRequest, 0));
  // Saved runs from before this figure was measured leave the row out.
  if (Number.isFinite(summary.perTarget.Gatehouse.mainThreadCpuUsPerRequest)) {
    row('of which the serving thread (µs); the rest is the log writer and V8 helper threads', (t) => fixed(t.mainThreadCpuUsPerRequest, 0));
  }
  row('mean latency, 1 connection (ms)', (t) => fixed(t.singleMeanMs, 3));
  row('added latency vs direct, 1 connection (ms)', (t) => fixed(t.singleMeanMs - perTarget.direct.singleMeanMs, 3));
  row('stream first byte, median (ms)', (t) => fixed(t.ttfbMs, 3));
  row('added first byte vs direct (ms)', (t) => fixed(t.ttfbMs - perTarget.direct.ttfbMs, 3));
  row(`stream of ${chunks} small chunks, median total (ms)`, (t) => fixed(t.longStreamMs, 2));
  row(`added time for ${chunks} chunks vs direct (ms)`, (t) => fixed(t.longStreamMs - perTarget.direct.longStreamMs, 2));
  lines.push('');
  lines.push(
    `Gatehouse memory: ${fixed(results.rss.idle / MB, 1)} MB idle, ${fixed(results.rss.peak / MB, 1)} MB peak under load, ` +
      `${fixed(results.rss.after / MB, 1)} MB ${results.rss.settleSeconds} s after the load ended.` +
      (results.reference
        ? ` The reference (${results.reference.sha}): ${fixed(results.reference.rss.idle / MB, 1)} MB idle, ${fixed(results.reference.rss.peak / MB, 1)} MB peak, ` +
          `${fixed(results.reference.rss.after / MB, 1)} MB after.`
        : ''),
  );
  lines.push('');
  lines.push(...renderChunkPath(results.chunkPath));
  lines.push(...renderChunkScaling(results.chunkScaling));
  if (results.variants?.length) {
    lines.push('## Other paths through Gatehouse');
    lines.push('');
    lines.push(
      'Measured in their own alternating rounds against Gatehouse\'s `/v1/completions` row, same upstream double. The Gemini rows are what a Gemini client sends ' +
        '(`@google/genai`, Gemini CLI): the model in the path, a virtual key in `x-goog-api-key`; streams are `:streamGenerateContent?alt=sse` with ten fragments, ' +
        'timed to the last byte. Before measuring, the run checks that passthrough hands back the double\'s bytes unchanged.',
    );
    lines.push('');
    lines.push(...renderVariants(results.variants));
    lines.push('');
  }
  if (results.routes) {
    const routes = results.routes;
    const figures = (runs: LoadResult[]) => ({
      rps: median(runs.map((r) => r.requestsPerSecond)),
      p50: median(runs.map((r) => r.p50Ms)),
      p99: median(runs.map((r) => r.p99Ms)),
      cpu: median(runs.map((r) => r.proxyCpuUsPerRequest ?? NaN)),
    });
    const key = figures(routes.virtualKey);
    const route = figures(routes.route);
    lines.push('## Routes');
    lines.push('');
    lines.push(
      'Gatehouse with a virtual key (one route exists, and this model matches none) against the same calls made with a gateway key and a model name ' +
        'that a two-target `fallback` route sends to its first target (healthy), with another model name written into the body. Alternating rounds at 32 connections.',
    );
    lines.push('');
    lines.push('| | virtual key | route |');
    lines.push('|---|---|---|');
    lines.push(`| requests/s | ${fixed(key.rps, 0)} | ${fixed(route.rps, 0)} |`);
    lines.push(`| p50 / p99 latency (ms) | ${key.p50} / ${key.p99} | ${route.p50} / ${route.p99} |`);
    lines.push(`| Gatehouse CPU per request (µs) | ${fixed(key.cpu, 0)} | ${fixed(route.cpu, 0)} |`);
    lines.push(`| throughput ratio (route / virtual key) | – | ${fixed(summary.routeRatio ?? NaN, 3)}× |`);
    lines.push('');
  }
  lines.push('## The request log');
  lines.push('');
  const writes = results.log.writes;
  lines.push(
    `- Logging was on: ${results.log.rowsLogged.toLocaleString('en')} rows written for about ${results.log.requestsAnswered.toLocaleString('en')} requests answered during the run.`,
  );
  lines.push(
    `- Write cost: ${fixed(writes.rowsPerSecond, 0)} rows/s through \`RequestLog\` (one transaction per batch, measured on one thread); a batch of ${writes.batchSize} rows takes ${fixed(writes.msPerBatch, 1)} ms. ` +
      'In the app that time is spent on the log writer thread, not on the event loop that serves requests.',
  );
  lines.push(
    `- At scale: ${results.scale.rows.toLocaleString('en')} rows (inserted by SQL in ${fixed(results.scale.insertSeconds, 1)} s), ` +
      `${fixed(results.scale.bytesPerRow, 0)} bytes per row on disk, bodies and indexes included.`,
  );
  lines.push('');
  lines.push('| query (50 rows a page) | admin API, median (ms) | admin API, first call (ms) | `RequestLog.list`, median (ms) | rows |');
  lines.push('|---|---|---|---|---|');
  results.scale.admin.forEach((call, index) => {
    lines.push(`| ${call.label} | ${fixed(call.medianMs, 1)} | ${fixed(call.coldMs, 1)} | ${fixed(results.scale.list[index].medianMs, 1)} | ${call.rows} |`);
  });
  lines.push('');
  if (results.usage) {
    const usage = results.usage;
    lines.push('## Usage views');
    lines.push('');
    lines.push(
      `${usage.rows.toLocaleString('en')} calls over a year (12 keys, 8 models, 6 client tools) bulk-inserted in one transaction and added to the usage totals as the log writer adds a batch ` +
        `(${fixed(usage.buildSeconds, 1)} s, ${usage.totalsRows.toLocaleString('en')} daily total rows); each view timed through \`UsageStore\`, as the admin API runs it.`,
    );
    lines.push('');
    lines.push('| view | median (ms) | first call (ms) |');
    lines.push('|---|---|---|');
    for (const query of usage.queries) lines.push(`| ${query.label} | ${fixed(query.medianMs, 1)} | ${fixed(query.coldMs, 1)} |`);
    lines.push('');
  }
  if (results.mcp) {
    const mcp = results.mcp;
    lines.push('## MCP tool calls');
    lines.push('');
    lines.push(
      `${mcp.calls.toLocaleString('en')} \`tools/call\` of an echo tool (an MCP server over Streamable HTTP built with the SDK), one at a time on one session, ` +
        'made directly and through `/mcp/{server}` in alternating rounds; all in one process (bench/mcp-cost.ts).',
    );
    lines.push('');
    lines.push('| path | median (ms) | p99 (ms) |');
    lines.push('|---|---|---|');
    lines.push(`| the MCP server directly | ${fixed(mcp.directMedianMs, 2)} | ${fixed(mcp.directP99Ms, 2)} |`);
    lines.push(`| through Gatehouse /mcp/{server} | ${fixed(mcp.gatewayMedianMs, 2)} | ${fixed(mcp.gatewayP99Ms, 2)} |`);
    lines.push(`| added by Gatehouse | ${fixed(mcp.addedMedianMs, 2)} | |`);
    lines.push('');
  }
  lines.push(...renderTeam(results.team, { scale: results.scale, usage: results.usage }));
  lines.push('## Reproduce');
  lines.push('');
  lines.push(
    '`npm run bench` (about 14 minutes on a quiet machine; `npm run bench -- --quick` for a short run that leaves this page alone; ' +
      '`--against <ref>` measures another commit as the reference build, `--against none` none).',
  );
  lines.push('');
  lines.push('```');
  lines.push(summary.ratioLine);
  lines.push('```');
  lines.push('');
  return { markdown: lines.join('\n') };
}
