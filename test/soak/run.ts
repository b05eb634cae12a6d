// `npm run soak -- --minutes N`: runs `gatehouse serve` as a child process against a local provider double
// and drives mixed traffic at it (streams, answers, client aborts, provider errors, resets, timeouts, bad
// requests). It tracks the child's RSS and open file descriptors, checks every outcome, prints the figures,
// and exits non-zero on a leak (growth past the stated bounds after warm-up) or on any wrong answer.
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { AddressInfo } from 'node:net';
import { Agent, request } from 'undici';
import Database from 'better-sqlite3';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    concurrency: { type: 'string', default: '24' },
    'warmup-minutes': { type: 'string' },
    'sample-seconds': { type: 'string', default: '5' },
  },
  strict: true,
});

const durationMs = Number(args.minutes) * 60_000;
const concurrency = Number(args.concurrency);
// Warm-up: caches, JIT and pools settle first. A fifth of the run, at least 20 s, at most 2 minutes.
const warmupMs = args['warmup-minutes'] !== undefined ? Number(args['warmup-minutes']) * 60_000 : Math.min(120_000, Math.max(20_000, durationMs / 5));
const sampleMs = Number(args['sample-seconds']) * 1000;
if (!(durationMs > warmupMs) || !(concurrency > 0)) {
  process.stderr.write('Usage: npm run soak -- --minutes N [--concurrency C] [--warmup-minutes W]   (N must exceed the warm-up)\n');
  process.exit(2);
}

/**
 * The leak bounds: growth from the first quiet snapshot after warm-up to the last one. The V8 heap after
 * a full collection is the sharp one (objects the gateway holds on to); RSS also counts what SQLite and
 * the allocator keep once they have grown, so its bound is looser.
 */
const BOUNDS = { heapGrowthMb: 16, rssGrowthMb: 128, fdGrowth: 8 };
const GATEWAY_KEY = 'soak-gateway-key-0123456789abcdef';
// Not `sk-…`: redact.ts's fallback pattern would blank that out whatever the gateway's own redaction did.
const PROVIDER_TOKEN = '5f0c2a9e7b3d4c1f8a6e2d0b9c7a5e3f';

// ─── The provider double: the prompt names the scenario, so concurrent requests cannot get each other's answer.
let providerInFlight = 0;
const flakySeen = new Set<string>();

function chunk(text: string): string {
  return `data: ${JSON.stringify({ id: 'cmpl-soak', object: 'text_completion', created: 1, model: 'soak', choices: [{ index: 0, text, logprobs: null, finish_reason: null }] })}\n\n`;
}

async function providerAnswer(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const raw = await new Promise<string>((resolve) => {
    let text = '';
    req.on('data', (data: Buffer) => (text += data.toString()));
    req.on('end', () => resolve(text));
  });
  const body = JSON.parse(raw) as { prompt: string; stream?: boolean };
  const [scenario, id] = body.prompt.split(':');
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  switch (scenario) {
    case 'stream':
    case 'abort': {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const pieces = scenario === 'abort' ? 200 : 8;
      for (let i = 0; i < pieces && !res.destroyed; i++) {
        res.write(chunk(`${i} `));
        await sleep(scenario === 'abort' ? 20 : 3);
      }
      res.end('data: [DONE]\n\n');
      return;
    }
    case 'json':
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'cmpl-soak', object: 'text_completion', created: 1, model: 'soak', choices: [{ index: 0, text: `answer ${id}`, finish_reason: 'stop' }], usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } }));
      return;
    case 'flaky':
      // Fails the first attempt of each request, then answers: the gateway's retry must hide the failure.
      if (!flakySeen.has(id)) {
        flakySeen.add(id);
        res.writeHead(id.endsWith('7') ? 429 : 503, { 'content-type': 'application/json', 'retry-after': '0' });
        res.end('{"error":{"message":"try again","type":"api_error"}}');
        return;
      }
      flakySeen.delete(id);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: 'cmpl-soak', object: 'text_completion', choices: [{ index: 0, text: 'recovered' }] }));
      return;
    case 'reject':
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${req.headers.authorization}`, type: 'invalid_request_error' } }));
      return;
    case 'reset':
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(chunk('partial '));
      await sleep(5);
      res.socket?.destroy();
      return;
    case 'stall':
      // Never answers; the gateway's request timeout must end it (and close this socket).
      return new Promise<void>((resolve) => res.on('close', resolve));
    default:
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"unknown scenario","type":"api_error"}}');
  }
}

const provider = createServer((req, res) => {
  providerInFlight++;
  let counted = true;
  const done = () => {
    if (counted) providerInFlight--;
    counted = false;
  };
  res.on('close', done);
  providerAnswer(req, res).catch(() => res.destroy());
});

// ─── The gateway under test, as its own process.
const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-soak-'));
const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', '--import', './test/soak/memory-probe.ts', ...(process.env.SOAK_EXTRA_IMPORT ? ['--import', process.env.SOAK_EXTRA_IMPORT] : []), 'src-main/cli.ts', 'serve', '--port', '0', '--data-dir', dataDir], {
  env: { ...process.env, GATEWAY_API_KEY: GATEWAY_KEY, GATEHOUSE_MASTER_KEY: Buffer.alloc(32, 3).toString('base64'), GATEHOUSE_ADMIN_TOKEN: '' },
  stdio: ['ignore', 'pipe', 'pipe'],
});
let childOutput = '';
child.stdout.on('data', (data: Buffer) => (childOutput += data.toString()));
child.stderr.on('data', (data: Buffer) => (childOutput += data.toString()));
// 'close', not 'exit': it comes once the child's output has been read to the end.
const childExited = new Promise<{ code: number | null; signal: string | null }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal })));

interface Sample {
  atMs: number;
  rssMb: number;
  fds: number;
}

interface HeapFigures {
  /** V8 heap in use right after a full collection: what the gateway really holds on to. */
  heapUsedMb: number;
  externalMb: number;
  rssMb: number;
}

/** Asks the gateway (through memory-probe.ts) to collect garbage and report what is left. */
async function heapAfterGc(): Promise<HeapFigures> {
  const before = childOutput.length;
  child.kill('SIGUSR2');
  const deadline = performance.now() + 5_000;
  for (;;) {
    const match = /soak-memory (\{.*\})\n/.exec(childOutput.slice(before));
    if (match) {
      const figures = JSON.parse(match[1]) as { heapUsed: number; external: number; rss: number };
      const mb = (bytes: number) => bytes / 1024 / 1024;
      return { heapUsedMb: mb(figures.heapUsed), externalMb: mb(figures.external), rssMb: mb(figures.rss) };
    }
    if (performance.now() > deadline) throw new Error('The gateway did not report its memory (memory-probe.ts not loaded?)');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

function sampleChild(startedAt: number): Sample {
  const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN);
  return { atMs: performance.now() - startedAt, rssMb: rssKb / 1024, fds: readdirSync(`/proc/${child.pid}/fd`).length };
}

// ─── Traffic.
type Scenario =
  | 'stream' | 'json' | 'abort' | 'flaky' | 'reject' | 'reset' | 'stall' | 'bad-json' | 'bad-field' | 'deep' | 'no-key' | 'too-large'
  | 'huge-headers' | 'unknown-path' | 'admin-logs' | 'admin-events';
/** Scenarios that never reach the proxy, so leave no log row. */
const UNLOGGED: Scenario[] = ['huge-headers', 'unknown-path', 'admin-logs', 'admin-events'];
const WEIGHTS: [Scenario, number][] = [
  ['stream', 26], ['json', 20], ['abort', 8], ['flaky', 8], ['reject', 5], ['reset', 5], ['stall', 3],
  ['bad-json', 5], ['bad-field', 5], ['deep', 3], ['no-key', 4], ['too-large', 3], ['huge-headers', 3], ['unknown-path', 2],
  ['admin-logs', 2], ['admin-events', 2],
];
const totalWeight = WEIGHTS.reduce((sum, [, weight]) => sum + weight, 0);
function pickScenario(): Scenario {
  let roll = Math.random() * totalWeight;
  for (const [scenario, weight] of WEIGHTS) if ((roll -= weight) < 0) return scenario;
  return 'json';
}

const counts = new Map<Scenario, number>();
const failures: string[] = [];
const jsonLatencies: number[] = [];
let sent = 0;

let gatewayUrl = '';
let adminToken = '';
let providerBase = '';
let agent = new Agent({ connections: concurrency * 2, keepAliveTimeout: 10_000 });

function gatewayHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-gateway-api-key': GATEWAY_KEY,
    'x-gateway-provider': 'openai',
    'x-gateway-custom-host': providerBase,
    authorization: `Bearer ${PROVIDER_TOKEN}`,
    ...extra,
  };
}

async function post(path: string, body: string, headers: Record<string, string>, signal?: AbortSignal) {
  const response = await request(`${gatewayUrl}${path}`, { method: 'POST', headers, body, dispatcher: agent, signal });
  return { status: response.statusCode, text: await response.body.text() };
}

/** A raw exchange for what a well-behaved client library will not send. */
function raw(bytes: string): Promise<string> {
  const url = new URL(gatewayUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(bytes));
    let reply = '';
    socket.on('data', (data: Buffer) => {
      reply += data.toString();
      if (reply.includes('\r\n\r\n') && /content-length: (\d+)/i.test(reply)) {
        const length = Number(/content-length: (\d+)/i.exec(reply)![1]);
        if (Buffer.byteLength(reply.slice(reply.indexOf('\r\n\r\n') + 4)) >= length) socket.destroy();
      }
    });
    socket.on('error', () => undefined);
    socket.setTimeout(5_000, () => socket.destroy());
    socket.on('close', () => resolve(reply));
  });
}

function expectThat(scenario: Scenario, condition: boolean, detail: string): void {
  if (!condition && failures.length < 1_000) failures.push(`${scenario}: ${detail.slice(0, 300)}`);
}

function isErrorShape(text: string): boolean {
  try {
    const body = JSON.parse(text) as { error?: { message?: unknown; type?: unknown } };
    return typeof body.error?.message === 'string' && typeof body.error.type === 'string';
  } catch {
    return false;
  }
}

async function runOne(scenario: Scenario): Promise<void> {
  const id = String(sent++);
  counts.set(scenario, (counts.get(scenario) ?? 0) + 1);
  const completion = (stream: boolean, extra: Record<string, string> = {}) => post('/v1/completions', JSON.stringify({ model: 'soak', prompt: `${scenario}:${id}`, stream }), gatewayHeaders(extra));
  switch (scenario) {
    case 'stream': {
      const { status, text } = await completion(true);
      expectThat(scenario, status === 200 && text.endsWith('data: [DONE]\n\n') && text.includes('"7 "'), `${status} ${text.slice(-80)}`);
      return;
    }
    case 'json': {
      const started = performance.now();
      const { status, text } = await completion(false);
      jsonLatencies.push(performance.now() - started);
      expectThat(scenario, status === 200 && JSON.parse(text).choices[0].text === `answer ${id}`, `${status} ${text.slice(0, 120)}`);
      return;
    }
    case 'abort': {
      const controller = new AbortController();
      const response = await request(`${gatewayUrl}/v1/completions`, {
        method: 'POST', headers: gatewayHeaders(), body: JSON.stringify({ model: 'soak', prompt: `abort:${id}`, stream: true }), dispatcher: agent, signal: controller.signal,
      });
      // Leaves as soon as the first event arrives, mid-stream.
      await new Promise<void>((resolve) => {
        response.body.once('data', () => controller.abort());
        response.body.on('error', () => resolve());
        response.body.on('end', () => resolve());
        response.body.on('close', () => resolve());
      });
      return;
    }
    case 'flaky': {
      const { status, text } = await completion(false, { 'x-gateway-retry-count': '2' });
      expectThat(scenario, status === 200 && text.includes('recovered'), `${status} ${text.slice(0, 120)}`);
      return;
    }
    case 'reject': {
      const { status, text } = await completion(false);
      expectThat(scenario, status === 401 && isErrorShape(text) && !text.includes(PROVIDER_TOKEN), `${status} ${text.slice(0, 160)}`);
      return;
    }
    case 'reset': {
      const { status, text } = await completion(true);
      expectThat(scenario, status === 200 && text.includes('partial') && text.includes('stream_interrupted'), `${status} ${text.slice(-160)}`);
      return;
    }
    case 'stall': {
      const { status, text } = await completion(false, { 'x-gateway-request-timeout': '150' });
      expectThat(scenario, status === 504 && isErrorShape(text), `${status} ${text.slice(0, 160)}`);
      return;
    }
    case 'bad-json': {
      const { status, text } = await post('/v1/completions', '{"model": "soak", "prompt": ', gatewayHeaders());
      expectThat(scenario, status === 400 && isErrorShape(text), `${status} ${text.slice(0, 160)}`);
      return;
    }
    case 'bad-field': {
      const { status, text } = await post('/v1/completions', JSON.stringify({ model: 'soak', prompt: 'x', temperature: 7 }), gatewayHeaders());
      expectThat(scenario, status === 400 && JSON.parse(text).error.param === 'temperature', `${status} ${text.slice(0, 160)}`);
      return;
    }
    case 'deep': {
      const { status, text } = await post('/v1/completions', `{"model":"soak","prompt":"x","extra":${'['.repeat(5_000)}${']'.repeat(5_000)}}`, gatewayHeaders());
      expectThat(scenario, status === 400 && isErrorShape(text), `${status} ${text.slice(0, 160)}`);
      return;
    }
    case 'no-key': {
      const { status, text } = await post('/v1/completions', JSON.stringify({ model: 'soak', prompt: 'x' }), gatewayHeaders({ 'x-gateway-api-key': 'wrong-key' }));
      expectThat(scenario, status === 401 && isErrorShape(text), `${status} ${text.slice(0, 160)}`);
      return;
    }
    case 'too-large': {
      const reply = await raw(
        `POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${64 * 1024 * 1024}\r\nx-gateway-api-key: ${GATEWAY_KEY}\r\n\r\n{"model":"soak","prompt":"`,
      );
      expectThat(scenario, /^HTTP\/1\.1 413 /.test(reply), reply.slice(0, 160));
      return;
    }
    case 'huge-headers': {
      const reply = await raw(`GET /admin/api/health HTTP/1.1\r\nHost: 127.0.0.1\r\nx-padding: ${'p'.repeat(80 * 1024)}\r\n\r\n`);
      expectThat(scenario, /^HTTP\/1\.1 431 /.test(reply), reply.slice(0, 160));
      return;
    }
    case 'admin-logs': {
      const response = await request(`${gatewayUrl}/admin/api/logs?limit=20&q=json`, { headers: { authorization: `Bearer ${adminToken}` }, dispatcher: agent });
      const text = await response.body.text();
      expectThat(scenario, response.statusCode === 200 && Array.isArray(JSON.parse(text).items), `${response.statusCode} ${text.slice(0, 160)}`);
      return;
    }
    case 'admin-events': {
      // A UI that opens the live log and leaves: its listener must go with it.
      const controller = new AbortController();
      const response = await request(`${gatewayUrl}/admin/api/events`, { headers: { authorization: `Bearer ${adminToken}` }, dispatcher: agent, signal: controller.signal });
      await new Promise<void>((resolve) => {
        response.body.once('data', () => setTimeout(() => controller.abort(), 50));
        response.body.on('error', () => resolve());
        response.body.on('close', () => resolve());
      });
      expectThat(scenario, response.statusCode === 200, `${response.statusCode}`);
      return;
    }
    case 'unknown-path': {
      const { status, text } = await post('/v1/nothing-here', '{}', gatewayHeaders());
      expectThat(scenario, status === 404 && isErrorShape(text), `${status} ${text.slice(0, 160)}`);
      return;
    }
  }
}

let pausedUntilQuiet: Promise<void> | null = null;
let active = 0;
let stopping = false;

async function worker(): Promise<void> {
  while (!stopping) {
    if (pausedUntilQuiet) {
      await pausedUntilQuiet;
      continue;
    }
    const scenario = pickScenario();
    active++;
    try {
      await runOne(scenario);
    } catch (error) {
      if (scenario !== 'abort' && scenario !== 'admin-events') expectThat(scenario, false, `threw ${(error as Error).message}`);
    } finally {
      active--;
    }
  }
}

/**
 * Stops traffic, lets every call finish, closes idle connections on both sides, then samples: the
 * figures then hold no in-flight sockets, so growth between two of them is what stayed behind.
 */
async function quietSnapshot(startedAt: number, label: string, waitForWorkers: () => Promise<void>): Promise<Sample & { providerInFlight: number; heap: HeapFigures }> {
  let resume!: () => void;
  pausedUntilQuiet = new Promise<void>((resolve) => (resume = resolve));
  await waitForWorkers();
  await agent.close();
  agent = new Agent({ connections: concurrency * 2, keepAliveTimeout: 10_000 });
  provider.closeIdleConnections();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const heap = await heapAfterGc();
  const sample = { ...sampleChild(startedAt), providerInFlight, heap };
  process.stdout.write(
    `  quiet snapshot (${label}) at ${(sample.atMs / 1000).toFixed(0)} s: RSS ${sample.rssMb.toFixed(1)} MB, V8 heap after GC ${heap.heapUsedMb.toFixed(1)} MB ` +
      `(external ${heap.externalMb.toFixed(1)} MB), fds ${sample.fds}, provider calls open ${providerInFlight}\n`,
  );
  pausedUntilQuiet = null;
  resume();
  return sample;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : NaN;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] : NaN;
}

async function main(): Promise<number> {
  await new Promise<void>((resolve) => provider.listen(0, '127.0.0.1', resolve));
  providerBase = `http://127.0.0.1:${(provider.address() as AddressInfo).port}/v1`;
  gatewayUrl = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = /Gatehouse listening on (http:\/\/\S+)/.exec(childOutput);
      const tokenFile = /Admin token: kept in (\S+) \(/.exec(childOutput)?.[1];
      const token = tokenFile === undefined ? undefined : readFileSync(tokenFile, 'utf8').trim();
      if (match && token) {
        adminToken = token;
        resolve(match[1]);
      }
    };
    child.stdout.on('data', check);
    void childExited.then(({ code }) => reject(new Error(`gatehouse serve exited with ${code}: ${childOutput}`)));
  });
  process.stdout.write(
    `Soak: ${args.minutes} min against ${gatewayUrl} (pid ${child.pid}), ${concurrency} concurrent clients, warm-up ${(warmupMs / 1000).toFixed(0)} s.\n` +
      `Leak bounds after warm-up (quiet snapshots): V8 heap after GC growth ≤ ${BOUNDS.heapGrowthMb} MB, RSS growth ≤ ${BOUNDS.rssGrowthMb} MB, open fds growth ≤ ${BOUNDS.fdGrowth}.\n`,
  );

  const startedAt = performance.now();
  const samples: Sample[] = [sampleChild(startedAt)];
  const sampler = setInterval(() => {
    try {
      samples.push(sampleChild(startedAt));
    } catch {
      // The child is gone; the exit check below reports it.
    }
  }, sampleMs);
  let lastReport = 0;
  const reporter = setInterval(() => {
    const latest = samples.at(-1)!;
    const rate = (sent - lastReport) / 30;
    lastReport = sent;
    process.stdout.write(`  ${(latest.atMs / 1000).toFixed(0).padStart(5)} s: ${sent} requests (${rate.toFixed(0)}/s), RSS ${latest.rssMb.toFixed(1)} MB, fds ${latest.fds}, wrong answers ${failures.length}\n`);
  }, 30_000);

  let running: Promise<void>[] = [];
  const start = () => (running = Array.from({ length: concurrency }, () => worker()));
  // Workers park on the pause promise once their current request ends.
  const waitForWorkers = async () => {
    while (active > 0) await new Promise((resolve) => setTimeout(resolve, 10));
  };
  start();
  await new Promise((resolve) => setTimeout(resolve, warmupMs));
  const baseline = await quietSnapshot(startedAt, 'after warm-up', waitForWorkers);
  const warmSamplesFrom = samples.length;
  // A snapshot half way: growth that goes on in the second half too is a leak, not a one-off step.
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, (warmupMs + durationMs) / 2 - (performance.now() - startedAt))));
  const middle = await quietSnapshot(startedAt, 'half way', waitForWorkers);
  if (middle.providerInFlight > 0) failures.push(`${middle.providerInFlight} provider calls open half way with no client`);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, durationMs - (performance.now() - startedAt))));
  stopping = true;
  await Promise.all(running);
  const end = await quietSnapshot(startedAt, 'end', async () => undefined);
  clearInterval(sampler);
  clearInterval(reporter);
  const elapsedS = (performance.now() - startedAt) / 1000;

  // Stop the way a user does, and check the store that is left.
  const stopAt = performance.now();
  child.kill('SIGTERM');
  const exit = await childExited;
  const stopMs = performance.now() - stopAt;
  const db = new Database(join(dataDir, 'gatehouse.db'));
  const integrity = db.pragma('integrity_check', { simple: true });
  // A row of coalesced refusals without a valid key stands for `request_count` requests (refusal-log.ts).
  const rowCount = (db.prepare('SELECT count(*) AS n FROM request_log').get() as { n: number }).n;
  const logRows = (db.prepare('SELECT sum(coalesce(request_count, 1)) AS n FROM request_log').get() as { n: number | null }).n ?? 0;
  const rowsByStatus = db.prepare('SELECT status, sum(coalesce(request_count, 1)) AS n FROM request_log GROUP BY status ORDER BY status').all() as { status: number; n: number }[];
  const leakedSecretRows = (db.prepare('SELECT count(*) AS n FROM request_log WHERE instr(ifnull(request_body, \'\') || ifnull(response_body, \'\') || ifnull(error, \'\') || ifnull(request_headers, \'\'), ?) > 0').get(PROVIDER_TOKEN) as { n: number }).n;
  db.close();

  const warm = samples.slice(warmSamplesFrom);
  const rssGrowth = end.rssMb - baseline.rssMb;
  const heapGrowth = end.heap.heapUsedMb - baseline.heap.heapUsedMb;
  const fdGrowth = end.fds - baseline.fds;
  const problems: string[] = [];
  if (heapGrowth > BOUNDS.heapGrowthMb) problems.push(`the V8 heap after GC grew ${heapGrowth.toFixed(1)} MB after warm-up (bound ${BOUNDS.heapGrowthMb} MB)`);
  if (rssGrowth > BOUNDS.rssGrowthMb) problems.push(`RSS grew ${rssGrowth.toFixed(1)} MB after warm-up (bound ${BOUNDS.rssGrowthMb} MB)`);
  if (fdGrowth > BOUNDS.fdGrowth) problems.push(`open fds grew by ${fdGrowth} after warm-up (bound ${BOUNDS.fdGrowth})`);
  if (end.providerInFlight > 0) problems.push(`${end.providerInFlight} provider calls still open with no client (orphans)`);
  if (failures.length > 0) problems.push(`${failures.length} wrong answers`);
  if (exit.code !== 0) problems.push(`gatehouse serve exited with ${exit.code ?? exit.signal} on SIGTERM`);
  if (stopMs > 5_000) problems.push(`stopping took ${stopMs.toFixed(0)} ms (over 5 s)`);
  if (integrity !== 'ok') problems.push(`integrity_check: ${String(integrity)}`);
  // Every request that reached the proxy is in the log: a row each, or counted in a row of coalesced refusals.
  const expectedRows = sent - UNLOGGED.reduce((sum, scenario) => sum + (counts.get(scenario) ?? 0), 0);
  if (logRows !== expectedRows) problems.push(`the log accounts for ${logRows} requests of ${expectedRows} proxied ones`);
  if (leakedSecretRows > 0) problems.push(`${leakedSecretRows} log rows hold the provider token`);
  if (childOutput.includes(PROVIDER_TOKEN)) problems.push('the gateway printed the provider token');

  const byScenario = [...counts].sort((a, b) => b[1] - a[1]).map(([scenario, n]) => `${scenario} ${n}`).join(', ');
  process.stdout.write(
    [
      '',
      `Requests: ${sent} in ${elapsedS.toFixed(0)} s (${(sent / elapsedS).toFixed(0)}/s): ${byScenario}`,
      `Answer latency (json, through the gateway): p50 ${percentile(jsonLatencies, 50).toFixed(1)} ms, p99 ${percentile(jsonLatencies, 99).toFixed(1)} ms`,
      `V8 heap after GC: after warm-up ${baseline.heap.heapUsedMb.toFixed(1)} MB, half way ${middle.heap.heapUsedMb.toFixed(1)} MB, at end ${end.heap.heapUsedMb.toFixed(1)} MB (growth ${heapGrowth.toFixed(1)} MB)`,
      `RSS: start ${samples[0].rssMb.toFixed(1)} MB, quiet after warm-up ${baseline.rssMb.toFixed(1)} MB, half way ${middle.rssMb.toFixed(1)} MB, quiet at end ${end.rssMb.toFixed(1)} MB (growth ${rssGrowth.toFixed(1)} MB), under load median ${median(warm.map((s) => s.rssMb)).toFixed(1)} MB, max ${Math.max(...samples.map((s) => s.rssMb)).toFixed(1)} MB`,
      `Open fds: start ${samples[0].fds}, quiet after warm-up ${baseline.fds}, half way ${middle.fds}, quiet at end ${end.fds} (growth ${fdGrowth}), under load max ${Math.max(...samples.map((s) => s.fds))}`,
      `Provider calls left open at the end: ${end.providerInFlight}`,
      `Stop on SIGTERM: exit ${exit.code ?? exit.signal} after ${stopMs.toFixed(0)} ms; integrity_check ${String(integrity)}; ${logRows} requests in ${rowCount} log rows for ${expectedRows} proxied requests (${rowsByStatus.map((row) => `${row.status}: ${row.n}`).join(', ')})`,
      problems.length ? `FAILED:\n  ${problems.join('\n  ')}` : 'PASSED: no leak past the bounds, every answer as expected.',
      ...(failures.length ? ['First wrong answers:', ...failures.slice(0, 10).map((failure) => `  ${failure}`)] : []),
      '',
    ].join('\n'),
  );
  return problems.length ? 1 : 0;
}

main()
  .then(
    (code) => code,
    (error: unknown) => {
      process.stderr.write(`Soak failed to run: ${(error as Error).stack ?? String(error)}\n`);
      return 1;
    },
  )
  .then(async (code) => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await agent.close().catch(() => undefined);
    provider.closeAllConnections();
    provider.close();
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(code);
  });
