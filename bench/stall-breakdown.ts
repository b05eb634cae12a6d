// `node --import tsx bench/stall-breakdown.ts [--mib 9.9] [--only <case>]`: where the serving thread's time goes
// while Gatehouse serves one worst-shaped large body (issue 35's stall bound: a small call must answer within
// 250 ms meanwhile). For each path a real gateway in this process is sent the body by a client in another
// process, which meanwhile calls the admin health endpoint every 5 ms and reports the slowest answer (the
// stall). The serving thread is CPU-profiled during the call (node:inspector, 100 µs samples) and every
// sample is charged to a stage by the innermost frame of the gateway's own code (or zod) on its stack:
// body read, UTF-8 check, duplicate-name scan, JSON.parse, validation, decode, token count, encode,
// stringify, log capture and redaction, GC. The provider is a sink in a third process that reads and drops
// the bytes. Last, JSON.parse of the same text is timed alone, the yardstick for every other stage.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startGatehouse, type RunningGatehouse } from '../src-main/app.js';

const MiB = 1024 * 1024;
const index = process.argv.indexOf('--mib');
const BODY_BYTES = Math.floor((index === -1 ? 9.9 : Number(process.argv[index + 1])) * MiB);
const onlyIndex = process.argv.indexOf('--only');
const ONLY = onlyIndex === -1 ? undefined : process.argv[onlyIndex + 1];
const GATEWAY_KEY = 'gh-bench-gateway-key-0123456789';
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';
const SRC_MAIN = `${fileURLToPath(new URL('../src-main/', import.meta.url))}`;

// ---- The processes around the gateway ---------------------------------------------------------------------------

/** The provider: reads the body, drops it, answers each path's smallest valid answer. */
const SINK = `
const { createServer } = require('node:http');
const usage = { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 };
const answer = (path) => {
  if (path.endsWith('/chat/completions')) return { id: 'c', object: 'chat.completion', created: 1, model: 'gpt-4o-mini', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }], usage };
  if (path.endsWith('/messages')) return { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'ok' }], stop_reason: 'end_turn', stop_sequence: null, usage: { input_tokens: 5, output_tokens: 1 } };
  if (path.includes(':generateContent')) return { candidates: [{ content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 1, totalTokenCount: 6 }, modelVersion: 'gemini-2.5-flash' };
  if (path.endsWith('/embeddings')) return { object: 'list', data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }], model: 'text-embedding-3-small', usage: { prompt_tokens: 1, total_tokens: 1 } };
  return { error: { message: 'no ' + path } };
};
const server = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    const text = JSON.stringify(answer(req.url.split('?')[0]));
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
`;

/**
 * The client: sends the large body (read from a file) and, while it is served, calls the health endpoint one
 * call after another; prints the large call's status and time and the slowest small call, as JSON.
 */
const CLIENT = `
const { readFileSync } = require('node:fs');
const [base, path, headersJson, bodyFile, adminToken] = process.argv.slice(1);
const body = readFileSync(bodyFile);
(async () => {
  // A call cut by the gateway (its connection guard may close a connection) is timed until it failed.
  const health = async () => {
    const started = performance.now();
    try {
      const response = await fetch(base + '/admin/api/health', { headers: { authorization: 'Bearer ' + adminToken } });
      await response.arrayBuffer();
    } catch {}
    return performance.now() - started;
  };
  for (let i = 0; i < 20; i++) await health();
  let done = false;
  let slowest = 0;
  const controls = (async () => {
    while (!done) {
      slowest = Math.max(slowest, await health());
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  const started = performance.now();
  const response = await fetch(base + path, { method: 'POST', headers: { 'content-type': 'application/json', ...JSON.parse(headersJson) }, body });
  const text = await response.text();
  const largeMs = performance.now() - started;
  done = true;
  await controls;
  process.stdout.write(JSON.stringify({ status: response.status, largeMs, slowest, answer: text.slice(0, 200) }));
})();
`;

function runNode(script: string, args: string[]): ChildProcess {
  return spawn(process.execPath, ['-e', script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
}

async function startSink(): Promise<{ url: string; child: ChildProcess }> {
  const child = runNode(SINK, []);
  const port = await new Promise<string>((resolve) => child.stdout!.once('data', (data: Buffer) => resolve(String(data).trim())));
  return { url: `http://127.0.0.1:${port}`, child };
}

async function runClient(base: string, path: string, headers: Record<string, string>, bodyFile: string): Promise<{ status: number; largeMs: number; slowest: number; answer: string }> {
  const child = runNode(CLIENT, [base, path, JSON.stringify(headers), bodyFile, ADMIN_TOKEN]);
  let out = '';
  child.stdout!.on('data', (data: Buffer) => (out += String(data)));
  await new Promise((resolve) => child.once('exit', resolve));
  return JSON.parse(out) as { status: number; largeMs: number; slowest: number; answer: string };
}

// ---- Worst shapes, as text (stringifying a large object here would cost this thread seconds) -----------------

const repeated = (item: string, count: number): string => Array(count).fill(item).join(',');
const fill = (item: string, frame: number): number => Math.floor((BODY_BYTES - frame) / (item.length + 1));
const within = (head: string, item: string, tail: string) => `${head}${repeated(item, fill(item, head.length + tail.length))}${tail}`;
const MESSAGE = '{"role":"user","content":"a"}';
const TINY = '{"a":1}';
const GEMINI_CONTENT = '{"role":"user","parts":[{"text":"a"}]}';

interface Case {
  name: string;
  path: string;
  key: 'openai' | 'anthropic' | 'google';
  body: () => string;
}

const CASES: Case[] = [
  { name: 'chat passthrough (OpenAI), one-word messages', path: '/v1/chat/completions', key: 'openai', body: () => within('{"model":"bench-model","messages":[', MESSAGE, ']}') },
  { name: 'chat translated to Anthropic, one-word messages', path: '/v1/chat/completions', key: 'anthropic', body: () => within('{"model":"bench-claude","max_tokens":16,"messages":[', MESSAGE, ']}') },
  { name: 'chat passthrough (OpenAI), many member names', path: '/v1/chat/completions', key: 'openai', body: () => within(`{"model":"bench-model","messages":[${MESSAGE}],"metadata_list":[`, TINY, ']}') },
  { name: '/v1/messages passthrough, one-word messages', path: '/v1/messages', key: 'anthropic', body: () => within('{"model":"bench-claude","max_tokens":16,"messages":[', MESSAGE, ']}') },
  { name: 'Gemini generateContent, one-word contents', path: '/v1beta/models/bench-gemini:generateContent', key: 'google', body: () => within('{"contents":[', GEMINI_CONTENT, ']}') },
  { name: '/v1/embeddings, many member names', path: '/v1/embeddings', key: 'openai', body: () => within('{"model":"text-embedding-3-small","input":"hi","metadata_list":[', TINY, ']}') },
  { name: '/mcp, many member names', path: '/mcp', key: 'openai', body: () => within('{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"list":[', TINY, ']}}') },
];

// ---- Stages ------------------------------------------------------------------------------------------------------

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** The stage of one frame of the gateway's code (or zod), or undefined for a frame that names none. */
function stageOf(file: string, fn: string): string | undefined {
  if (file.includes('/node_modules/zod/')) return 'validation (zod)';
  if (!file.startsWith(SRC_MAIN)) return undefined;
  const path = file.slice(SRC_MAIN.length);
  if (path === 'core/json-scan.ts') return 'duplicate-name scan';
  if (path === 'core/http-io.ts') return 'body read';
  if (path === 'gateway/request-body.ts') return fn === 'parseJsonBody' ? 'JSON.parse' : fn === 'decodeBodyText' ? 'UTF-8 check and text' : `request-body ${fn}`;
  if (/token-(count|estimate)|context-window/.test(path)) return 'token count';
  if (/redact/.test(path)) return 'log: redaction';
  if (/call-record|call-recording|request-log|log-store|refusal-log|call-log/.test(path)) return 'log: capture';
  if (path.startsWith('codecs/') || path.startsWith('gateway/ingress/') || path.startsWith('gateway/embeddings/')) {
    if (/^decode|^read|Request$|^parse/i.test(fn) && !/^encode/.test(fn)) return /^encode/.test(fn) ? 'encode' : `decode/read (${path.replace(/\.ts$/, '')})`;
    if (/encode|toWire|write/i.test(fn)) return `encode (${path.replace(/\.ts$/, '')})`;
    return `codec ${path.replace(/\.ts$/, '')}:${fn || '(anonymous)'}`;
  }
  return `${path.replace(/\.ts$/, '')}:${fn || '(anonymous)'}`;
}

/** Milliseconds per stage, by the innermost frame on each sample's stack that names one. */
function stagesOf(profile: Profile): Map<string, number> {
  const parent = new Map<number, number>();
  const byId = new Map<number, ProfileNode>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  // The innermost frame that names a stage; a stack with none is charged to its innermost frame.
  const labelOf = new Map<number, string | undefined>();
  const named = (id: number): string | undefined => {
    if (labelOf.has(id)) return labelOf.get(id);
    const { functionName, url } = byId.get(id)!.callFrame;
    let found = stageOf(url.replace(/^file:\/\//, ''), functionName);
    // The profiler's own calls, and the start of the bench's client process: not the gateway's work.
    if (url === 'node:inspector' || url === 'node:internal/child_process') found = '(bench)';
    if (found === undefined) {
      if (functionName === '(garbage collector)') found = 'GC';
      else if (functionName === '(idle)' || functionName === '(program)') found = functionName;
      else if (functionName === 'stringify') found = 'JSON.stringify';
      else if (parent.has(id)) found = named(parent.get(id)!);
    }
    labelOf.set(id, found);
    return found;
  };
  const label = (id: number): string => {
    const { functionName, url } = byId.get(id)!.callFrame;
    const name = named(id);
    if (name !== undefined) return name;
    // The caller that has a file: a native frame alone says little.
    let frame = byId.get(id)!.callFrame;
    for (let up = parent.get(id); frame.url === '' && up !== undefined; up = parent.get(up)) frame = byId.get(up)!.callFrame;
    return `unattributed: ${functionName || '(anonymous)'} in ${frame.url.split('/').slice(-2).join('/') || '(native)'}:${frame.functionName || '(anonymous)'}`;
  };
  const totals = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const name = label(id);
    totals.set(name, (totals.get(name) ?? 0) + profile.timeDeltas[i] / 1000);
  });
  return totals;
}

/** CPU time of this process's main thread (the serving thread), from /proc: unlike the clock, not stretched by other load. */
function servingThreadCpuMs(): number {
  const stat = readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

// ---- The run -------------------------------------------------------------------------------------------------

async function createKey(gateway: RunningGatehouse, body: Record<string, unknown>): Promise<string> {
  const response = await fetch(`${gateway.url}/admin/api/virtual-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 201) throw new Error(`creating a virtual key answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { key: string }).key;
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-stall-'));
  const sink = await startSink();
  const gateway = await startGatehouse({
    host: '127.0.0.1',
    port: 0,
    dataDir,
    env: { GATEWAY_API_KEY: GATEWAY_KEY, GATEHOUSE_ADMIN_TOKEN: ADMIN_TOKEN, GATEHOUSE_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'), HOME: dataDir },
  });
  const session = new Session();
  session.connect();
  try {
    const keys = {
      openai: await createKey(gateway, { name: 'openai', provider: 'openai', secret: 'sk-sink-0123456789', customHost: `${sink.url}/v1` }),
      anthropic: await createKey(gateway, { name: 'anthropic', provider: 'anthropic', secret: 'sk-ant-sink-0123456789', customHost: `${sink.url}/v1` }),
      google: await createKey(gateway, { name: 'google', provider: 'google', secret: 'AIza-sink-0123456789', customHost: sink.url }),
    };
    const headersOf = (key: Case['key']): Record<string, string> => (key === 'google' ? { 'x-goog-api-key': keys.google } : { authorization: `Bearer ${keys[key]}` });
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    const bodyFile = join(dataDir, 'large-body.json');
    process.stdout.write(`Bodies of ${(BODY_BYTES / MiB).toFixed(2)} MiB; times are the serving thread's (CPU profile, 100 µs samples)\n`);
    for (const bodyCase of CASES.filter((c) => ONLY === undefined || c.name.includes(ONLY))) {
      const text = bodyCase.body();
      writeFileSync(bodyFile, text);
      // Once unprofiled, so the large-body paths are compiled as in a running gateway.
      await runClient(gateway.url, bodyCase.path, headersOf(bodyCase.key), bodyFile);
      await session.post('Profiler.start');
      const cpuBefore = servingThreadCpuMs();
      const result = await runClient(gateway.url, bodyCase.path, headersOf(bodyCase.key), bodyFile);
      const cpuMs = servingThreadCpuMs() - cpuBefore;
      const { profile } = (await session.post('Profiler.stop')) as unknown as { profile: Profile };
      const stages = [...stagesOf(profile)].filter(([name]) => name !== '(idle)' && name !== '(bench)').sort((a, b) => b[1] - a[1]);
      // Samples are wall time, stretched when another process has the core: shares of the thread's CPU time instead.
      const sampled = stages.reduce((sum, [, ms]) => sum + ms, 0);
      // The serving thread's CPU time per parse, over five (the log writer's thread is busy with this body meanwhile).
      const parseStarted = servingThreadCpuMs();
      for (let i = 0; i < 5; i++) JSON.parse(text);
      const parseMs = (servingThreadCpuMs() - parseStarted) / 5;
      process.stdout.write(
        `\n${bodyCase.name} (${bodyCase.path}): answered ${result.status} in ${result.largeMs.toFixed(0)} ms; slowest small call ${result.slowest.toFixed(0)} ms; serving thread CPU ${cpuMs.toFixed(0)} ms; JSON.parse alone ${parseMs.toFixed(0)} ms CPU\n`,
      );
      if (result.status >= 400) process.stdout.write(`  answer: ${result.answer}\n`);
      for (const [name, sampledMs] of stages) {
        const share = sampledMs / sampled;
        if (share >= 0.005) process.stdout.write(`  ${(share * 100).toFixed(1).padStart(5)}%  ${(share * cpuMs).toFixed(0).padStart(6)} ms CPU  ${((share * cpuMs) / parseMs).toFixed(2).padStart(5)}× parse  ${name}\n`);
      }
    }
  } finally {
    session.disconnect();
    await gateway.stop();
    sink.child.kill();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
