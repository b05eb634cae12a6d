// The team-mode rows of issue 23: one Gatehouse on PostgreSQL + Redis against one on SQLite, each called
// with a stored key without limits and one with a budget and a rate limit far above what the run sends
// (every call checked and counted, none refused), at 32 connections and at one. PostgreSQL and Redis are
// private instances started for the run with the test suite's helpers (a temporary cluster via
// initdb/pg_ctl as the postgres user, redis-server on a free port) and stopped after it, also on Ctrl-C.
// Without their binaries the rows are skipped with the reason. The reference build is not measured here:
// it may predate team mode.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgres, type TestPostgres } from '../test/helpers/postgres.js';
import { REDIS_SERVER, startRedis, type TestRedis } from '../test/helpers/redis.js';
import { loadWithAutocannon, median, type LoadResult, type Target } from './load.js';
import { onInterrupt } from './interrupt.js';
import { processesCpuMs, type ServerProcess } from './processes.js';
import { measureTeamLog, type TeamLogCost } from './team-log-cost.js';

export type TeamBackend = 'SQLite' | 'PostgreSQL + Redis';
export type TeamRowName = `${TeamBackend}, ${'no limits' | 'with limits'}`;
const ROW_NAMES: TeamRowName[] = ['SQLite, no limits', 'SQLite, with limits', 'PostgreSQL + Redis, no limits', 'PostgreSQL + Redis, with limits'];

export interface TeamResults {
  /** Why the rows were not measured (PostgreSQL or Redis missing); the rows are then empty. */
  skipped?: string;
  rounds: number;
  /** Per row: the 32-connection runs (CPU per request of that Gatehouse process included) and the 1-connection runs. */
  rows: Partial<Record<TeamRowName, { throughput: LoadResult[]; single: LoadResult[] }>>;
  /** The request log at scale on PostgreSQL, through the admin API (absent in runs from before it). */
  log?: TeamLogCost;
}

export interface TeamSetup {
  /** Starts a Gatehouse on a data dir of its own, with extra `serve` arguments. */
  startGatehouse(name: string, extraArgs: string[]): Promise<ServerProcess>;
  /** Makes a stored gateway key on that Gatehouse, with limits (never reached) or without. */
  createKey(port: number, limits: boolean): Promise<string>;
  /** The request's headers for a stored gateway key (the same upstream and body as the main rows). */
  headers(key: string): Record<string, string>;
  check(target: Target): Promise<void>;
  plan: { rounds: number; loadSeconds: number; singleSeconds: number; warmSeconds: number };
  /** The log at scale: how many rows, how many timed repeats of each query, and the admin token to ask with. */
  log: { rows: number; repeats: number; adminToken: string };
  say(line: string): void;
}

const PG_BIN_DIR = process.env.GATEHOUSE_PG_BIN ?? '/usr/lib/postgresql/15/bin';

/** Why team mode cannot be measured on this machine, or undefined when it can. */
function missingBackends(): string | undefined {
  if (process.env.GATEHOUSE_TEST_DATABASE_URL) return existsSync(REDIS_SERVER) ? undefined : `redis-server not found at ${REDIS_SERVER} (GATEHOUSE_TEST_REDIS_SERVER)`;
  if (!existsSync(join(PG_BIN_DIR, 'initdb'))) return `PostgreSQL not found: no ${join(PG_BIN_DIR, 'initdb')} (set GATEHOUSE_PG_BIN, or install Debian's postgresql)`;
  if (!existsSync(REDIS_SERVER)) return `redis-server not found at ${REDIS_SERVER} (install Debian's redis-server, or set GATEHOUSE_TEST_REDIS_SERVER)`;
  if (process.getuid?.() !== 0) return 'the private PostgreSQL cluster is started as the postgres user (runuser), which needs root; or set GATEHOUSE_TEST_DATABASE_URL to a server of your own';
  return undefined;
}

/**
 * The order of the targets in a round: a balanced Latin square (Williams' design for an even count: 0,
 * n-1, 1, n-2, 2, …, shifted by one each round). Over n rounds each target runs once in each place and right after each other
 * target once, so none always pays for what the one before it left behind: PostgreSQL's autovacuum of the
 * log it just wrote, or Redis and PostgreSQL still busy with its last calls. (A plain rotation would put
 * the team row with limits after the one without in every round.)
 */
export function balancedOrder(count: number, round: number): number[] {
  const first: number[] = [];
  for (let step = 0; first.length < count; step++) {
    first.push(step % 2 === 0 ? step / 2 : count - (step + 1) / 2);
  }
  return first.map((index) => (index + round) % count);
}

async function inBalancedRounds(targets: Target[], rounds: number, measure: (target: Target) => Promise<LoadResult>): Promise<Map<string, LoadResult[]>> {
  const results = new Map<string, LoadResult[]>(targets.map((target) => [target.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const index of balancedOrder(targets.length, round)) results.get(targets[index].name)!.push(await measure(targets[index]));
  }
  return results;
}

export async function measureTeam(setup: TeamSetup): Promise<TeamResults> {
  const { plan, say } = setup;
  const missing = missingBackends();
  if (missing) {
    say(`  skipped: ${missing}`);
    return { skipped: missing, rounds: 0, rows: {} };
  }
  let postgres: TestPostgres | undefined;
  let redis: TestRedis | undefined;
  const servers: ServerProcess[] = [];
  const stopAll = async () => {
    for (const server of servers.splice(0).reverse()) await server.stop();
    await redis?.close();
    redis = undefined;
    await postgres?.close();
    postgres = undefined;
  };
  // pg_ctl runs the server in a session of its own, so a Ctrl-C at the terminal never reaches it.
  const forget = onInterrupt(stopAll);
  try {
    postgres = await startPostgres();
    redis = await startRedis();
    const sqlite = await setup.startGatehouse('Gatehouse on SQLite', []);
    servers.push(sqlite);
    const team = await setup.startGatehouse('Gatehouse on PostgreSQL + Redis', ['--database-url', postgres.url, '--redis-url', redis.url]);
    servers.push(team);
    const serverOf: Record<TeamRowName, ServerProcess> = {
      'SQLite, no limits': sqlite,
      'SQLite, with limits': sqlite,
      'PostgreSQL + Redis, no limits': team,
      'PostgreSQL + Redis, with limits': team,
    };
    const targets: Target[] = [];
    for (const name of ROW_NAMES) {
      const server = serverOf[name];
      const key = await setup.createKey(server.port, name.endsWith('with limits'));
      targets.push({ name, url: () => `http://127.0.0.1:${server.port}/v1/completions`, headers: () => setup.headers(key) });
    }
    for (const target of targets) await setup.check(target);
    // Both processes are fresh (the main rows' Gatehouse has served for minutes by now): two passes, so
    // the first row measured is not the one that paid for the JIT's warming.
    const warmSeconds = Math.max(plan.warmSeconds, 2);
    say(`  warming up (2 × ${warmSeconds} s at 32 connections each)…`);
    for (let pass = 0; pass < 2; pass++) for (const target of targets) await loadWithAutocannon(target, 32, warmSeconds);

    say(`  ${plan.rounds} round(s) × ${plan.loadSeconds} s at 32 connections…`);
    const throughput = await inBalancedRounds(targets, plan.rounds, async (target) => {
      const server = serverOf[target.name as TeamRowName];
      const cpuBefore = server.cpuMs();
      const mainThreadBefore = server.mainThreadCpuMs();
      const redisBefore = processesCpuMs('redis-server');
      const postgresBefore = processesCpuMs('postgres');
      const result = await loadWithAutocannon(target, 32, plan.loadSeconds);
      result.proxyCpuUsPerRequest = ((server.cpuMs() - cpuBefore) * 1000) / result.completed;
      result.proxyMainThreadCpuUsPerRequest = ((server.mainThreadCpuMs() - mainThreadBefore) * 1000) / result.completed;
      result.redisCpuUsPerRequest = ((processesCpuMs('redis-server') - redisBefore) * 1000) / result.completed;
      result.postgresCpuUsPerRequest = ((processesCpuMs('postgres') - postgresBefore) * 1000) / result.completed;
      say(
        `    ${target.name.padEnd(32)} ${result.requestsPerSecond.toFixed(0).padStart(6)} req/s  p50 ${result.p50Ms} ms  p99 ${result.p99Ms} ms  ` +
          `CPU ${result.proxyCpuUsPerRequest.toFixed(0)} µs/request (serving thread ${result.proxyMainThreadCpuUsPerRequest.toFixed(0)}; ` +
          `Redis ${result.redisCpuUsPerRequest.toFixed(0)}, PostgreSQL ${result.postgresCpuUsPerRequest.toFixed(0)})${result.failures ? `  FAILURES ${result.failures}` : ''}`,
      );
      return result;
    });
    say(`  ${plan.rounds} round(s) × ${plan.singleSeconds} s at 1 connection…`);
    const single = await inBalancedRounds(targets, plan.rounds, async (target) => {
      const result = await loadWithAutocannon(target, 1, plan.singleSeconds);
      say(`    ${target.name.padEnd(32)} mean ${result.meanMs.toFixed(3)} ms${result.failures ? `  FAILURES ${result.failures}` : ''}`);
      return result;
    });
    const results: TeamResults = { rounds: plan.rounds, rows: {} };
    for (const name of ROW_NAMES) results.rows[name] = { throughput: throughput.get(name)!, single: single.get(name)! };
    const figures = teamFigures(results)!;
    say(
      `  PostgreSQL + Redis vs SQLite at 32 connections: ${figures.ratioNoLimits.toFixed(2)}× without limits, ${figures.ratioWithLimits.toFixed(2)}× with limits (target ≥ 0.8×); ` +
        `the limit check adds ${figures.limitCheckMs.team.toFixed(3)} ms at 1 connection on PostgreSQL + Redis (${figures.limitCheckMs.sqlite.toFixed(3)} ms on SQLite)`,
    );

    // The log at scale on the same PostgreSQL, in a database of its own; the two Gatehouses above are
    // stopped first so they take no CPU from the fill or the timed queries.
    for (const server of servers.splice(0).reverse()) await server.stop();
    say(`  Request log on PostgreSQL: ${setup.log.rows.toLocaleString('en')} rows, filled by SQL on the server, then the admin API's pages and Usage views…`);
    results.log = await measureTeamLog({
      databaseUrl: await postgres.newDatabase(),
      rows: setup.log.rows,
      repeats: setup.log.repeats,
      adminToken: setup.log.adminToken,
      startGatehouse: async (databaseUrl) => {
        const server = await setup.startGatehouse('Gatehouse on PostgreSQL, large log', ['--database-url', databaseUrl]);
        servers.push(server);
        return {
          port: server.port,
          stop: async () => {
            servers.splice(servers.indexOf(server), 1);
            await server.stop();
          },
        };
      },
      say,
    });
    return results;
  } finally {
    await stopAll();
    forget();
  }
}

export interface TeamFigures {
  requestsPerSecond: Record<TeamRowName, number>;
  singleMeanMs: Record<TeamRowName, number>;
  ratioNoLimits: number;
  ratioWithLimits: number;
  /** The limit check's added latency at one connection (with limits minus without), per backend. */
  limitCheckMs: { team: number; sqlite: number };
}

export function teamFigures(results: TeamResults | undefined): TeamFigures | undefined {
  if (!results || results.skipped || !results.rows['SQLite, no limits']) return undefined;
  const of = (pick: (runs: { throughput: LoadResult[]; single: LoadResult[] }) => number) =>
    Object.fromEntries(ROW_NAMES.map((name) => [name, pick(results.rows[name]!)])) as Record<TeamRowName, number>;
  const requestsPerSecond = of((runs) => median(runs.throughput.map((r) => r.requestsPerSecond)));
  const singleMeanMs = of((runs) => median(runs.single.map((r) => r.meanMs)));
  return {
    requestsPerSecond,
    singleMeanMs,
    ratioNoLimits: requestsPerSecond['PostgreSQL + Redis, no limits'] / requestsPerSecond['SQLite, no limits'],
    ratioWithLimits: requestsPerSecond['PostgreSQL + Redis, with limits'] / requestsPerSecond['SQLite, with limits'],
    limitCheckMs: {
      team: singleMeanMs['PostgreSQL + Redis, with limits'] - singleMeanMs['PostgreSQL + Redis, no limits'],
      sqlite: singleMeanMs['SQLite, with limits'] - singleMeanMs['SQLite, no limits'],
    },
  };
}

const fixed = (value: number, digits: number) => (Number.isFinite(value) ? value.toFixed(digits) : '–');

/** The SQLite figures of the same run the PostgreSQL log rows are shown beside. */
export interface SqliteLogFigures {
  scale?: { rows: number; admin: { label: string; medianMs: number }[] };
  usage?: { rows: number; queries: { label: string; medianMs: number }[] };
}

/** The log and Usage rows on PostgreSQL, each beside the same query's SQLite figure. */
function renderTeamLog(log: TeamLogCost, sqlite: SqliteLogFigures): string[] {
  const sqliteMs = (timings: { label: string; medianMs: number }[] | undefined, label: string) => {
    const found = timings?.find((timing) => timing.label === label);
    return found ? fixed(found.medianMs, 1) : '–';
  };
  const lines = [
    '### Request log and Usage on PostgreSQL',
    '',
    `${log.rows.toLocaleString('en')} rows in a fresh database of the same PostgreSQL, migrated by Gatehouse, filled by SQL on the server (generate_series) in ${fixed(log.fillSeconds, 1)} s: ` +
      "the SQLite log's mix of providers, models, statuses, errors, metadata and bodies (bench/log-cost.ts), with the Usage rows' 12 keys, client tools and prices over a year (bench/usage-cost.ts). " +
      "The log's indexes (the schema's own definitions: (key, time), (time), per filter, the tsvector GIN) are built after the insert, as pg_restore does; the usage totals are summed from the rows by SQL; then VACUUM ANALYZE. " +
      `${fixed(log.bytesPerRow, 0)} bytes per row on disk (table and indexes), ${log.totalsRows.toLocaleString('en')} daily total rows. ` +
      'A Gatehouse on that database (no Redis: one instance) is then asked through its admin API over HTTP, one connection, as the SQLite rows are. ' +
      `The SQLite column is the same query in this run (${sqlite.scale ? `${sqlite.scale.rows.toLocaleString('en')}-row log` : 'not measured'}; Usage views ${sqlite.usage ? `over ${sqlite.usage.rows.toLocaleString('en')} rows, through \`UsageStore\` without HTTP` : 'not measured'}).`,
    '',
    `Usage totals over the whole log (GET /admin/api/usage, a month view from the first day to the last) ${log.totalsEqualRows ? 'equal' : '**differ from**'} count(*) and the summed cost of the rows.`,
    '',
    '| query (50 rows a page) | PostgreSQL, admin API, median (ms) | first call (ms) | SQLite, admin API, median (ms) | rows |',
    '|---|---|---|---|---|',
  ];
  for (const call of log.admin) lines.push(`| ${call.label} | ${fixed(call.medianMs, 1)} | ${fixed(call.coldMs, 1)} | ${sqliteMs(sqlite.scale?.admin, call.label)} | ${call.rows ?? '–'} |`);
  lines.push('', '| Usage view | PostgreSQL, admin API, median (ms) | first call (ms) | SQLite, `UsageStore`, median (ms) |', '|---|---|---|---|');
  for (const view of log.usage) lines.push(`| ${view.label} | ${fixed(view.medianMs, 1)} | ${fixed(view.coldMs, 1)} | ${sqliteMs(sqlite.usage?.queries, view.label)} |`);
  lines.push('');
  return lines;
}

/** The section of docs/performance.md. */
/** An engine's CPU per request in a row's runs; '–' for runs from before it was measured or without /proc. */
function engineCpu(runs: LoadResult[], field: 'redisCpuUsPerRequest' | 'postgresCpuUsPerRequest'): string {
  const values = runs.map((run) => run[field]).filter((value): value is number => value !== undefined && Number.isFinite(value));
  return values.length === 0 ? '–' : fixed(median(values), 0);
}

export function renderTeam(results: TeamResults | undefined, sqlite: SqliteLogFigures = {}): string[] {
  if (!results) return [];
  const lines = ['## Team mode (PostgreSQL + Redis)', ''];
  if (results.skipped) {
    lines.push(`Not measured in this run: ${results.skipped}.`, '');
    return lines;
  }
  const figures = teamFigures(results)!;
  lines.push(
    'One Gatehouse on PostgreSQL + Redis (`--database-url`, `--redis-url`; private instances started for the run, fsync off as in the test suite) against one on SQLite in a data dir, ' +
      'both fresh, same upstream double and body as the rows above, each called with a stored gateway key: one without limits, one with a daily budget and a rate limit ' +
      'far above what the run sends (every call is checked and counted — in Redis in team mode — and none refused). ' +
      `${results.rounds} round(s) at 32 connections, then at 1, in a balanced order (over 4 rounds each row runs once in each place and right after each other row once); medians. The Gatehouse CPU column is the Gatehouse process alone; Redis's and PostgreSQL's are the next two ` +
      '(every redis-server and postgres process, the private instances of the run): on this machine they share its cores with Gatehouse, the upstream double and the load generator, ' +
      'so their CPU per call is throughput the Gatehouse does not get. ' +
      'Only the current build: the reference build is not measured in team mode (it may predate it).',
    '',
    '| | requests/s, 32 connections | vs SQLite, same key | p50 / p99, 32 connections (ms) | Gatehouse CPU per request (µs) | of which the serving thread (µs) | Redis CPU per request (µs) | PostgreSQL CPU per request (µs) | mean latency, 1 connection (ms) |',
    '|---|---|---|---|---|---|---|---|---|',
  );
  for (const name of ROW_NAMES) {
    const runs = results.rows[name]!;
    const sqliteName = name.replace('PostgreSQL + Redis', 'SQLite') as TeamRowName;
    const ratio = figures.requestsPerSecond[name] / figures.requestsPerSecond[sqliteName];
    lines.push(
      `| ${name} | ${fixed(figures.requestsPerSecond[name], 0)} | ${name.startsWith('SQLite') ? '–' : `${fixed(ratio, 2)}×`} | ` +
        `${median(runs.throughput.map((r) => r.p50Ms))} / ${median(runs.throughput.map((r) => r.p99Ms))} | ${fixed(median(runs.throughput.map((r) => r.proxyCpuUsPerRequest ?? NaN)), 0)} | ` +
        `${fixed(median(runs.throughput.map((r) => r.proxyMainThreadCpuUsPerRequest ?? NaN)), 0)} | ` +
        `${engineCpu(runs.throughput, 'redisCpuUsPerRequest')} | ${engineCpu(runs.throughput, 'postgresCpuUsPerRequest')} | ${fixed(figures.singleMeanMs[name], 3)} |`,
    );
  }
  lines.push(
    '',
    `The limit check's added latency at 1 connection (with limits minus without): ${fixed(figures.limitCheckMs.team, 3)} ms on PostgreSQL + Redis (one Redis round trip deciding the rate limit and holding the budget's reservation together), ` +
      `${fixed(figures.limitCheckMs.sqlite, 3)} ms on SQLite.`,
    '',
  );
  if (results.log) lines.push(...renderTeamLog(results.log, sqlite));
  return lines;
}

/** The targets of the page's table: team mode at ≥ 0.8× SQLite's throughput, with and without limits. */
export function teamChecks(results: TeamResults | undefined): { label: string; value: string; target: string; met: boolean }[] {
  const figures = teamFigures(results);
  if (!figures) return [];
  return [
    { label: 'team mode on PostgreSQL + Redis, throughput vs SQLite, key without limits (32 connections)', value: `${figures.ratioNoLimits.toFixed(2)}×`, target: '≥ 0.8×', met: figures.ratioNoLimits >= 0.8 },
    { label: 'team mode on PostgreSQL + Redis, throughput vs SQLite, key with limits (32 connections)', value: `${figures.ratioWithLimits.toFixed(2)}×`, target: '≥ 0.8×', met: figures.ratioWithLimits >= 0.8 },
    ...teamLogChecks(results!.log),
  ];
}

/** The SQLite log's targets, on PostgreSQL: newest page ≤ 20 ms, worst filtered page and slowest Usage view ≤ 50 ms. */
function teamLogChecks(log: TeamLogCost | undefined): { label: string; value: string; target: string; met: boolean }[] {
  if (!log) return [];
  const rows = `${log.rows.toLocaleString('en')}-row log`;
  const newest = log.admin.find((call) => call.label === 'newest 50')!;
  const worst = log.admin.filter((call) => call !== newest).reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
  const slowest = log.usage.reduce((a, b) => (b.medianMs > a.medianMs ? b : a));
  return [
    { label: `PostgreSQL: ${rows}: newest 50 (admin API)`, value: `${newest.medianMs.toFixed(1)} ms`, target: '≤ 20 ms', met: newest.medianMs <= 20 },
    { label: `PostgreSQL: ${rows}: worst filtered page (${worst.label})`, value: `${worst.medianMs.toFixed(1)} ms`, target: '≤ 50 ms', met: worst.medianMs <= 50 },
    { label: `PostgreSQL: ${rows}: slowest Usage view, admin API (${slowest.label})`, value: `${slowest.medianMs.toFixed(1)} ms`, target: '≤ 50 ms', met: slowest.medianMs <= 50 },
    { label: `PostgreSQL: ${rows}: Usage totals equal the sums of the rows`, value: log.totalsEqualRows ? 'yes' : 'no', target: 'yes', met: log.totalsEqualRows },
  ];
}
