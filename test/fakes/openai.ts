// A local stand-in for an OpenAI-format provider (OpenAI, Groq, Ollama's /v1 ...), speaking OpenAI's
// wire format: JSON answers, `data:` SSE streams ending in `data: [DONE]`, `{error:{...}}` errors.
// Tests read what it received (URL, headers, exact body bytes) and can script what it answers.
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  json: Record<string, unknown>;
}

/** A scripted answer: return true when it handled the response itself. */
export type FakeBehaviour = (request: RecordedRequest, res: ServerResponse) => void | Promise<void>;

export interface OpenAIFake {
  /** Base URL including `/v1`, as a custom host. */
  baseUrl: string;
  origin: string;
  requests: RecordedRequest[];
  /** Answers the next request(s) with these behaviours, in order; then the default answer again. */
  enqueue(...behaviours: FakeBehaviour[]): void;
  /** Open sockets, for tests that check aborts reach the provider. */
  openConnections(): number;
  close(): Promise<void>;
}

export const completionText = (prompt: unknown) => `echo: ${typeof prompt === 'string' ? prompt : JSON.stringify(prompt)}`;

export function defaultAnswer(request: RecordedRequest, res: ServerResponse): void {
  const body = request.json;
  const isChat = request.url.endsWith('/chat/completions');
  const text = isChat ? 'Hello from the fake' : completionText(body.prompt);
  const usage = { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 };
  if (body.stream === true) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req_fake' });
    const words = text.split(' ');
    const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    words.forEach((word, i) => {
      const piece = (i ? ' ' : '') + word;
      const choice = isChat
        ? { index: 0, delta: i === 0 ? { role: 'assistant', content: piece } : { content: piece }, finish_reason: null }
        : { index: 0, text: piece, logprobs: null, finish_reason: null };
      const chunk = { id: 'cmpl-fake', object: isChat ? 'chat.completion.chunk' : 'text_completion', created: 1700000000, model: body.model, choices: [choice], ...(includeUsage ? { usage: null } : {}) };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    });
    const last = isChat ? { index: 0, delta: {}, finish_reason: 'stop' } : { index: 0, text: '', logprobs: null, finish_reason: 'stop' };
    res.write(`data: ${JSON.stringify({ id: 'cmpl-fake', object: isChat ? 'chat.completion.chunk' : 'text_completion', created: 1700000000, model: body.model, choices: [last] })}\n\n`);
    if (includeUsage) {
      res.write(`data: ${JSON.stringify({ id: 'cmpl-fake', object: isChat ? 'chat.completion.chunk' : 'text_completion', created: 1700000000, model: body.model, choices: [], usage })}\n\n`);
    }
    res.end('data: [DONE]\n\n');
    return;
  }
  const answer = isChat
    ? { id: 'chatcmpl-fake', object: 'chat.completion', created: 1700000000, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: text }, logprobs: null, finish_reason: 'stop' }], usage }
    : { id: 'cmpl-fake', object: 'text_completion', created: 1700000000, model: body.model, choices: [{ index: 0, text, logprobs: null, finish_reason: 'stop' }], usage };
  const json = JSON.stringify(answer);
  res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_fake' });
  res.end(json);
}

export function openAIError(status: number, message: string, type = 'invalid_request_error', code: string | null = null): FakeBehaviour {
  return (_request, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message, type, param: null, code } }));
  };
}

function readAll(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function startOpenAIFake(): Promise<OpenAIFake> {
  const requests: RecordedRequest[] = [];
  const queue: FakeBehaviour[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer(async (req, res) => {
    const body = await readAll(req);
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    } catch {
      // Recorded as is; the test decides whether that matters.
    }
    const request: RecordedRequest = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body, json };
    requests.push(request);
    const behaviour = queue.shift() ?? defaultAnswer;
    try {
      await behaviour(request, res);
    } catch {
      res.destroy();
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    baseUrl: `${origin}/v1`,
    origin,
    requests,
    enqueue: (...behaviours) => queue.push(...behaviours),
    openConnections: () => sockets.size,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
