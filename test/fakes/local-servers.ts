// Stand-ins for the model servers people run on their own machine, answering their identifying
// endpoints the way the real ones document them (Ollama's /api/*, LM Studio's /api/v0/models,
// llama.cpp server's /props, vLLM's /version and max_model_len) and a prompt through the
// OpenAI-compatible /v1 paths every one of them serves. Also the things discovery must not list:
// a web server that is not a model server, and a server that accepts connections and never answers.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export type FakeKind = 'ollama' | 'lmstudio' | 'llamacpp' | 'vllm';

export interface FakeModel {
  id: string;
  size?: number;
  contextLength?: number;
}

export interface LocalRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  json: Record<string, unknown>;
}

export interface LocalServerFake {
  kind: FakeKind | 'web' | 'hanging';
  port: number;
  origin: string;
  models: FakeModel[];
  requests: LocalRequest[];
  close(): Promise<void>;
}

export const FAKE_LOCAL_MODELS: Record<FakeKind, FakeModel[]> = {
  ollama: [
    { id: 'llama3.2:latest', size: 2_019_393_189, contextLength: 131_072 },
    { id: 'qwen2.5-coder:7b', size: 4_683_087_332, contextLength: 32_768 },
  ],
  lmstudio: [
    { id: 'meta-llama-3.1-8b-instruct', contextLength: 131_072 },
    { id: 'qwen2-vl-7b-instruct', contextLength: 32_768 },
  ],
  llamacpp: [{ id: 'gemma-3-4b-it-Q4_K_M.gguf', size: 2_489_757_856, contextLength: 8192 }],
  vllm: [{ id: 'Qwen/Qwen2.5-1.5B-Instruct', contextLength: 32_768 }],
};

export const FAKE_VERSIONS: Record<FakeKind, string | null> = { ollama: '0.6.5', lmstudio: null, llamacpp: 'b5092-d3bd7193', vllm: '0.8.4' };

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

function readJson(req: IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>);
      } catch {
        resolve({});
      }
    });
  });
}

/** The reply a fake gives to a prompt: names the server, so a test knows which one answered. */
export const fakeReply = (kind: string, model: unknown) => `Hello from ${kind} running ${String(model)}`;

/** `POST /v1/chat/completions` and `/v1/completions`, as OpenAI-compatible servers answer them. */
function completion(kind: FakeKind, models: FakeModel[], path: string, body: Record<string, unknown>, res: ServerResponse): void {
  if (!models.some((model) => model.id === body.model)) {
    return send(res, 404, { error: { message: `model '${String(body.model)}' not found`, type: 'invalid_request_error', param: null, code: 'model_not_found' } });
  }
  const text = fakeReply(kind, body.model);
  const usage = { prompt_tokens: 9, completion_tokens: 6, total_tokens: 15 };
  const isChat = path.endsWith('/chat/completions');
  if (body.stream === true) {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    for (const [i, word] of text.split(' ').entries()) {
      const piece = (i ? ' ' : '') + word;
      const choice = isChat ? { index: 0, delta: i === 0 ? { role: 'assistant', content: piece } : { content: piece }, finish_reason: null } : { index: 0, text: piece, finish_reason: null };
      res.write(`data: ${JSON.stringify({ id: 'local-1', object: isChat ? 'chat.completion.chunk' : 'text_completion', created: 1_700_000_000, model: body.model, choices: [choice] })}\n\n`);
    }
    const last = isChat ? { index: 0, delta: {}, finish_reason: 'stop' } : { index: 0, text: '', finish_reason: 'stop' };
    res.write(`data: ${JSON.stringify({ id: 'local-1', object: isChat ? 'chat.completion.chunk' : 'text_completion', created: 1_700_000_000, model: body.model, choices: [last], usage })}\n\n`);
    res.end('data: [DONE]\n\n');
    return;
  }
  const choice = isChat ? { index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' } : { index: 0, text, finish_reason: 'stop' };
  send(res, 200, { id: 'local-1', object: isChat ? 'chat.completion' : 'text_completion', created: 1_700_000_000, model: body.model, choices: [choice], usage });
}

/** Each server's own answers, by `METHOD path`; undefined falls through to the /v1 paths or a 404. */
function nativeAnswer(kind: FakeKind, models: FakeModel[], method: string, path: string, body: Record<string, unknown>): unknown {
  const route = `${method} ${path}`;
  switch (kind) {
    case 'ollama':
      if (route === 'GET /api/version') return { version: FAKE_VERSIONS.ollama };
      if (route === 'GET /api/tags') {
        return {
          models: models.map((model) => ({
            name: model.id,
            model: model.id,
            modified_at: '2025-04-01T10:00:00.000000+02:00',
            size: model.size,
            digest: 'a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72',
            details: { parent_model: '', format: 'gguf', family: 'llama', families: ['llama'], parameter_size: '3.2B', quantization_level: 'Q4_K_M' },
          })),
        };
      }
      if (route === 'POST /api/show') {
        const model = models.find((candidate) => candidate.id === body.model || candidate.id === `${String(body.model)}:latest`);
        if (!model) return undefined;
        return {
          modelfile: `FROM ${model.id}`,
          parameters: 'stop "<|eot_id|>"',
          template: '{{ .Prompt }}',
          details: { format: 'gguf', family: 'llama' },
          model_info: { 'general.architecture': 'llama', 'general.parameter_count': 3_212_749_888, 'llama.context_length': model.contextLength, 'llama.embedding_length': 3072 },
          capabilities: ['completion', 'tools'],
        };
      }
      if (route === 'GET /') return 'Ollama is running';
      if (route === 'GET /v1/models') return { object: 'list', data: models.map((model) => ({ id: model.id, object: 'model', created: 1_743_500_000, owned_by: 'library' })) };
      return undefined;
    case 'lmstudio':
      if (route === 'GET /api/v0/models') {
        return {
          object: 'list',
          data: [
            ...models.map((model, i) => ({
              id: model.id,
              object: 'model',
              type: i === 1 ? 'vlm' : 'llm',
              publisher: 'lmstudio-community',
              arch: 'llama',
              compatibility_type: 'gguf',
              quantization: 'Q4_K_M',
              state: i === 0 ? 'loaded' : 'not-loaded',
              max_context_length: model.contextLength,
            })),
            { id: 'text-embedding-nomic-embed-text-v1.5', object: 'model', type: 'embeddings', publisher: 'nomic-ai', arch: 'nomic-bert', compatibility_type: 'gguf', quantization: 'Q4_0', state: 'not-loaded', max_context_length: 2048 },
          ],
        };
      }
      if (route === 'GET /v1/models') return { object: 'list', data: models.map((model) => ({ id: model.id, object: 'model', owned_by: 'organization_owner' })) };
      return undefined;
    case 'llamacpp':
      if (route === 'GET /props') {
        return {
          default_generation_settings: { n_ctx: models[0].contextLength, params: { n_predict: -1, temperature: 0.8 } },
          total_slots: 1,
          model_path: `/models/${models[0].id}`,
          chat_template: '{{ messages }}',
          build_info: FAKE_VERSIONS.llamacpp,
        };
      }
      if (route === 'GET /health') return { status: 'ok' };
      if (route === 'GET /v1/models') {
        return {
          object: 'list',
          data: models.map((model) => ({ id: model.id, object: 'model', created: 1_743_500_000, owned_by: 'llamacpp', meta: { vocab_type: 1, n_vocab: 262_144, n_ctx_train: 131_072, n_embd: 2560, n_params: 3_880_263_168, size: model.size } })),
        };
      }
      return undefined;
    case 'vllm':
      if (route === 'GET /version') return { version: FAKE_VERSIONS.vllm };
      if (route === 'GET /health') return {};
      if (route === 'GET /v1/models') {
        return {
          object: 'list',
          data: models.map((model) => ({ id: model.id, object: 'model', created: 1_743_500_000, owned_by: 'vllm', root: model.id, parent: null, max_model_len: model.contextLength, permission: [] })),
        };
      }
      return undefined;
  }
}

async function listen(server: Server | TcpServer, port: number, host: string): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  return (server.address() as AddressInfo).port;
}

function closer(server: Server | TcpServer, sockets: Set<Socket>): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
}

function trackSockets(server: Server | TcpServer): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return sockets;
}

export interface FakeOptions {
  /** 0 (the default) takes a free port. */
  port?: number;
  host?: string;
  models?: FakeModel[];
}

/** A fake Ollama, LM Studio, llama.cpp server or vLLM on a loopback port. */
export async function startLocalServerFake(kind: FakeKind, options: FakeOptions = {}): Promise<LocalServerFake> {
  const models = options.models ?? FAKE_LOCAL_MODELS[kind];
  const requests: LocalRequest[] = [];
  const server = createServer(async (req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const method = req.method ?? 'GET';
    const json = method === 'POST' ? await readJson(req) : {};
    requests.push({ method, path, headers: req.headers, json });
    if (method === 'POST' && (path === '/v1/chat/completions' || path === '/v1/completions')) return completion(kind, models, path, json, res);
    const answer = nativeAnswer(kind, models, method, path, json);
    if (answer === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      res.end('404 page not found');
      return;
    }
    if (typeof answer === 'string') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(answer);
      return;
    }
    send(res, 200, answer);
  });
  const sockets = trackSockets(server);
  const host = options.host ?? '127.0.0.1';
  const port = await listen(server, options.port ?? 0, host);
  return { kind, port, origin: `http://${host.includes(':') ? `[${host}]` : host}:${port}`, models, requests, close: closer(server, sockets) };
}

/** A web server that is not a model server: a JSON health answer on every path, a page at /. */
export async function startWebServerFake(): Promise<LocalServerFake> {
  const requests: LocalRequest[] = [];
  const server = createServer((req, res) => {
    requests.push({ method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, json: {} });
    if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>My app</title><h1>It works</h1>');
      return;
    }
    send(res, 200, { status: 'ok', data: 'not a model list' });
  });
  const sockets = trackSockets(server);
  const port = await listen(server, 0, '127.0.0.1');
  return { kind: 'web', port, origin: `http://127.0.0.1:${port}`, models: [], requests, close: closer(server, sockets) };
}

/** Accepts connections, reads the request, never answers: a stuck process on the port. */
export async function startHangingServerFake(): Promise<LocalServerFake> {
  const server = createTcpServer((socket) => socket.on('data', () => undefined));
  const sockets = trackSockets(server);
  const port = await listen(server, 0, '127.0.0.1');
  return { kind: 'hanging', port, origin: `http://127.0.0.1:${port}`, models: [], requests: [], close: closer(server, sockets) };
}

/** A port that was free a moment ago and has nothing listening on it now. */
export async function closedPort(): Promise<number> {
  const server = createTcpServer();
  const port = await listen(server, 0, '127.0.0.1');
  await new Promise((resolve) => server.close(resolve));
  return port;
}
