// Issue 12: the official `openai` SDK's `responses.create` (what Codex CLI speaks) through Gatehouse with a
// virtual key, against an OpenAI Responses double (passthrough), a chat-only OpenAI-format provider,
// Anthropic and Gemini (translated): plain, streamed and function-calling turns, stateless refusals,
// errors in OpenAI's shape, translated streams relayed as they are made, and bad or fuzzed input.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import OpenAI from 'openai';
import type { Response as OpenAIResponse, ResponseInputItem, ResponseStreamEvent, FunctionTool } from 'openai/resources/responses/responses';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startAnthropicFake, anthropicError, type AnthropicFake } from '../fakes/anthropic.js';
import { startOpenAIFake, openAIError, type OpenAIFake } from '../fakes/openai.js';
import { startGeminiFake, type GeminiFake } from '../fakes/gemini.js';
import { holdStreamTail, readPastHeldTail, sse } from '../helpers/held-stream.js';
import { chatToolTurn } from '../helpers/dialect-doubles.js';
import { responsesError, startResponsesDouble, type ResponsesDouble } from '../helpers/responses-double.js';

let gateway: TestGateway;
let responses: ResponsesDouble;
let chatOnly: OpenAIFake;
let anthropic: AnthropicFake;
let gemini: GeminiFake;
const keys: Record<string, string> = {};

async function createVirtualKey(body: Record<string, unknown>): Promise<string> {
  const response = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify(body) });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { key: string }).key;
}

beforeAll(async () => {
  [gateway, responses, chatOnly, anthropic, gemini] = await Promise.all([startGateway(), startResponsesDouble(), startOpenAIFake(), startAnthropicFake(), startGeminiFake()]);
  keys.openai = await createVirtualKey({ name: 'resp-openai', provider: 'openai', secret: 'sk-openai-stored-responses', customHost: responses.baseUrl });
  keys.chat = await createVirtualKey({ name: 'resp-ollama', provider: 'ollama', customHost: chatOnly.baseUrl });
  keys.anthropic = await createVirtualKey({ name: 'resp-anthropic', provider: 'anthropic', secret: 'sk-ant-stored-responses', customHost: anthropic.baseUrl });
  keys.gemini = await createVirtualKey({ name: 'resp-gemini', provider: 'google', secret: 'AIza-stored-responses', customHost: gemini.baseUrl });
});
afterAll(async () => {
  await Promise.all([gateway?.close(), responses?.close(), chatOnly?.close(), anthropic?.close(), gemini?.close()]);
});

const client = (key: string) => new OpenAI({ baseURL: `${gateway.baseUrl}/v1`, apiKey: key, maxRetries: 0 });

interface Target {
  name: string;
  key: () => string;
  model: string;
  hello: RegExp;
  /** Scripts the double for one call of a function-calling turn, where its default answer has no tools. */
  scriptTools?: () => void;
}

const TARGETS: Target[] = [
  { name: 'openai Responses (passthrough)', key: () => keys.openai, model: 'gpt-5-codex', hello: /^Responses heard: hi$/ },
  { name: 'chat-only ollama (translated)', key: () => keys.chat, model: 'qwen3-coder', hello: /^Hello from the fake$/, scriptTools: () => chatOnly.enqueue(chatToolTurn) },
  { name: 'anthropic (translated)', key: () => keys.anthropic, model: 'claude-sonnet-4-5', hello: /^Claude heard: hi$/ },
  { name: 'gemini (translated)', key: () => keys.gemini, model: 'gemini-2.0-flash', hello: /^Gemini heard: hi$/ },
];

const WEATHER: FunctionTool = { type: 'function', name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }, strict: false };

/** A streamed Responses answer, read whole: its events and the final response of `response.completed`. */
async function readStream(stream: AsyncIterable<ResponseStreamEvent>): Promise<{ events: ResponseStreamEvent[]; text: string; final: OpenAIResponse }> {
  const events: ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  const text = events.map((event) => (event.type === 'response.output_text.delta' ? event.delta : '')).join('');
  const completed = events.at(-1);
  expect(completed?.type, events.map((event) => event.type).join(' ')).toBe('response.completed');
  return { events, text, final: (completed as { response: OpenAIResponse }).response };
}

function expectEventSequence(events: ResponseStreamEvent[]): void {
  const types = events.map((event) => event.type);
  expect(types[0]).toBe('response.created');
  expect(types).toContain('response.output_item.added');
  expect(types).toContain('response.output_item.done');
  expect(types.at(-1)).toBe('response.completed');
  const numbers = events.map((event) => event.sequence_number);
  expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
  expect(new Set(numbers).size).toBe(numbers.length);
}

describe.each(TARGETS)('openai SDK responses.create → Gatehouse → $name', (target) => {
  it('not streamed: output_text and usage', async () => {
    const answer = await client(target.key()).responses.create({ model: target.model, input: 'hi', store: false });
    expect(answer.object).toBe('response');
    expect(answer.status).toBe('completed');
    expect(answer.output_text).toMatch(target.hello);
    expect(answer.usage?.input_tokens).toBeGreaterThan(0);
    expect(answer.usage?.output_tokens).toBeGreaterThan(0);
    expect(answer.usage?.total_tokens).toBe((answer.usage?.input_tokens ?? 0) + (answer.usage?.output_tokens ?? 0));
  });

  it('streamed: the Responses event sequence, ending in response.completed with usage', async () => {
    const stream = await client(target.key()).responses.create({
      model: target.model,
      stream: true,
      store: false,
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Be brief.' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
      ],
    });
    const { events, text, final } = await readStream(stream);
    expectEventSequence(events);
    expect(events.some((event) => event.type === 'response.output_text.delta')).toBe(true);
    expect(text).toMatch(target.hello);
    expect(final.status).toBe('completed');
    expect(final.usage?.output_tokens).toBeGreaterThan(0);
  });

  for (const streamed of [false, true]) {
    it(`a function calling round trip (${streamed ? 'streamed' : 'not streamed'}): function_call, function_call_output, final text`, async () => {
      target.scriptTools?.();
      target.scriptTools?.();
      const sdk = client(target.key());
      const question: ResponseInputItem = { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'What is the weather in Paris?' }] };
      const base = { model: target.model, store: false, tools: [WEATHER], tool_choice: 'auto' as const, parallel_tool_calls: false };
      const first = streamed ? (await readStream(await sdk.responses.create({ ...base, input: [question], stream: true }))).final : await sdk.responses.create({ ...base, input: [question] });
      const call = first.output.find((item) => item.type === 'function_call');
      expect(call, JSON.stringify(first.output)).toBeDefined();
      if (call?.type !== 'function_call') return;
      expect(call.name).toBe('get_weather');
      expect(JSON.parse(call.arguments)).toEqual({ city: 'Paris' });
      expect(call.call_id).toMatch(/\S/);

      const input: ResponseInputItem[] = [question, ...(first.output as ResponseInputItem[]), { type: 'function_call_output', call_id: call.call_id, output: 'sunny, 24 C' }];
      const final = streamed ? (await readStream(await sdk.responses.create({ ...base, input, stream: true }))).final : await sdk.responses.create({ ...base, input });
      expect(final.status).toBe('completed');
      const text = final.output.flatMap((item) => (item.type === 'message' ? item.content : [])).map((part) => (part.type === 'output_text' ? part.text : '')).join('');
      expect(text).toContain('sunny, 24 C');
    });
  }
});

describe('Responses passthrough and state', () => {
  it('a Responses body reaches a Responses provider byte for byte (unknown fields, an int64, Codex’s fields)', async () => {
    const body =
      '{"model":"gpt-5-codex","stream":false,"store":false,"input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}],' +
      '"include":["reasoning.encrypted_content"],"reasoning":{"effort":"medium","summary":"auto"},"prompt_cache_key":"0199-abc","text":{"verbosity":"low"},' +
      '"client_metadata":{"x":1},"future_field":{"n":9007199254740993}}';
    const response = await fetch(`${gateway.baseUrl}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${keys.openai}`, originator: 'codex_exec' }, body });
    expect(response.status, await response.clone().text()).toBe(200);
    const received = responses.requests.at(-1)!;
    expect(received.url).toBe('/v1/responses');
    expect(received.body.equals(Buffer.from(body)), received.body.toString()).toBe(true);
    expect(received.headers.authorization).toBe('Bearer sk-openai-stored-responses');
    expect(received.headers.originator).toBe('codex_exec');
  });

  it('previous_response_id is relayed to OpenAI', async () => {
    const sdk = client(keys.openai);
    const first = await sdk.responses.create({ model: 'gpt-5-codex', input: 'remember me', store: true });
    const second = await sdk.responses.create({ model: 'gpt-5-codex', input: 'and now?', previous_response_id: first.id });
    expect(second.status).toBe('completed');
    expect(responses.requests.at(-1)?.json.previous_response_id).toBe(first.id);
  });

  it.each([
    ['anthropic', () => keys.anthropic, 'claude-sonnet-4-5'],
    ['chat-only ollama', () => keys.chat, 'qwen3-coder'],
    ['gemini', () => keys.gemini, 'gemini-2.0-flash'],
  ])('previous_response_id to %s: 400 naming it, saying Gatehouse keeps no state', async (_name, key, model) => {
    const before = anthropic.requests.length + chatOnly.requests.length + gemini.requests.length;
    const error = (await client(key())
      .responses.create({ model, input: 'and now?', previous_response_id: 'resp_abc123' })
      .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.status).toBe(400);
    expect(error.param).toBe('previous_response_id');
    expect(error.message).toContain('previous_response_id');
    expect(error.message.toLowerCase()).toContain('state');
    expect(anthropic.requests.length + chatOnly.requests.length + gemini.requests.length).toBe(before);
  });

  it('GET /v1/responses/{id} to a non-OpenAI key: 400 saying Gatehouse keeps no state, nothing sent', async () => {
    const before = anthropic.requests.length;
    const response = await fetch(`${gateway.baseUrl}/v1/responses/resp_abc123`, { headers: { authorization: `Bearer ${keys.anthropic}` } });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; type: string; param: string } };
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.param).toBe('response_id');
    expect(body.error.message.toLowerCase()).toContain('state');
    expect(anthropic.requests.length).toBe(before);
  });

  it('retrieve, list input items and delete a stored response through OpenAI (the SDK calls, relayed with the stored key)', async () => {
    const sdk = client(keys.openai);
    const created = await sdk.responses.create({ model: 'gpt-5-codex', input: 'remember this' });
    const read = await sdk.responses.retrieve(created.id);
    expect(read.id).toBe(created.id);
    expect(read.output_text).toBe(created.output_text);
    const received = responses.requests.at(-1)!;
    expect(received.method).toBe('GET');
    expect(received.url).toBe(`/v1/responses/${created.id}`);
    expect(received.headers.authorization).toBe('Bearer sk-openai-stored-responses');

    const items = await sdk.responses.inputItems.list(created.id, { order: 'asc' });
    expect(responses.requests.at(-1)!.url).toBe(`/v1/responses/${created.id}/input_items?order=asc`);
    expect(items.data).toHaveLength(1);
    expect(JSON.stringify(items.data[0])).toContain('remember this');

    await sdk.responses.delete(created.id);
    expect(responses.requests.at(-1)!.method).toBe('DELETE');
    const gone = (await sdk.responses.retrieve(created.id).catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
    expect(gone).toBeInstanceOf(OpenAI.NotFoundError);
    expect(gone.message).toContain(created.id);
  });

  it('a response id that is not a plain id never reaches the provider', async () => {
    const before = responses.requests.length;
    for (const path of ['/v1/responses/..%2Fmodels', '/v1/responses/resp_1/cancel/x', '/v1/responses/a.b']) {
      const response = await fetch(`${gateway.baseUrl}${path}`, { headers: { authorization: `Bearer ${keys.openai}` } });
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { error: { type: string } }).error.type).toBe('not_found_error');
    }
    const post = await fetch(`${gateway.baseUrl}/v1/responses/resp_1`, { method: 'POST', headers: { authorization: `Bearer ${keys.openai}` }, body: '{}' });
    expect(post.status).toBe(405);
    expect(responses.requests.length).toBe(before);
  });
});

describe('errors in OpenAI’s shape on /v1/responses', () => {
  it('a bad body: 400 invalid_request_error naming the field', async () => {
    const error = (await client(keys.anthropic)
      .responses.create({ model: 'claude-sonnet-4-5', input: 42 as never })
      .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.type).toBe('invalid_request_error');
    expect(error.param).toBe('input');
  });

  it('a wrong key: 401', async () => {
    const error = (await client('gh-vk-this-key-does-not-exist-000000')
      .responses.create({ model: 'gpt-5-codex', input: 'hi' })
      .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(error.status).toBe(401);
  });

  it.each([
    ['openai (passthrough)', () => responses.enqueue(responsesError(429, 'Rate limit reached for gpt-5-codex', 'requests', 'rate_limit_exceeded')), () => keys.openai, 'gpt-5-codex'],
    ['anthropic (translated)', () => anthropic.enqueue(anthropicError(429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit')), () => keys.anthropic, 'claude-sonnet-4-5'],
    ['chat-only (translated)', () => chatOnly.enqueue(openAIError(429, 'Rate limit reached', 'requests', 'rate_limit_exceeded')), () => keys.chat, 'qwen3-coder'],
  ])('a provider 429 from %s: 429 in OpenAI’s shape', async (_name, script, key, model) => {
    script();
    const error = (await client(key())
      .responses.create({ model, input: 'hi' })
      .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.APIError>;
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect(error.status).toBe(429);
    expect(error.message).toMatch(/rate limit/i);
  });
});

// ---- Translated streams arrive as they are made ------------------------------------------------------


/** The text of the `response.output_text.delta` events among the complete SSE events of `raw`. */
function responsesText(raw: string): string {
  const complete = raw.slice(0, raw.lastIndexOf('\n\n') + 2);
  return complete
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { type: string; delta?: string })
    .filter((event) => event.type === 'response.output_text.delta')
    .map((event) => event.delta)
    .join('');
}

const anthropicDelta = (text: string) => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } } });
const chatChunk = (delta: object, finish: string | null) => ({ data: { id: 'chatcmpl-held', object: 'chat.completion.chunk', created: 1700000000, model: 'qwen3-coder', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] } });

const HELD_CASES = [
  {
    name: 'anthropic',
    enqueue: (behaviour: never) => anthropic.enqueue(behaviour),
    key: () => keys.anthropic,
    model: 'claude-sonnet-4-5',
    head: () =>
      sse([
        { event: 'message_start', data: { type: 'message_start', message: { id: 'msg_held', type: 'message', role: 'assistant', content: [], model: 'claude-sonnet-4-5', stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } } } },
        { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
        anthropicDelta('Hello'),
      ]),
    tail: () =>
      sse([
        anthropicDelta(' world'),
        { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
        { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 2 } } },
        { event: 'message_stop', data: { type: 'message_stop' } },
      ]),
  },
  {
    name: 'chat-only',
    enqueue: (behaviour: never) => chatOnly.enqueue(behaviour),
    key: () => keys.chat,
    model: 'qwen3-coder',
    head: () => sse([chatChunk({ role: 'assistant', content: 'Hello' }, null)]),
    tail: () => sse([chatChunk({ content: ' world' }, null), chatChunk({}, 'stop'), { data: '[DONE]' }]),
  },
];

describe('a translated Responses stream reaches the client while the provider is still answering', () => {
  it.each(HELD_CASES)('$name: the first output_text.delta arrives before the provider sends its last event', async (testCase) => {
    const held = holdStreamTail(testCase.head(), testCase.tail(), 'text/event-stream');
    testCase.enqueue(held.behaviour as never);
    const response = await fetch(`${gateway.baseUrl}/v1/responses`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${testCase.key()}` },
      body: JSON.stringify({ model: testCase.model, stream: true, store: false, input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Say hello' }] }] }),
    });
    expect(response.status, response.status === 200 ? '' : await response.clone().text()).toBe(200);
    const received = await readPastHeldTail(response, held, responsesText, `${testCase.name}: no output_text.delta within 3 s while the provider held its tail: the gateway holds translated Responses streams back`);
    expect(responsesText(received)).toBe('Hello world');
    expect(received).toContain('response.completed');
  });
});

// ---- Bad input: a 400 (or 415) in OpenAI's shape naming the field, never a 5xx -----------------------

interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}

async function postRaw(body: BodyInit, headers: Record<string, string> = {}): Promise<{ status: number; json: OpenAIErrorBody; text: string }> {
  const response = await fetch(`${gateway.baseUrl}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${keys.anthropic}`, ...headers }, body });
  const text = await response.text();
  let json: OpenAIErrorBody;
  try {
    json = JSON.parse(text) as OpenAIErrorBody;
  } catch {
    json = { error: { message: text, type: '', param: null, code: null } };
  }
  return { status: response.status, json, text };
}

function expectOpenAIError(reply: { status: number; json: OpenAIErrorBody; text: string }, status: number, param?: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.json.error?.type, reply.text).toBe('invalid_request_error');
  expect(typeof reply.json.error.message).toBe('string');
  if (param) expect(`${reply.json.error.param} ${reply.json.error.message}`, reply.text).toContain(param);
}

describe('bad input on /v1/responses', () => {
  it.each([
    ['a JSON array', '[]', undefined],
    ['no model', JSON.stringify({ input: 'hi' }), 'model'],
    ['input a number', JSON.stringify({ model: 'claude-sonnet-4-5', input: 7 }), 'input'],
    ['stream a string', JSON.stringify({ model: 'claude-sonnet-4-5', input: 'hi', stream: 'yes' }), 'stream'],
    ['invalid JSON', '{"model":', undefined],
  ])('%s → 400', async (_name, body, field) => {
    expectOpenAIError(await postRaw(body), 400, field);
  });

  it.each([
    ['an item of unknown type', { model: 'claude-sonnet-4-5', input: [{ type: 'hologram' }] }, 'input'],
    ['a message without content', { model: 'claude-sonnet-4-5', input: [{ type: 'message', role: 'user' }] }, 'input'],
    ['an unknown role', { model: 'claude-sonnet-4-5', input: [{ type: 'message', role: 'robot', content: 'hi' }] }, 'input'],
    ['a function_call_output without call_id', { model: 'claude-sonnet-4-5', input: [{ type: 'function_call_output', output: 'x' }] }, 'input'],
    ['tools not a list', { model: 'claude-sonnet-4-5', input: 'hi', tools: 'get_weather' }, 'tools'],
    ['a function tool without name', { model: 'claude-sonnet-4-5', input: 'hi', tools: [{ type: 'function', parameters: {} }] }, 'tools'],
  ])('translated, %s → 400 naming the field', async (_name, body, field) => {
    expectOpenAIError(await postRaw(JSON.stringify(body)), 400, field);
  });

  it('a body that is not UTF-8 → 400', async () => {
    expectOpenAIError(await postRaw(Buffer.concat([Buffer.from('{"model":"claude-sonnet-4-5","input":"'), Buffer.from([0xc0, 0xaf, 0xff]), Buffer.from('"}')])), 400);
  });

  it('Content-Type: text/plain → 415 saying to send application/json', async () => {
    const reply = await postRaw(JSON.stringify({ model: 'claude-sonnet-4-5', input: 'hi' }), { 'content-type': 'text/plain' });
    expect(reply.status, reply.text).toBe(415);
    expect(reply.json.error.message).toContain('application/json');
  });
});

const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(-0), fc.constant(2 ** 63), fc.constant(''));
const part = fc.oneof(fc.record({ type: fc.constantFrom('input_text', 'output_text', 'input_image', 'refusal', 'nonsense'), text: anyValue, image_url: anyValue }, { requiredKeys: ['type'] }), anyValue);
const item = fc.oneof(
  fc.record({ type: fc.constant('message'), role: fc.oneof(fc.constantFrom('user', 'assistant', 'system', 'developer'), anyValue), content: fc.oneof(fc.string({ maxLength: 8 }), fc.array(part, { maxLength: 2 }), anyValue) }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('function_call'), call_id: anyValue, name: anyValue, arguments: fc.oneof(fc.constant('{"a":1}'), fc.constant('not json'), anyValue) }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constant('function_call_output'), call_id: anyValue, output: anyValue }, { requiredKeys: ['type'] }),
  fc.record({ type: fc.constantFrom('reasoning', 'custom', 'item_reference'), summary: anyValue, encrypted_content: anyValue, id: anyValue }, { requiredKeys: ['type'] }),
  anyValue,
);
const responsesBody = fc.record(
  {
    model: fc.oneof(fc.constantFrom('claude-sonnet-4-5', 'qwen3-coder'), anyValue),
    input: fc.oneof(fc.string({ maxLength: 10 }), fc.array(item, { maxLength: 4 }), anyValue),
    instructions: anyValue,
    stream: fc.oneof(fc.boolean(), anyValue),
    store: anyValue,
    tools: fc.oneof(fc.array(fc.record({ type: fc.constantFrom('function', 'custom', 'web_search', 'namespace'), name: anyValue, parameters: anyValue, tools: anyValue }, { requiredKeys: [] }), { maxLength: 2 }), anyValue),
    tool_choice: anyValue,
    reasoning: fc.oneof(fc.record({ effort: fc.constantFrom('low', 'medium', 'high', 'x'), summary: anyValue }, { requiredKeys: [] }), anyValue),
    max_output_tokens: anyValue,
    temperature: anyValue,
    text: anyValue,
    include: anyValue,
  },
  { requiredKeys: [] },
);

describe('fuzzed Responses bodies never get a 5xx', () => {
  it.each([
    ['translated to Anthropic', () => keys.anthropic],
    ['translated to a chat-only provider', () => keys.chat],
    ['passed through to OpenAI', () => keys.openai],
  ])('%s', async (_name, key) => {
    await fc.assert(
      fc.asyncProperty(responsesBody, async (body) => {
        const reply = await postRaw(JSON.stringify(body), { authorization: `Bearer ${key()}` });
        expect(reply.status, `${JSON.stringify(body)} → ${reply.text.slice(0, 300)}`).toBeLessThan(500);
        if (reply.status >= 400) expect(typeof reply.json.error?.message, reply.text).toBe('string');
      }),
      { numRuns: 120 },
    );
  }, 60_000);
});
