// Codex-style Responses calls (the openai SDK's responses.create, streamed) through a key for a server that
// speaks Chat Completions only, as LM Studio, vLLM or llama.cpp behind an `openai` key with a custom host:
// translated to Chat when the key is chatOnly, and learnt from the server's 404 when it is not yet.
import OpenAI from 'openai';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

let gateway: TestGateway;
/** Answers /v1/chat/completions (strictly, as OpenAI does) and 404 to /v1/responses: a Chat-only server. */
let chatOnlyServer: OpenAIFake;

beforeAll(async () => {
  [gateway, chatOnlyServer] = await Promise.all([startGateway(), startOpenAIFake()]);
});
afterAll(async () => {
  await gateway.close();
  await chatOnlyServer.close();
});
afterEach(() => {
  chatOnlyServer.requests.length = 0;
});

async function createKey(name: string, extra: Record<string, unknown> = {}): Promise<{ id: string; key: string }> {
  const response = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name, provider: 'openai', secret: 'sk-local-0123456789', customHost: chatOnlyServer.baseUrl, ...extra }) });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; key: string };
}

/** A streamed Responses call as Codex makes it: instructions, an input message, store false. */
async function codexTurn(key: string): Promise<{ text: string; types: string[] }> {
  const client = new OpenAI({ apiKey: key, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0 });
  const stream = await client.responses.create({
    model: 'qwen2.5-coder-7b',
    instructions: 'You are a coding agent.',
    input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Say hello' }] }],
    store: false,
    stream: true,
  });
  let text = '';
  const types: string[] = [];
  for await (const event of stream) {
    types.push(event.type);
    if (event.type === 'response.output_text.delta') text += event.delta;
  }
  return { text, types };
}

describe('Responses through a chat-only key', () => {
  it('a chatOnly key sends Chat to its server and streams Responses events back', async () => {
    const { key } = await createKey('lm-studio-chat', { chatOnly: true });
    const { text, types } = await codexTurn(key);
    expect(text).toBe('Hello from the fake');
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect(chatOnlyServer.requests.map((request) => request.url)).toEqual(['/v1/chat/completions']);
    const sent = chatOnlyServer.requests[0].json as { messages: { role: string; content: unknown }[]; stream: boolean };
    expect(sent.stream).toBe(true);
    expect(sent.messages.map((message) => message.role)).toEqual(['system', 'user']);
  });

  it('a key not yet chatOnly: the 404 at /v1/responses is retried as Chat, the client never sees it, and the key learns chatOnly', async () => {
    const { id, key } = await createKey('vllm-learns');
    const first = await codexTurn(key);
    expect(first.text).toBe('Hello from the fake');
    expect(chatOnlyServer.requests.map((request) => request.url)).toEqual(['/v1/responses', '/v1/chat/completions']);
    const summary = (await (await gateway.admin(`/virtual-keys/${id}`)).json()) as { chatOnly: boolean };
    expect(summary.chatOnly).toBe(true);

    // The next call goes to Chat at once.
    chatOnlyServer.requests.length = 0;
    expect((await codexTurn(key)).text).toBe('Hello from the fake');
    expect(chatOnlyServer.requests.map((request) => request.url)).toEqual(['/v1/chat/completions']);

    // The log shows the call as served in Chat's format.
    await gateway.flushLog();
    const logs = (await (await gateway.admin('/logs?limit=1')).json()) as { items: { status: number; providerFormat: string; path: string }[] };
    expect(logs.items[0]).toMatchObject({ status: 200, providerFormat: 'openai-chat', path: '/v1/responses' });
  });

  it('a server that has the Responses API gets the call passed through, and the key learns nothing', async () => {
    const { id, key } = await createKey('has-responses');
    const answer = { id: 'resp_1', object: 'response', created_at: 1700000000, status: 'completed', model: 'qwen2.5-coder-7b', output: [{ type: 'message', id: 'msg_1', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hi from Responses', annotations: [] }] }], usage: { input_tokens: 3, output_tokens: 4, total_tokens: 7 } };
    chatOnlyServer.enqueue((_request, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0 });
    const response = await client.responses.create({ model: 'qwen2.5-coder-7b', input: 'hi', store: false });
    expect(response.output_text).toBe('Hi from Responses');
    expect(chatOnlyServer.requests.map((request) => request.url)).toEqual(['/v1/responses']);
    expect(((await (await gateway.admin(`/virtual-keys/${id}`)).json()) as { chatOnly: boolean }).chatOnly).toBe(false);
  });
});

describe('a 404 that means "no such model" is not a server without Responses', () => {
  const answer404 = (body: string, contentType = 'application/json') => (_request: unknown, res: import('node:http').ServerResponse) => {
    res.writeHead(404, { 'content-type': contentType });
    res.end(body);
  };
  const responsesCall = (key: string) =>
    fetch(`${gateway.baseUrl}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
      body: JSON.stringify({ model: 'gpt-5-typo', input: 'hi', store: false }),
    });
  const chatOnlyOf = async (id: string) => ((await (await gateway.admin(`/virtual-keys/${id}`)).json()) as { chatOnly: boolean }).chatOnly;

  it.each([
    ['OpenAI', JSON.stringify({ error: { message: 'The model `gpt-5-typo` does not exist or you do not have access to it.', type: 'invalid_request_error', param: null, code: 'model_not_found' } })],
    ['vLLM', JSON.stringify({ object: 'error', message: 'The model `gpt-5-typo` does not exist.', type: 'NotFoundError', param: null, code: 404 })],
    ['Ollama', JSON.stringify({ error: { message: 'model "gpt-5-typo" not found, try pulling it first', type: 'api_error', param: null, code: null } })],
  ])("%s's model-not-found 404 reaches the client as it is, nothing is retried, and the key stays as it was", async (_server, body) => {
    const { id, key } = await createKey(`model-typo-${_server.toLowerCase()}`);
    chatOnlyServer.enqueue(answer404(body));
    const response = await responsesCall(key);
    expect(response.status).toBe(404);
    expect(JSON.stringify(await response.json())).toContain('gpt-5-typo');
    expect(chatOnlyServer.requests.map((request) => request.url)).toEqual(['/v1/responses']);
    expect(await chatOnlyOf(id)).toBe(false);
  });

  it.each([
    ['llama.cpp', JSON.stringify({ error: { message: 'File Not Found', type: 'not_found_error', code: 404 } }), 'application/json'],
    ['vLLM (FastAPI)', JSON.stringify({ detail: 'Not Found' }), 'application/json'],
    ['Ollama (gin)', '404 page not found', 'text/plain'],
  ])("%s's no-such-path 404 is retried as Chat and the key learns chatOnly", async (server, body, contentType) => {
    const { id, key } = await createKey(`no-route-${server.replace(/\W+/g, '-').toLowerCase()}`);
    chatOnlyServer.enqueue(answer404(body, contentType));
    const { text } = await codexTurn(key);
    expect(text).toBe('Hello from the fake');
    expect(chatOnlyServer.requests.map((request) => request.url)).toEqual(['/v1/responses', '/v1/chat/completions']);
    expect(await chatOnlyOf(id)).toBe(true);
  });

  it('a server that refuses the Chat retry too is not taken for chat-only', async () => {
    const { id, key } = await createKey('refuses-both');
    chatOnlyServer.enqueue(answer404('404 page not found', 'text/plain'), answer404('404 page not found', 'text/plain'));
    const response = await responsesCall(key);
    expect(response.status).toBe(404);
    await response.text();
    expect(chatOnlyServer.requests.map((request) => request.url)).toEqual(['/v1/responses', '/v1/chat/completions']);
    expect(await chatOnlyOf(id)).toBe(false);
  });
});
