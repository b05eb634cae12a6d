// `node --import tsx bench/responses-ws.ts [sessions]`: a three-turn agent session (a first turn with a
// Codex-sized prompt, then two tool results) through Gatehouse over the Responses WebSocket (one socket, later
// turns with `previous_response_id` and only their new input) against the same turns over HTTP (a streamed
// POST per turn carrying the whole conversation, what Codex sends after its fallback, on a kept-alive
// connection). Gatehouse, the Responses double and the client share this process: the figures compare the two
// transports on one machine in one run, in alternating order; they are not absolute. Prints the row.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import { WebSocket } from 'ws';
import { startGatehouse } from '../src-main/app.js';
import { median } from './load.js';

const SESSIONS = Number(process.argv[2] ?? 200);
const WARM_SESSIONS = 20;
const GATEWAY_KEY = 'gh-bench-gateway-key-0123456789';

/** A Responses double: a function call when the last item is not a tool result, else a short text; always streamed. */
function startDouble(): Promise<{ url: string; close(): void }> {
  let n = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const json = JSON.parse(Buffer.concat(chunks).toString()) as { input: { type?: string }[]; model: string };
      const id = `resp_bench_${++n}`;
      const item =
        json.input.at(-1)?.type === 'function_call_output'
          ? { id: `msg_${n}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', annotations: [], text: 'Done.' }] }
          : { id: `fc_${n}`, type: 'function_call', status: 'completed', call_id: `call_${n}`, name: 'exec_command', arguments: '{"cmd":"ls"}' };
      const response = (status: string, output: unknown[]) => ({ id, object: 'response', created_at: 1, status, model: json.model, output, usage: status === 'completed' ? { input_tokens: 900, output_tokens: 12, total_tokens: 912 } : null });
      let sequence = 0;
      const event = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: sequence++, ...data })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(event('response.created', { response: response('in_progress', []) }));
      res.write(event('response.output_item.done', { output_index: 0, item }));
      res.end(event('response.completed', { response: response('completed', [item]) }));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, close: () => server.close() })));
}

const message = (role: string, text: string) => ({ type: 'message', role, content: [{ type: 'input_text', text }] });
/** About what Codex's first turn carries: instructions and context of ~12 KB. */
const FIRST_INPUT = [message('developer', 'You are a coding agent. '.repeat(400)), message('developer', 'Sandbox: read-only. '.repeat(100)), message('user', 'List the files.')];
const BASE = { model: 'gpt-5-codex', store: false, tools: [{ type: 'function', name: 'exec_command', description: 'Runs a command', parameters: { type: 'object', properties: { cmd: { type: 'string' } } } }] };
const toolResult = (callId: string) => ({ type: 'function_call_output', call_id: callId, output: 'a.txt\nb.txt\n' });

interface Final {
  id: string;
  output: { call_id?: string }[];
}

/** The final response of an SSE stream's text. */
function finalOf(text: string): Final {
  const line = text.split('\n').find((candidate) => candidate.startsWith('data: ') && candidate.includes('"response.completed"'));
  return (JSON.parse(line!.slice(6)) as { response: Final }).response;
}

/** Gatehouse's gateway key, and the double named as the provider: the same headers on both transports. */
function headersFor(doubleUrl: string): Record<string, string> {
  return { authorization: 'Bearer sk-bench-provider', 'x-gateway-api-key': GATEWAY_KEY, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': doubleUrl };
}

async function overHttp(base: string, headers: Record<string, string>, agent: Agent): Promise<void> {
  let input: unknown[] = FIRST_INPUT;
  for (let turn = 0; turn < 3; turn++) {
    const answer = await fetch(`${base}/v1/responses`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ ...BASE, stream: true, input }), dispatcher: agent } as RequestInit);
    const final = finalOf(await answer.text());
    input = [...input, ...final.output, toolResult(final.output[0].call_id ?? 'call_x')];
  }
}

async function overSocket(base: string, headers: Record<string, string>): Promise<void> {
  const ws = new WebSocket(`${base.replace('http:', 'ws:')}/v1/responses`, { headers });
  await new Promise<void>((resolve, reject) => ws.once('open', () => resolve()).once('error', reject));
  let next: ((final: Final) => void) | undefined;
  ws.on('message', (data) => {
    const text = String(data);
    if (text.startsWith('{"type":"error"')) throw new Error(text);
    if (text.includes('"response.completed"')) next?.((JSON.parse(text) as { response: Final }).response);
  });
  let body: Record<string, unknown> = { ...BASE, input: FIRST_INPUT };
  for (let turn = 0; turn < 3; turn++) {
    const final = await new Promise<Final>((resolve) => {
      next = resolve;
      ws.send(JSON.stringify({ type: 'response.create', ...body }));
    });
    body = { ...BASE, previous_response_id: final.id, input: [toolResult(final.output[0].call_id ?? 'call_x')] };
  }
  ws.close();
}

const double = await startDouble();
const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-ws-'));
const gatehouse = await startGatehouse({ host: '127.0.0.1', port: 0, dataDir, env: { GATEWAY_API_KEY: GATEWAY_KEY, GATEHOUSE_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'), HOME: dataDir } });
const headers = headersFor(double.url);
const agent = new Agent({ connections: 1 });

const times = { http: [] as number[], socket: [] as number[] };
async function session(kind: 'http' | 'socket', keep: boolean): Promise<void> {
  const started = performance.now();
  if (kind === 'http') await overHttp(gatehouse.url, headers, agent);
  else await overSocket(gatehouse.url, headers);
  if (keep) times[kind].push(performance.now() - started);
}

for (let i = 0; i < WARM_SESSIONS; i++) {
  await session('http', false);
  await session('socket', false);
}
for (let i = 0; i < SESSIONS; i++) {
  // Alternating, so a change of the machine's load falls on both.
  if (i % 2) {
    await session('http', true);
    await session('socket', true);
  } else {
    await session('socket', true);
    await session('http', true);
  }
}
const http = median(times.http);
const socket = median(times.socket);
process.stdout.write(`three-turn session (median of ${SESSIONS}): WebSocket ${socket.toFixed(2)} ms, HTTP ${http.toFixed(2)} ms, WebSocket/HTTP ${(socket / http).toFixed(2)}\n`);
await gatehouse.stop();
await agent.close();
double.close();
rmSync(dataDir, { recursive: true, force: true });
