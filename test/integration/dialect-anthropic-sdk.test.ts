// Issue 12: the official `@anthropic-ai/sdk` pointed at Gatehouse (baseURL = the gateway root, apiKey = a
// virtual key), as Claude Code and anthropic SDK users do, against providers in four wire formats: an
// Anthropic-format double (the body goes up byte for byte), an OpenAI-format one, Gemini and Bedrock
// Converse (translated). Plain, streamed and tool-using turns, token counts, errors in Anthropic's shape,
// translated streams relayed as they are made, and bad or fuzzed input that never earns a 5xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import Anthropic from '@anthropic-ai/sdk';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startAnthropicFake, anthropicError, type AnthropicFake } from '../fakes/anthropic.js';
import { startOpenAIFake, openAIError, type OpenAIFake } from '../fakes/openai.js';
import { startGeminiFake, type GeminiFake } from '../fakes/gemini.js';
import { eventFrame, startBedrockFake, type AwsTestCredentials, type BedrockFake } from '../fakes/bedrock.js';
import { holdStreamTail, readPastHeldTail, sse } from '../helpers/held-stream.js';
import { anthropicCountTokens, bedrockToolTurn, chatToolTurn } from '../helpers/dialect-doubles.js';

const AWS: AwsTestCredentials = { accessKeyId: 'AKIADIALECTTEST00001', secretAccessKey: 'dialect/test/secret/access/key/000000001' };
const ANTHROPIC_SECRET = 'sk-ant-stored-dialect-0001';

let gateway: TestGateway;
let anthropic: AnthropicFake;
let openai: OpenAIFake;
let gemini: GeminiFake;
let bedrock: BedrockFake;
const keys: Record<string, string> = {};

async function createVirtualKey(body: Record<string, unknown>): Promise<string> {
  const response = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify(body) });
  expect(response.status, await response.clone().text()).toBe(201);
  return ((await response.json()) as { key: string }).key;
}

beforeAll(async () => {
  [gateway, anthropic, openai, gemini, bedrock] = await Promise.all([
    startGateway(),
    startAnthropicFake(),
    startOpenAIFake(),
    startGeminiFake(),
    startBedrockFake({ region: 'us-west-2', credentials: [AWS] }),
  ]);
  keys.anthropic = await createVirtualKey({ name: 'sdk-anthropic', provider: 'anthropic', secret: ANTHROPIC_SECRET, customHost: anthropic.baseUrl });
  keys.openai = await createVirtualKey({ name: 'sdk-openai', provider: 'openai', secret: 'sk-openai-stored-dialect', customHost: openai.baseUrl });
  keys.gemini = await createVirtualKey({ name: 'sdk-gemini', provider: 'google', secret: 'AIza-stored-dialect', customHost: gemini.baseUrl });
  keys.bedrock = await createVirtualKey({
    name: 'sdk-bedrock',
    provider: 'bedrock',
    secret: AWS.secretAccessKey,
    customHost: bedrock.baseUrl,
    cloud: { cloud_c_access_key_id: AWS.accessKeyId, cloud_c_region: 'us-west-2' },
  });
});
afterAll(async () => {
  await Promise.all([gateway?.close(), anthropic?.close(), openai?.close(), gemini?.close(), bedrock?.close()]);
});

const client = (key: string) => new Anthropic({ baseURL: gateway.baseUrl, apiKey: key, maxRetries: 0 });

interface Target {
  name: string;
  key: () => string;
  model: string;
  /** The text the double answers to "hi". */
  hello: RegExp;
  /** Scripts the double for one call of a tool-using turn, where its default answer has no tools. */
  scriptTools?: () => void;
}

const TARGETS: Target[] = [
  { name: 'anthropic (passthrough)', key: () => keys.anthropic, model: 'claude-sonnet-4-5', hello: /^Claude heard: hi$/ },
  { name: 'openai format (translated)', key: () => keys.openai, model: 'gpt-4o-mini', hello: /^Hello from the fake$/, scriptTools: () => openai.enqueue(chatToolTurn) },
  { name: 'gemini (translated)', key: () => keys.gemini, model: 'gemini-2.0-flash', hello: /^Gemini heard: hi$/ },
  { name: 'bedrock converse (translated)', key: () => keys.bedrock, model: 'anthropic.claude-3-5-sonnet-20240620-v1:0', hello: /^bedrock says: hi$/, scriptTools: () => bedrock.enqueue(bedrockToolTurn) },
];

const WEATHER_TOOL: Anthropic.Tool = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};

const textOf = (message: Anthropic.Message) =>
  message.content
    .filter((block): block is Anthropic.TextBlock => block.type === 'text')
    .map((block) => block.text)
    .join('');

describe.each(TARGETS)('@anthropic-ai/sdk → Gatehouse → $name', (target) => {
  it('messages.create: a plain turn', async () => {
    const message = await client(target.key()).messages.create({ model: target.model, max_tokens: 256, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.type).toBe('message');
    expect(message.role).toBe('assistant');
    expect(textOf(message)).toMatch(target.hello);
    expect(message.stop_reason).toBe('end_turn');
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });

  it('messages.stream: the text arrives in deltas; finalMessage has stop_reason and usage', async () => {
    const stream = client(target.key()).messages.stream({ model: target.model, max_tokens: 256, system: [{ type: 'text', text: 'Be brief.' }], messages: [{ role: 'user', content: 'hi' }] });
    const deltas: string[] = [];
    stream.on('text', (delta) => deltas.push(delta));
    const final = await stream.finalMessage();
    expect(deltas.length).toBeGreaterThan(0);
    expect(deltas.join('')).toMatch(target.hello);
    expect(textOf(final)).toMatch(target.hello);
    expect(final.stop_reason).toBe('end_turn');
    expect(final.usage.output_tokens).toBeGreaterThan(0);
  });

  for (const streamed of [false, true]) {
    it(`a tool use round trip (${streamed ? 'streamed' : 'not streamed'}): tool_use, tool_result sent back, final text`, async () => {
      target.scriptTools?.();
      target.scriptTools?.();
      const sdk = client(target.key());
      const question: Anthropic.MessageParam = { role: 'user', content: 'What is the weather in Paris?' };
      const params = { model: target.model, max_tokens: 256, tools: [WEATHER_TOOL], messages: [question] };
      const first = streamed ? await sdk.messages.stream(params).finalMessage() : await sdk.messages.create(params);
      expect(first.stop_reason).toBe('tool_use');
      const toolUse = first.content.find((block): block is Anthropic.ToolUseBlock => block.type === 'tool_use');
      expect(toolUse, JSON.stringify(first.content)).toBeDefined();
      expect(toolUse!.name).toBe('get_weather');
      expect(toolUse!.input).toEqual({ city: 'Paris' });
      expect(toolUse!.id).toMatch(/\S/);

      const followUp = {
        ...params,
        messages: [question, { role: 'assistant' as const, content: first.content }, { role: 'user' as const, content: [{ type: 'tool_result' as const, tool_use_id: toolUse!.id, content: 'sunny, 24 C' }] }],
      };
      const final = streamed ? await sdk.messages.stream(followUp).finalMessage() : await sdk.messages.create(followUp);
      expect(final.stop_reason).toBe('end_turn');
      expect(textOf(final)).toContain('sunny, 24 C');
    });
  }

  it('messages.countTokens: {input_tokens: N}', async () => {
    if (target.name.startsWith('anthropic')) anthropic.enqueue(anthropicCountTokens(42));
    const { data, response } = await client(target.key())
      .messages.countTokens({ model: target.model, system: 'Be brief.', messages: [{ role: 'user', content: 'How many tokens is this?' }] })
      .withResponse();
    if (target.name.startsWith('anthropic')) {
      // Relayed to the provider, which counts.
      expect(data.input_tokens).toBe(42);
      expect(anthropic.requests.at(-1)?.url).toBe('/v1/messages/count_tokens');
      expect(anthropic.requests.at(-1)?.headers['x-api-key']).toBe(ANTHROPIC_SECRET);
    } else {
      // Counted by the gateway, and said to be an estimate.
      expect(data.input_tokens).toBeGreaterThan(0);
      expect(response.headers.get('x-gateway-token-count')).toBe('estimate');
    }
  });
});

describe('anthropic passthrough is byte for byte', () => {
  it('unknown fields and an int64 reach the provider unchanged; anthropic-version and anthropic-beta are forwarded; the virtual key is not', async () => {
    const body =
      '{"model":"claude-sonnet-4-5","max_tokens":1024,"metadata":{"user_id":"{\\"device_id\\":\\"abc\\"}"},' +
      '"context_management":{"edits":[{"type":"clear_tool_uses_20250919","trigger":{"type":"input_tokens","value":9007199254740993}}]},' +
      '"output_config":{"effort":"medium"},"thinking":{"type":"adaptive","display":"omitted"},' +
      '"system":[{"type":"text","text":"You are Claude Code.","cache_control":{"type":"ephemeral"}}],' +
      '"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]},{"role":"system","content":"mid-conversation note"},{"role":"user","content":"  spaced   json  "}],' +
      '"tools":[{"name":"Read","description":"Read a file","input_schema":{"type":"object"},"defer_loading":true}],"seed_like":18446744073709551615}';
    const response = await fetch(`${gateway.baseUrl}/v1/messages?beta=true`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${keys.anthropic}`,
        'anthropic-version': '2023-06-01',
        'anthropic-beta': 'claude-code-20250219,context-management-2025-06-27,interleaved-thinking-2025-05-14',
        'x-app': 'cli',
      },
      body,
    });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const received = anthropic.requests.at(-1)!;
    expect(received.url).toBe('/v1/messages');
    expect(received.body.equals(Buffer.from(body, 'utf8')), `the provider received:\n${received.body.toString('utf8')}`).toBe(true);
    expect(received.headers['anthropic-version']).toBe('2023-06-01');
    expect(received.headers['anthropic-beta']).toBe('claude-code-20250219,context-management-2025-06-27,interleaved-thinking-2025-05-14');
    expect(received.headers['x-api-key']).toBe(ANTHROPIC_SECRET);
    expect(JSON.stringify(received.headers)).not.toContain(keys.anthropic);
    // The answer comes back as the provider wrote it (with tools declared the double calls the first one).
    const answer = JSON.parse(text) as { content: { type: string; name?: string }[]; stop_reason: string };
    expect(answer.stop_reason).toBe('tool_use');
    expect(answer.content[0]).toMatchObject({ type: 'tool_use', name: 'Read' });
  });

  it('the SDK’s own anthropic-version reaches an Anthropic-format provider; the key in x-api-key is read as the gateway key and not forwarded', async () => {
    await client(keys.anthropic).messages.create({ model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'version?' }] });
    const version = anthropic.requests.at(-1)?.headers['anthropic-version'];
    expect(version).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(version).not.toBe('2023-06-01');

    const response = await fetch(`${gateway.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': keys.anthropic, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'x-api-key' }] }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(anthropic.requests.at(-1)?.headers['x-api-key']).toBe(ANTHROPIC_SECRET);
  });
});

interface AnthropicErrorBody {
  type: string;
  error: { type: string; message: string };
}

describe('errors in Anthropic’s shape', () => {
  it('a bad body: 400 invalid_request_error naming the field', async () => {
    const error = (await client(keys.anthropic)
      .messages.create({ model: 'claude-sonnet-4-5', max_tokens: 16, messages: 'not a list' as never })
      .catch((caught: unknown) => caught)) as InstanceType<typeof Anthropic.APIError>;
    expect(error).toBeInstanceOf(Anthropic.BadRequestError);
    expect(error.status).toBe(400);
    const body = error.error as AnthropicErrorBody;
    expect(body.type).toBe('error');
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.message).toContain('messages');
  });

  it('a wrong key: 401 authentication_error', async () => {
    const error = (await client('gh-vk-this-key-does-not-exist-000000')
      .messages.create({ model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught)) as InstanceType<typeof Anthropic.APIError>;
    expect(error).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(error.status).toBe(401);
    expect((error.error as AnthropicErrorBody).type).toBe('error');
    expect((error.error as AnthropicErrorBody).error.type).toBe('authentication_error');
  });

  it.each([
    ['anthropic (passthrough)', () => anthropic.enqueue(anthropicError(429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit')), () => keys.anthropic, 'claude-sonnet-4-5'],
    ['openai format (translated)', () => openai.enqueue(openAIError(429, 'Rate limit reached for gpt-4o-mini', 'requests', 'rate_limit_exceeded')), () => keys.openai, 'gpt-4o-mini'],
  ])('a provider 429 from %s: 429 rate_limit_error', async (_name, script, key, model) => {
    script();
    const error = (await client(key())
      .messages.create({ model, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })
      .catch((caught: unknown) => caught)) as InstanceType<typeof Anthropic.APIError>;
    expect(error).toBeInstanceOf(Anthropic.RateLimitError);
    expect(error.status).toBe(429);
    expect((error.error as AnthropicErrorBody).type).toBe('error');
    expect((error.error as AnthropicErrorBody).error.type).toBe('rate_limit_error');
  });
});

// ---- Translated streams arrive as they are made ------------------------------------------------------


/** The text of the `text_delta`s among the complete SSE events of `raw`. */
function messagesText(raw: string): string {
  const complete = raw.slice(0, raw.lastIndexOf('\n\n') + 2);
  return complete
    .split('\n')
    .filter((line) => line.startsWith('data: '))
    .map((line) => JSON.parse(line.slice(6)) as { type: string; delta?: { type: string; text?: string } })
    .filter((event) => event.type === 'content_block_delta' && event.delta?.type === 'text_delta')
    .map((event) => event.delta!.text)
    .join('');
}

const chatChunk = (delta: object, finish: string | null) => ({ data: { id: 'chatcmpl-held', object: 'chat.completion.chunk', created: 1700000000, model: 'gpt-4o-mini', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] } });
const geminiFragment = (text: string, last: boolean) => ({
  data: { candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }], usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 1, totalTokenCount: 4 }, modelVersion: 'gemini-2.0-flash', responseId: 'held' },
});

const HELD_CASES = [
  {
    name: 'openai format',
    enqueue: (behaviour: never) => openai.enqueue(behaviour),
    key: () => keys.openai,
    model: 'gpt-4o-mini',
    head: () => sse([chatChunk({ role: 'assistant', content: 'Hello' }, null)]),
    tail: () => sse([chatChunk({ content: ' world' }, null), chatChunk({}, 'stop'), { data: '[DONE]' }]),
    contentType: 'text/event-stream',
  },
  {
    name: 'gemini',
    enqueue: (behaviour: never) => gemini.enqueue(behaviour),
    key: () => keys.gemini,
    model: 'gemini-2.0-flash',
    head: () => sse([geminiFragment('Hello', false)]),
    tail: () => sse([geminiFragment(' world', true)]),
    contentType: 'text/event-stream',
  },
  {
    name: 'bedrock',
    enqueue: (behaviour: never) => bedrock.enqueue(behaviour),
    key: () => keys.bedrock,
    model: 'anthropic.claude-3-5-sonnet-20240620-v1:0',
    head: () => [eventFrame('messageStart', { role: 'assistant' }), eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hello' } })],
    tail: () => [
      eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: ' world' } }),
      eventFrame('contentBlockStop', { contentBlockIndex: 0 }),
      eventFrame('messageStop', { stopReason: 'end_turn' }),
      eventFrame('metadata', { usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 }, metrics: { latencyMs: 5 } }),
    ],
    contentType: 'application/vnd.amazon.eventstream',
  },
];

describe('a translated Messages stream reaches the client while the provider is still answering', () => {
  it.each(HELD_CASES)('$name: the first text_delta arrives before the provider sends its last event', async (testCase) => {
    const held = holdStreamTail(testCase.head(), testCase.tail(), testCase.contentType);
    testCase.enqueue(held.behaviour as never);
    const response = await fetch(`${gateway.baseUrl}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${testCase.key()}`, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: testCase.model, max_tokens: 64, stream: true, messages: [{ role: 'user', content: 'Say hello' }] }),
    });
    expect(response.status, response.status === 200 ? '' : await response.clone().text()).toBe(200);
    const received = await readPastHeldTail(response, held, messagesText, `${testCase.name}: no text_delta within 3 s while the provider held its tail: the gateway holds translated Messages streams back`);
    expect(messagesText(received)).toBe('Hello world');
    expect(received).toContain('event: message_stop');
  });
});

// ---- Bad input: a 400 (or 415) in Anthropic's shape naming the field, never a 5xx -------------------

async function postRaw(path: string, body: BodyInit, headers: Record<string, string> = {}): Promise<{ status: number; json: AnthropicErrorBody; text: string }> {
  const response = await fetch(`${gateway.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${keys.openai}`, 'anthropic-version': '2023-06-01', ...headers },
    body,
  });
  const text = await response.text();
  let json: AnthropicErrorBody;
  try {
    json = JSON.parse(text) as AnthropicErrorBody;
  } catch {
    json = { type: '', error: { type: '', message: text } };
  }
  return { status: response.status, json, text };
}

function expectAnthropicError(reply: { status: number; json: AnthropicErrorBody; text: string }, status: number, mentions?: string): void {
  expect(reply.status, reply.text).toBe(status);
  expect(reply.json.type, reply.text).toBe('error');
  expect(reply.json.error.type).toBe('invalid_request_error');
  expect(typeof reply.json.error.message).toBe('string');
  if (mentions) expect(reply.json.error.message).toContain(mentions);
}

describe('bad input on /v1/messages and /v1/messages/count_tokens', () => {
  it.each([
    ['a JSON array', '[]', undefined],
    ['no model', JSON.stringify({ max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }), 'model'],
    ['a numeric model', JSON.stringify({ model: 5, max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }), 'model'],
    ['messages not a list', JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 5, messages: {} }), 'messages'],
    ['stream not a boolean', JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 5, stream: 'yes', messages: [{ role: 'user', content: 'hi' }] }), 'stream'],
    ['invalid JSON', '{"model": "gpt-4o-mini",', undefined],
    ['an empty body', '', undefined],
  ])('%s → 400', async (_name, body, field) => {
    expectAnthropicError(await postRaw('/v1/messages', body), 400, field);
    expectAnthropicError(await postRaw('/v1/messages/count_tokens', body), 400, field);
  });

  it.each([
    ['content a number', { model: 'gpt-4o-mini', max_tokens: 5, messages: [{ role: 'user', content: 42 }] }, 'content'],
    ['an unknown role', { model: 'gpt-4o-mini', max_tokens: 5, messages: [{ role: 'robot', content: 'hi' }] }, 'role'],
    ['a block without type', { model: 'gpt-4o-mini', max_tokens: 5, messages: [{ role: 'user', content: [{ text: 'hi' }] }] }, 'type'],
    ['max_tokens a string', { model: 'gpt-4o-mini', max_tokens: 'many', messages: [{ role: 'user', content: 'hi' }] }, 'max_tokens'],
    ['tools not a list', { model: 'gpt-4o-mini', max_tokens: 5, tools: 'Read', messages: [{ role: 'user', content: 'hi' }] }, 'tools'],
    ['system a number', { model: 'gpt-4o-mini', max_tokens: 5, system: 7, messages: [{ role: 'user', content: 'hi' }] }, 'system'],
  ])('translated, %s → 400 naming the field', async (_name, body, field) => {
    expectAnthropicError(await postRaw('/v1/messages', JSON.stringify(body)), 400, field);
  });

  it('a body that is not UTF-8 → 400', async () => {
    const bytes = Buffer.concat([Buffer.from('{"model":"gpt-4o-mini","max_tokens":5,"messages":[{"role":"user","content":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}]}')]);
    expectAnthropicError(await postRaw('/v1/messages', bytes), 400, 'UTF-8');
  });

  it('Content-Type: text/plain → 415 saying to send application/json', async () => {
    const reply = await postRaw('/v1/messages', JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }), { 'content-type': 'text/plain' });
    expect(reply.status, reply.text).toBe(415);
    expect(reply.json.type).toBe('error');
    expect(reply.json.error.message).toContain('application/json');
    const withCharset = await postRaw('/v1/messages', JSON.stringify({ model: 'gpt-4o-mini', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] }), { 'content-type': 'application/json; charset=utf-8' });
    expect(withCharset.status, withCharset.text).toBe(200);
  });

  it('GET /v1/messages → 405 in Anthropic’s shape', async () => {
    const response = await fetch(`${gateway.baseUrl}/v1/messages`, { headers: { authorization: `Bearer ${keys.openai}` } });
    expect(response.status).toBe(405);
    expect(((await response.json()) as AnthropicErrorBody).type).toBe('error');
  });
});

const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(-0), fc.constant(2 ** 63), fc.constant(''));
const block = fc.oneof(
  fc.record({ type: fc.constantFrom('text', 'image', 'tool_use', 'tool_result', 'thinking', 'document', 'nonsense'), text: anyValue, id: anyValue, name: anyValue, input: anyValue, tool_use_id: anyValue, content: anyValue, source: anyValue }, { requiredKeys: ['type'] }),
  anyValue,
);
const messagesBody = fc.record(
  {
    model: fc.oneof(fc.constantFrom('gpt-4o-mini', 'claude-sonnet-4-5'), anyValue),
    max_tokens: fc.oneof(fc.integer({ min: -5, max: 200_000 }), anyValue),
    stream: fc.oneof(fc.boolean(), anyValue),
    system: fc.oneof(fc.string({ maxLength: 10 }), fc.array(block, { maxLength: 2 }), anyValue),
    messages: fc.oneof(fc.array(fc.record({ role: fc.oneof(fc.constantFrom('user', 'assistant', 'system'), anyValue), content: fc.oneof(fc.string({ maxLength: 10 }), fc.array(block, { maxLength: 3 }), anyValue) }, { requiredKeys: [] }), { maxLength: 4 }), anyValue),
    tools: fc.oneof(fc.array(fc.record({ name: anyValue, description: anyValue, input_schema: anyValue, type: anyValue }, { requiredKeys: [] }), { maxLength: 2 }), anyValue),
    tool_choice: fc.oneof(fc.record({ type: fc.constantFrom('auto', 'any', 'none', 'tool', 'x'), name: anyValue }, { requiredKeys: [] }), anyValue),
    temperature: anyValue,
    top_p: anyValue,
    top_k: anyValue,
    stop_sequences: anyValue,
    thinking: fc.oneof(fc.record({ type: fc.constantFrom('enabled', 'adaptive', 'disabled'), budget_tokens: anyValue }, { requiredKeys: [] }), anyValue),
    metadata: anyValue,
  },
  { requiredKeys: [] },
);

describe('fuzzed Messages bodies never get a 5xx', () => {
  it.each([
    ['translated to an OpenAI-format provider', () => keys.openai],
    ['translated to Gemini', () => keys.gemini],
    ['passed through to Anthropic', () => keys.anthropic],
  ])('%s', async (_name, key) => {
    await fc.assert(
      fc.asyncProperty(messagesBody, fc.constantFrom('/v1/messages', '/v1/messages/count_tokens'), async (body, path) => {
        const reply = await postRaw(path, JSON.stringify(body), { authorization: `Bearer ${key()}` });
        expect(reply.status, `${path} ${JSON.stringify(body)} → ${reply.text.slice(0, 300)}`).toBeLessThan(500);
        if (reply.status >= 400) expect(reply.json.type, reply.text).toBe('error');
      }),
      { numRuns: 120 },
    );
  }, 60_000);
});
