import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { anthropicError, startAnthropicFake, streamThenOverloaded, type AnthropicFake } from '../fakes/anthropic.js';
import { finishReasons, readDataLines, streamedText } from '../helpers/sse.js';

const TOKEN = 'sk-ant-test-token';
const MODEL = 'claude-sonnet-4-5';

let gateway: TestGateway;
let fake: AnthropicFake;

beforeAll(async () => {
  [gateway, fake] = await Promise.all([startGateway(), startAnthropicFake()]);
});

afterAll(async () => {
  await Promise.all([gateway?.close(), fake?.close()]);
});

beforeEach(() => {
  fake.requests.length = 0;
});

function headers(extra: Record<string, string> = {}): Record<string, string> {
  return {
    'content-type': 'application/json',
    'x-gateway-api-key': gateway.apiKey,
    'x-gateway-provider': 'anthropic',
    'x-gateway-custom-host': fake.baseUrl,
    authorization: `Bearer ${TOKEN}`,
    ...extra,
  };
}

function post(path: string, body: unknown, extra: Record<string, string> = {}): Promise<Response> {
  return fetch(`${gateway.baseUrl}/v1/${path}`, { method: 'POST', headers: headers(extra), body: JSON.stringify(body) });
}

function sdk(): OpenAI {
  return new OpenAI({
    apiKey: TOKEN,
    baseURL: `${gateway.baseUrl}/v1`,
    defaultHeaders: { 'x-gateway-api-key': gateway.apiKey, 'x-gateway-provider': 'anthropic', 'x-gateway-custom-host': fake.baseUrl },
    maxRetries: 0,
  });
}

describe('anthropic: /v1/completions through Messages', () => {
  it('sends the prompt as one user message with x-api-key and anthropic-version, and answers a text_completion', async () => {
    const res = await post('completions', { model: MODEL, prompt: 'Say hi', max_tokens: 20, stop: 'END', temperature: 0.5, top_p: 0.9, user: 'user-42' });
    expect(res.status).toBe(200);
    const answer = await res.json();
    expect(answer).toMatchObject({
      id: 'msg_fake_01',
      object: 'text_completion',
      model: MODEL,
      choices: [{ index: 0, text: 'Claude heard: Say hi', logprobs: null, finish_reason: 'stop' }],
      // input 11 + cache creation 2 + cache read 5: cached tokens are prompt tokens too.
      usage: { prompt_tokens: 18, completion_tokens: 4, total_tokens: 22 },
    });
    expect(typeof answer.created).toBe('number');

    expect(fake.requests).toHaveLength(1);
    const sent = fake.requests[0];
    expect(sent.method).toBe('POST');
    expect(sent.url).toBe('/v1/messages');
    expect(sent.headers['x-api-key']).toBe(TOKEN);
    expect(sent.headers['anthropic-version']).toBe('2023-06-01');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.json).toEqual({
      model: MODEL,
      max_tokens: 20,
      messages: [{ role: 'user', content: 'Say hi' }],
      stop_sequences: ['END'],
      temperature: 0.5,
      top_p: 0.9,
      metadata: { user_id: 'user-42' },
    });
  });

  it('asks for 16 tokens when the client names no max_tokens, as OpenAI would generate', async () => {
    await post('completions', { model: MODEL, prompt: 'Hi' });
    expect(fake.requests[0].json.max_tokens).toBe(16);
  });

  it('passes the client’s anthropic-beta header on', async () => {
    await post('completions', { model: MODEL, prompt: 'Hi' }, { 'anthropic-beta': 'prompt-caching-2024-07-31' });
    expect(fake.requests[0].headers['anthropic-beta']).toBe('prompt-caching-2024-07-31');
  });

  it('streams text_completion chunks as the typed events arrive, with the usage chunk and data: [DONE]', async () => {
    const res = await post('completions', { model: MODEL, prompt: 'Stream me', stream: true, stream_options: { include_usage: true } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const stream = readDataLines(await res.text());
    expect(stream.done).toBe(true);
    expect(stream.raw.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(streamedText(stream.chunks)).toBe('Claude heard: Stream me');
    for (const chunk of stream.chunks) {
      expect(chunk).toMatchObject({ id: 'msg_fake_01', object: 'text_completion', model: MODEL });
    }
    const textChunks = stream.chunks.filter((chunk) => (chunk.choices as unknown[]).length > 0);
    for (const chunk of textChunks) {
      expect(chunk.usage).toBeNull();
      expect((chunk.choices as Record<string, unknown>[])[0]).toMatchObject({ index: 0, logprobs: null });
    }
    expect(finishReasons(stream.chunks)).toEqual(['stop']);
    const last = stream.chunks.at(-1)!;
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({ prompt_tokens: 18, completion_tokens: 4, total_tokens: 22, prompt_tokens_details: { cached_tokens: 5 } });
    expect(fake.requests[0].json.stream).toBe(true);
  });

  it('records the streamed usage in the request log even when the client asked for no usage chunk', async () => {
    const streamed = await post('completions', { model: MODEL, prompt: 'Count me', stream: true }, { 'x-gateway-trace-id': 'anthropic-stream-usage' });
    expect(readDataLines(await streamed.text()).chunks.every((chunk) => !('usage' in chunk))).toBe(true);
    await gateway.flushLog();
    const logs = (await (await gateway.admin('/logs?q=anthropic-stream-usage')).json()) as { items: { promptTokens: number; completionTokens: number; stream: boolean }[] };
    expect(logs.items[0]).toMatchObject({ stream: true, promptTokens: 18, completionTokens: 4 });
  });

  it('serves n=2 with two Messages calls merged into choices 0 and 1', async () => {
    const res = await post('completions', { model: MODEL, prompt: 'Twice', n: 2 });
    const answer = await res.json();
    expect(fake.requests).toHaveLength(2);
    expect(answer.choices.map((choice: { index: number }) => choice.index)).toEqual([0, 1]);
    expect(answer.usage.prompt_tokens).toBe(36);
    for (const request of fake.requests) expect(request.json).not.toHaveProperty('n');
  });

  it('streams n=2 as two Messages streams on choices 0 and 1, with one summed usage chunk', async () => {
    const res = await post('completions', { model: MODEL, prompt: 'Both', n: 2, stream: true, stream_options: { include_usage: true } });
    const stream = readDataLines(await res.text());
    expect(fake.requests).toHaveLength(2);
    const textOf = (index: number) =>
      stream.chunks.flatMap((chunk) => (chunk.choices as { index: number; text: string }[]).filter((choice) => choice.index === index).map((choice) => choice.text)).join('');
    expect(textOf(0)).toBe('Claude heard: Both');
    expect(textOf(1)).toBe('Claude heard: Both');
    const usageChunks = stream.chunks.filter((chunk) => (chunk.choices as unknown[]).length === 0);
    expect(usageChunks).toHaveLength(1);
    expect(usageChunks[0].usage).toMatchObject({ prompt_tokens: 36, completion_tokens: 8, total_tokens: 44 });
    expect(stream.done).toBe(true);
  });

  it.each([
    [{ logprobs: 2 }, 'logprobs'],
    [{ best_of: 3 }, 'best_of'],
    [{ echo: true }, 'echo'],
    [{ suffix: 'after' }, 'suffix'],
    [{ logit_bias: { '50256': -100 } }, 'logit_bias'],
    [{ seed: 7 }, 'seed'],
    [{ presence_penalty: 0.5 }, 'presence_penalty'],
    [{ temperature: 1.5 }, 'temperature'],
    [{ prompt: [1, 2, 3] }, 'prompt'],
    [{ prompt: ['one', 'two'] }, 'prompt'],
  ])('refuses %j with a 400 naming the field and the provider', async (fields, param) => {
    const res = await post('completions', { model: MODEL, prompt: 'Hi', ...fields });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toMatchObject({ type: 'invalid_request_error', param, provider: 'anthropic' });
    expect(body.error.message).toContain(param);
    expect(body.error.message).toContain("'anthropic'");
    expect(fake.requests).toHaveLength(0);
  });

  it('accepts fields set to their defaults (echo false, penalties 0, best_of 1)', async () => {
    const res = await post('completions', { model: MODEL, prompt: 'Hi', echo: false, presence_penalty: 0, frequency_penalty: 0, best_of: 1, logit_bias: {} });
    expect(res.status).toBe(200);
  });
});

describe('anthropic: /v1/chat/completions', () => {
  it('moves system messages to the top-level system, keeps turns, and answers a chat.completion to the OpenAI SDK', async () => {
    const completion = await sdk().chat.completions.create({
      model: MODEL,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: 'Answer in English.' },
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi there' },
        { role: 'user', content: [{ type: 'text', text: 'What is ' }, { type: 'text', text: '2+2?' }] },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0].message).toMatchObject({ role: 'assistant', content: 'Claude heard: What is 2+2?' });
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.usage).toMatchObject({ prompt_tokens: 18, completion_tokens: 4, total_tokens: 22 });

    expect(fake.requests[0].json).toEqual({
      model: MODEL,
      // No limit from the client: the chat default.
      max_tokens: 4096,
      system: 'Be brief.\n\nAnswer in English.',
      messages: [
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi there' },
        { role: 'user', content: [{ type: 'text', text: 'What is ' }, { type: 'text', text: '2+2?' }] },
      ],
    });
  });

  it('prefers max_completion_tokens', async () => {
    await post('chat/completions', { model: MODEL, messages: [{ role: 'user', content: 'Hi' }], max_completion_tokens: 77, max_tokens: 5 });
    expect(fake.requests[0].json.max_tokens).toBe(77);
  });

  it('streams chat.completion.chunk objects to the OpenAI SDK, the first naming the role', async () => {
    const stream = await sdk().chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Stream please' }], stream: true, stream_options: { include_usage: true } });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Claude heard: Stream please');
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks.flatMap((chunk) => chunk.choices.map((choice) => choice.finish_reason)).filter(Boolean)).toEqual(['stop']);
    expect(chunks.at(-1)!.usage).toMatchObject({ prompt_tokens: 18, completion_tokens: 4 });
  });

  it('refuses response_format json_object (Messages has no JSON mode) but accepts the default text format', async () => {
    const json = await post('chat/completions', { model: MODEL, messages: [{ role: 'user', content: 'Hi' }], response_format: { type: 'json_object' } });
    expect(json.status).toBe(400);
    expect((await json.json()).error).toMatchObject({ param: 'response_format', provider: 'anthropic' });
    const text = await post('chat/completions', { model: MODEL, messages: [{ role: 'user', content: 'Hi' }], response_format: { type: 'text' } });
    expect(text.status).toBe(200);
  });

  it('sends image parts as image blocks, from a data: URL or a web address', async () => {
    const res = await post('chat/completions', {
      model: MODEL,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
            { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'low' } },
          ],
        },
      ],
    });
    expect(res.status).toBe(200);
    expect(fake.requests[0].json.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
        ],
      },
    ]);
  });

  it('refuses audio parts, images outside user messages and tools that are not functions with a 400 naming them', async () => {
    const audio = await post('chat/completions', { model: MODEL, messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }] }] });
    expect(audio.status).toBe(400);
    expect((await audio.json()).error).toMatchObject({ param: 'messages[0].content[0]', provider: 'anthropic' });

    const systemImage = await post('chat/completions', { model: MODEL, messages: [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }, { role: 'user', content: 'Hi' }] });
    expect(systemImage.status).toBe(400);
    expect((await systemImage.json()).error).toMatchObject({ param: 'messages[0].content[0]', provider: 'anthropic' });

    const custom = await post('chat/completions', { model: MODEL, messages: [{ role: 'user', content: 'Hi' }], tools: [{ type: 'custom', custom: { name: 'x' } }] });
    expect(custom.status).toBe(400);
    expect((await custom.json()).error).toMatchObject({ param: 'tools[0]', provider: 'anthropic' });

    const onCompletion = await post('completions', { model: MODEL, prompt: 'Hi', tools: [{ type: 'function', function: { name: 'f' } }] });
    expect(onCompletion.status).toBe(400);
    expect((await onCompletion.json()).error).toMatchObject({ param: 'tools', provider: 'anthropic' });
    expect(fake.requests).toHaveLength(0);
  });
});

const WEATHER_TOOL = {
  type: 'function' as const,
  function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
};

describe('anthropic: function calling', () => {
  it('declares OpenAI tools as Messages tools and answers the SDK with tool_calls', async () => {
    const completion = await sdk().chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [WEATHER_TOOL],
      tool_choice: 'required',
      parallel_tool_calls: false,
    });
    expect(completion.choices[0].finish_reason).toBe('tool_calls');
    expect(completion.choices[0].message.content).toBeNull();
    expect(completion.choices[0].message.tool_calls).toEqual([{ id: 'toolu_fake_01', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]);
    expect(fake.requests[0].json).toMatchObject({
      tools: [{ name: 'get_weather', description: 'Weather in a city', input_schema: WEATHER_TOOL.function.parameters }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
    });
  });

  it('sends an assistant tool call and the tool results back as tool_use and tool_result blocks', async () => {
    const completion = await sdk().chat.completions.create({
      model: MODEL,
      tools: [WEATHER_TOOL],
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'toolu_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'toolu_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_a', content: '18C' },
        { role: 'tool', tool_call_id: 'toolu_b', content: '24C' },
      ],
    });
    expect(completion.choices[0].message.content).toBe('Tools said: 18C, 24C');
    expect(fake.requests[0].json.messages).toEqual([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_b', name: 'get_weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: '18C' },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: '24C' },
        ],
      },
    ]);
  });

  it('streams a tool call as OpenAI tool_calls deltas the SDK can assemble', async () => {
    const stream = await sdk().chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: 'Weather?' }], tools: [WEATHER_TOOL], stream: true });
    let text = '';
    const calls: { id?: string; name?: string; arguments: string }[] = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (!choice) continue;
      text += choice.delta.content ?? '';
      for (const delta of choice.delta.tool_calls ?? []) {
        calls[delta.index] ??= { arguments: '' };
        if (delta.id) calls[delta.index].id = delta.id;
        if (delta.function?.name) calls[delta.index].name = delta.function.name;
        calls[delta.index].arguments += delta.function?.arguments ?? '';
      }
      finish = choice.finish_reason ?? finish;
    }
    expect(text).toBe('Let me check.');
    expect(calls).toEqual([{ id: 'toolu_fake_01', name: 'get_weather', arguments: '{"city":"Paris"}' }]);
    expect(finish).toBe('tool_calls');
  });

  it('refuses a tool message that answers no earlier tool call', async () => {
    const res = await post('chat/completions', { model: MODEL, messages: [{ role: 'user', content: 'Hi' }, { role: 'tool', tool_call_id: 'nope', content: 'x' }] });
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).toContain('messages[1].tool_call_id');
  });
});

describe('anthropic: errors', () => {
  it('relays the provider’s status and message, naming the provider', async () => {
    fake.enqueue(anthropicError(429, 'rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'));
    const res = await post('completions', { model: MODEL, prompt: 'Hi' });
    expect(res.status).toBe(429);
    expect((await res.json()).error).toEqual({
      message: 'Number of request tokens has exceeded your per-minute rate limit',
      type: 'rate_limit_error',
      param: null,
      code: 'rate_limit_error',
      provider: 'anthropic',
    });
  });

  it('relays an overloaded 529 to the OpenAI SDK as an APIError with the same status and message', async () => {
    fake.enqueue(anthropicError(529, 'overloaded_error', 'Overloaded'));
    const error = await sdk().completions.create({ model: MODEL, prompt: 'Hi' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.APIError);
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(529);
    expect((error as InstanceType<typeof OpenAI.APIError>).message).toContain('Overloaded');
  });

  it('ends the stream with an error event when Anthropic sends an error event mid-stream', async () => {
    fake.enqueue(streamThenOverloaded);
    const res = await post('completions', { model: MODEL, prompt: 'Hi', stream: true });
    const stream = readDataLines(await res.text());
    expect(streamedText(stream.chunks.filter((chunk) => !chunk.error))).toBe('Partial');
    expect(stream.done).toBe(false);
    expect(stream.chunks.at(-1)!.error).toMatchObject({ message: 'Overloaded', code: 'overloaded_error', provider: 'anthropic' });
  });

  it('needs a token unless a custom host is given', async () => {
    const res = await fetch(`${gateway.baseUrl}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': gateway.apiKey, 'x-gateway-provider': 'anthropic' },
      body: JSON.stringify({ model: MODEL, prompt: 'Hi' }),
    });
    expect(res.status).toBe(401);
    expect((await res.json()).error.provider).toBe('anthropic');
  });
});

describe('anthropic: virtual keys', () => {
  it('serves an OpenAI SDK that knows only the base URL and a virtual key as its API key', async () => {
    const created = await gateway.admin('/virtual-keys', {
      method: 'POST',
      body: JSON.stringify({ name: 'claude', provider: 'anthropic', secret: 'sk-ant-stored', customHost: fake.baseUrl }),
    });
    const { key } = (await created.json()) as { key: string };
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0 });
    const completion = await client.completions.create({ model: MODEL, prompt: 'From a plain SDK' });
    expect(completion.choices[0].text).toBe('Claude heard: From a plain SDK');
    expect(fake.requests[0].headers['x-api-key']).toBe('sk-ant-stored');
    expect(JSON.stringify(fake.requests[0].headers)).not.toContain(key);
  });
});

describe('anthropic: an answer that stops halfway', () => {
  it('is a 504 when the request timeout passes while the body is still arriving, not an internal error', async () => {
    fake.enqueue((_request, res) => {
      // Headers and the start of the JSON, then nothing: the gateway holds the body to translate it.
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":"msg_01","type":"message","content":[');
    });
    const res = await post('completions', { model: MODEL, prompt: 'Say hi', max_tokens: 20 }, { 'x-gateway-request-timeout': '300' });
    expect(res.status).toBe(504);
    expect((await res.json()).error).toMatchObject({ type: 'gateway_error', code: 'timeout', provider: 'anthropic' });
  });
});

// What chat clients send and OpenAI accepts, but the Messages API refuses (issue 16). The double refuses
// it as the real API does, so a translation that passes blank text through fails here with its 400.
describe('anthropic: blank and empty chat content never reaches Messages', () => {
  async function expectAccepted(res: Response): Promise<void> {
    const text = await res.text();
    expect(res.status, `the gateway (or the strict double behind it) refused a chat OpenAI accepts: ${text}`).toBe(200);
  }

  it("drops an assistant's empty content beside its tool_calls (OpenCode's tool turns) instead of sending an empty text block", async () => {
    const res = await post('chat/completions', {
      model: MODEL,
      tools: [WEATHER_TOOL],
      messages: [
        { role: 'system', content: '' },
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: '', tool_calls: [{ id: 'toolu_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'toolu_a', content: '18C' },
      ],
    });
    await expectAccepted(res);
    const sent = fake.requests[0].json;
    expect(sent.system, 'a blank system message adds no system prompt').toBeUndefined();
    expect(sent.messages).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: { city: 'Paris' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_a', content: '18C' }] },
    ]);
  });

  it('drops blank text parts and an assistant message with nothing in it, keeping the rest', async () => {
    const res = await post('chat/completions', {
      model: MODEL,
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Hello' }, { type: 'text', text: '  \n' }] },
        { role: 'assistant', content: '' },
        { role: 'user', content: 'Again' },
      ],
    });
    await expectAccepted(res);
    // The two user turns the empty assistant message separated become one, as Messages itself would combine them.
    expect(fake.requests[0].json.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Hello' },
          { type: 'text', text: 'Again' },
        ],
      },
    ]);
  });

  it('cuts the trailing whitespace of a final assistant message (a prefill), which Messages refuses', async () => {
    const res = await post('chat/completions', { model: MODEL, messages: [{ role: 'user', content: 'Count' }, { role: 'assistant', content: 'One, two, ' }] });
    await expectAccepted(res);
    expect(fake.requests[0].json.messages).toEqual([
      { role: 'user', content: 'Count' },
      { role: 'assistant', content: 'One, two,' },
    ]);
  });

  it.each([
    ['an empty string', [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello' }, { role: 'user', content: '' }], 'messages[2].content'],
    ['only an empty text part', [{ role: 'user', content: [{ type: 'text', text: '' }] }], 'messages[0].content'],
    ['only whitespace', [{ role: 'system', content: 'Be brief' }, { role: 'user', content: ' \n ' }], 'messages[1].content'],
  ])('refuses a user message with %s: 400 naming the field, nothing sent', async (_case, messages, param) => {
    const res = await post('chat/completions', { model: MODEL, messages });
    const answer = await res.json();
    expect(res.status, JSON.stringify(answer)).toBe(400);
    expect(answer.error, `the gateway should refuse before sending: ${JSON.stringify(answer)}`).toMatchObject({ type: 'invalid_request_error', param });
    expect(fake.requests, 'nothing the real API refuses is sent').toHaveLength(0);
  });

  it('refuses a chat of system messages only (Messages needs a message): 400 naming messages', async () => {
    const res = await post('chat/completions', { model: MODEL, messages: [{ role: 'system', content: 'You are terse.' }] });
    const answer = await res.json();
    expect(res.status, JSON.stringify(answer)).toBe(400);
    expect(answer.error, `the gateway should refuse before sending: ${JSON.stringify(answer)}`).toMatchObject({ type: 'invalid_request_error', param: 'messages' });
    expect(fake.requests).toHaveLength(0);
  });

  it('refuses a conversation that opens with the assistant (Messages wants the user first): 400 naming that message', async () => {
    const res = await post('chat/completions', { model: MODEL, messages: [{ role: 'system', content: 'Greet' }, { role: 'assistant', content: 'Hi! How can I help?' }, { role: 'user', content: 'Tell a joke' }] });
    const answer = await res.json();
    expect(res.status, JSON.stringify(answer)).toBe(400);
    expect(answer.error, `the gateway should refuse before sending: ${JSON.stringify(answer)}`).toMatchObject({ type: 'invalid_request_error', param: 'messages[1]' });
    expect(answer.error.message).toMatch(/start with a user message/);
    expect(fake.requests).toHaveLength(0);
  });

  it('refuses an empty completion prompt: 400 naming prompt', async () => {
    const res = await post('completions', { model: MODEL, prompt: '', max_tokens: 5 });
    const answer = await res.json();
    expect(res.status, JSON.stringify(answer)).toBe(400);
    expect(answer.error, `the gateway should refuse before sending: ${JSON.stringify(answer)}`).toMatchObject({ type: 'invalid_request_error', param: 'prompt' });
    expect(fake.requests).toHaveLength(0);
  });
});
