// Issue 24: the official `@google/genai` SDK pointed at Gatehouse (baseUrl = the gateway root, apiKey = a
// virtual key, sent as `x-goog-api-key`), as Gemini CLI and SDK users do, on both of its path spellings
// (`/v1beta`, what Gemini CLI calls, and `/v1`), against providers in four wire formats: a Gemini double (the
// body goes up byte for byte and the answer comes back so), an OpenAI-format one, Anthropic's and Bedrock
// Converse (translated). Plain, streamed, counted and function-calling turns, model lists in Gemini's shape,
// the streamed JSON array, errors in Google's shape, and bad or fuzzed input that never earns a 5xx.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { GoogleGenAI, Type, type Content, type FunctionDeclaration, type GenerateContentResponse } from '@google/genai';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startAnthropicFake, streamThenOverloaded, type AnthropicFake } from '../fakes/anthropic.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { startGeminiFake, streamThenError, FAKE_GEMINI_MODELS, type GeminiFake } from '../fakes/gemini.js';
import { startBedrockFake, type AwsTestCredentials, type BedrockFake } from '../fakes/bedrock.js';
import { bedrockToolTurn, chatToolTurn } from '../helpers/dialect-doubles.js';

const AWS: AwsTestCredentials = { accessKeyId: 'AKIAGEMINIDIALECT001', secretAccessKey: 'gemini/dialect/secret/access/key/00000001' };
const GEMINI_SECRET = 'AIza-stored-gemini-dialect-0001';

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
  keys.gemini = await createVirtualKey({ name: 'genai-gemini', provider: 'google', secret: GEMINI_SECRET, customHost: gemini.baseUrl });
  keys.openai = await createVirtualKey({ name: 'genai-openai', provider: 'openai', secret: 'sk-openai-stored-genai', customHost: openai.baseUrl });
  keys.anthropic = await createVirtualKey({ name: 'genai-anthropic', provider: 'anthropic', secret: 'sk-ant-stored-genai-0001', customHost: anthropic.baseUrl });
  keys.bedrock = await createVirtualKey({
    name: 'genai-bedrock',
    provider: 'bedrock',
    secret: AWS.secretAccessKey,
    customHost: bedrock.baseUrl,
    cloud: { cloud_c_access_key_id: AWS.accessKeyId, cloud_c_region: 'us-west-2' },
  });
});
afterAll(async () => {
  await Promise.all([gateway?.close(), anthropic?.close(), openai?.close(), gemini?.close(), bedrock?.close()]);
});

const client = (key: string, apiVersion = 'v1beta', headers: Record<string, string> = {}) =>
  new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: gateway.baseUrl, apiVersion, headers } });

interface Target {
  name: string;
  key: () => string;
  model: string;
  /** The text the double answers to "hi". */
  hello: RegExp;
  /** Scripts the double for one call of a function-calling turn, where its default answer has no tools. */
  scriptTools?: () => void;
}

const TARGETS: Target[] = [
  { name: 'google (passthrough)', key: () => keys.gemini, model: 'gemini-2.5-flash', hello: /^Gemini heard: hi$/ },
  { name: 'openai format (translated)', key: () => keys.openai, model: 'gpt-4o-mini', hello: /^Hello from the fake$/, scriptTools: () => openai.enqueue(chatToolTurn) },
  { name: 'anthropic (translated)', key: () => keys.anthropic, model: 'claude-sonnet-4-5', hello: /^Claude heard: hi$/ },
  { name: 'bedrock converse (translated)', key: () => keys.bedrock, model: 'anthropic.claude-3-5-sonnet-20240620-v1:0', hello: /^bedrock says: hi$/, scriptTools: () => bedrock.enqueue(bedrockToolTurn) },
];

/** As Gemini CLI declares its tools: JSON Schema in `parametersJsonSchema`. */
const WEATHER_JSON_SCHEMA: FunctionDeclaration = {
  name: 'get_weather',
  description: 'The weather in a city',
  parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
/** As SDK users declare them: OpenAPI's upper-case types in `parameters`. */
const WEATHER_OPENAPI: FunctionDeclaration = {
  name: 'get_weather',
  description: 'The weather in a city',
  parameters: { type: Type.OBJECT, properties: { city: { type: Type.STRING, description: 'The city' } }, required: ['city'] },
};

const lastUpstreamBody = (target: Target): Record<string, unknown> => {
  const double = target.name.startsWith('openai') ? openai : target.name.startsWith('anthropic') ? anthropic : target.name.startsWith('bedrock') ? bedrock : gemini;
  return double.requests.at(-1)!.json;
};

describe.each(TARGETS.flatMap((target) => ['v1beta', 'v1'].map((apiVersion) => ({ ...target, apiVersion }))))('@google/genai ($apiVersion) → Gatehouse → $name', (target) => {
  it('generateContent: a plain turn with text, finishReason and usageMetadata', async () => {
    const response = await client(target.key(), target.apiVersion).models.generateContent({ model: target.model, contents: 'hi', config: { temperature: 0.5, maxOutputTokens: 256 } });
    expect(response.text).toMatch(target.hello);
    expect(response.candidates?.[0]?.finishReason).toBe('STOP');
    expect(response.usageMetadata?.promptTokenCount).toBeGreaterThan(0);
    expect(response.usageMetadata?.candidatesTokenCount).toBeGreaterThan(0);
    expect(response.usageMetadata?.totalTokenCount).toBeGreaterThan(0);
  });

  it('generateContentStream: the text arrives in pieces; the last carries finishReason and usage', async () => {
    const stream = await client(target.key(), target.apiVersion).models.generateContentStream({
      model: target.model,
      contents: [{ role: 'user', parts: [{ text: 'hi' }] }],
      config: { systemInstruction: 'Be brief.', temperature: 0, topP: 1, topK: 64, thinkingConfig: { includeThoughts: true, thinkingBudget: 1024 } },
    });
    const chunks: GenerateContentResponse[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.map((chunk) => chunk.text ?? '').join('')).toMatch(target.hello);
    const last = chunks.at(-1)!;
    expect(last.candidates?.[0]?.finishReason).toBe('STOP');
    expect(last.usageMetadata?.totalTokenCount).toBeGreaterThan(0);
  });

  it('countTokens: totalTokens', async () => {
    const counted = await client(target.key(), target.apiVersion).models.countTokens({ model: target.model, contents: 'How many tokens is this?' });
    expect(counted.totalTokens).toBeGreaterThan(0);
    if (target.name.startsWith('google')) {
      // Counted by the provider, which the double does by words.
      expect(counted.totalTokens).toBe(5);
      expect(gemini.requests.at(-1)?.url).toBe('/v1beta/models/gemini-2.5-flash:countTokens');
    }
  });

  for (const [streamed, declaration] of [
    [false, WEATHER_JSON_SCHEMA],
    [true, WEATHER_OPENAPI],
  ] as const) {
    it(`a function-calling round trip (${streamed ? 'streamed, OpenAPI parameters' : 'parametersJsonSchema'}): functionCall, functionResponse sent back, final text`, async () => {
      target.scriptTools?.();
      target.scriptTools?.();
      const ai = client(target.key(), target.apiVersion);
      const question: Content = { role: 'user', parts: [{ text: 'What is the weather in Paris?' }] };
      const config = { tools: [{ functionDeclarations: [declaration] }] };
      const ask = async (contents: Content[]): Promise<GenerateContentResponse> => {
        if (!streamed) return ai.models.generateContent({ model: target.model, contents, config });
        const parts: NonNullable<Content['parts']> = [];
        let last: GenerateContentResponse | undefined;
        for await (const chunk of await ai.models.generateContentStream({ model: target.model, contents, config })) {
          parts.push(...(chunk.candidates?.[0]?.content?.parts ?? []));
          last = chunk;
        }
        return Object.assign(Object.create(Object.getPrototypeOf(last)) as GenerateContentResponse, last, { candidates: [{ ...last!.candidates![0], content: { role: 'model', parts } }] });
      };
      const first = await ask([question]);
      const call = first.functionCalls?.[0];
      expect(call, JSON.stringify(first.candidates)).toBeDefined();
      expect(call!.name).toBe('get_weather');
      expect(call!.args).toEqual({ city: 'Paris' });
      if (!target.name.startsWith('google')) {
        // The target was given JSON Schema, whichever way the client declared it.
        expect(JSON.stringify(lastUpstreamBody(target))).toContain('"type":"object"');
        expect(JSON.stringify(lastUpstreamBody(target))).not.toContain('"OBJECT"');
      }
      const modelTurn = first.candidates![0].content!;
      const answer: Content = { role: 'user', parts: [{ functionResponse: { ...(call!.id ? { id: call!.id } : {}), name: 'get_weather', response: { output: 'sunny, 24 C' } } }] };
      const final = await ask([question, modelTurn, answer]);
      expect(final.candidates?.[0]?.finishReason).toBe('STOP');
      expect(final.functionCalls ?? []).toEqual([]);
      expect(final.text).toContain('sunny, 24 C');
    });
  }
});

describe('google passthrough is byte for byte', () => {
  const BODY =
    '{"contents":[{"role":"user","parts":[{"text":"hi"}]}],  "generationConfig":{"temperature":0.2,"thinkingConfig":{"thinkingBudget":-1,"includeThoughts":true}},' +
    '"safetySettings":[{"category":"HARM_CATEGORY_HARASSMENT","threshold":"BLOCK_NONE"}],"futureField":{"n":9007199254740993}}';

  it('generateContent: the body reaches the provider unchanged, with the stored key; the answer comes back unchanged', async () => {
    const direct = await fetch(`${gemini.baseUrl}/v1beta/models/gemini-2.5-flash:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': 'direct', 'content-type': 'application/json' }, body: BODY });
    const expected = await direct.text();
    const response = await fetch(`${gateway.baseUrl}/v1beta/models/gemini-2.5-flash:generateContent`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-goog-api-key': keys.gemini }, body: BODY });
    const text = await response.text();
    expect(response.status, text).toBe(200);
    const received = gemini.requests.at(-1)!;
    expect(received.url).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(received.body.equals(Buffer.from(BODY, 'utf8'))).toBe(true);
    expect(received.headers['x-goog-api-key']).toBe(GEMINI_SECRET);
    expect(JSON.stringify(received.headers)).not.toContain(keys.gemini);
    expect(text).toBe(expected);
  });

  it('streamGenerateContent?alt=sse: relayed event by event, byte for byte', async () => {
    const direct = await fetch(`${gemini.baseUrl}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, { method: 'POST', headers: { 'x-goog-api-key': 'direct', 'content-type': 'application/json' }, body: BODY });
    const expected = await direct.text();
    const response = await fetch(`${gateway.baseUrl}/v1/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, { method: 'POST', headers: { 'x-goog-api-key': keys.gemini, 'content-type': 'application/json' }, body: BODY });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await response.text()).toBe(expected);
    expect(gemini.requests.at(-1)!.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
    expect(gemini.requests.at(-1)!.body.equals(Buffer.from(BODY, 'utf8'))).toBe(true);
  });

  it('streamGenerateContent without alt=sse: the JSON array comes back as the provider wrote it', async () => {
    const direct = await fetch(`${gemini.baseUrl}/v1beta/models/gemini-2.5-flash:streamGenerateContent`, { method: 'POST', headers: { 'x-goog-api-key': 'direct', 'content-type': 'application/json' }, body: BODY });
    const expected = await direct.text();
    const response = await fetch(`${gateway.baseUrl}/v1beta/models/gemini-2.5-flash:streamGenerateContent`, { method: 'POST', headers: { 'x-goog-api-key': keys.gemini, 'content-type': 'application/json' }, body: BODY });
    expect(await response.text()).toBe(expected);
    expect(gemini.requests.at(-1)!.url).toBe('/v1beta/models/gemini-2.5-flash:streamGenerateContent');
  });

  it('a provider error inside the stream reaches the SDK as an error', async () => {
    gemini.enqueue(streamThenError);
    const stream = await client(keys.gemini).models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'hi' });
    await expect(
      (async () => {
        for await (const _chunk of stream) void _chunk;
      })(),
    ).rejects.toThrow(/overloaded/);
  });
});

describe('the streamed JSON array, translated', () => {
  it('without alt=sse a translated stream is one JSON array, in pieces, with the usage at the end', async () => {
    const response = await fetch(`${gateway.baseUrl}/v1beta/models/claude-sonnet-4-5:streamGenerateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': keys.anthropic, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'hi' }] }] }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const fragments = JSON.parse(await response.text()) as GenerateContentResponse[];
    expect(fragments.length).toBeGreaterThan(1);
    expect(fragments.map((fragment) => fragment.candidates?.[0]?.content?.parts?.map((part) => part.text ?? '').join('') ?? '').join('')).toBe('Claude heard: hi');
    expect(fragments.at(-1)!.candidates![0].finishReason).toBe('STOP');
    expect(fragments.at(-1)!.usageMetadata!.promptTokenCount).toBeGreaterThan(0);
  });

  it('a failure mid-stream ends the SSE stream with an error in Google’s shape', async () => {
    anthropic.enqueue(streamThenOverloaded);
    const response = await fetch(`${gateway.baseUrl}/v1beta/models/claude-sonnet-4-5:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'x-goog-api-key': keys.anthropic, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
    });
    const text = await response.text();
    const last = JSON.parse(text.trim().split('\n\n').at(-1)!.replace(/^data: /, '')) as { error: { code: number; status: string; message: string } };
    expect(last.error.status).toBe('UNAVAILABLE');
    expect(last.error.code).toBeGreaterThanOrEqual(500);
    expect(last.error.message).toMatch(/overloaded/i);
  });
});

describe('settings a target takes within its own rules', () => {
  it('temperature and topP together (Gemini CLI sends both on every turn): Claude gets temperature, and the log notes topP', async () => {
    const traceId = `gemini-sampling-${Date.now()}`;
    const response = await client(keys.anthropic, 'v1beta', { 'x-gateway-trace-id': traceId }).models.generateContent({ model: 'claude-sonnet-4-5', contents: 'hi', config: { temperature: 0.5, topP: 0.9, topK: 40 } });
    expect(response.text).toBe('Claude heard: hi');
    const sent = anthropic.requests.at(-1)!.json;
    expect(sent.temperature).toBe(0.5);
    expect(sent.top_p).toBeUndefined();
    expect(sent.top_k).toBe(40);
    await gateway.flushLog();
    const list = (await (await gateway.admin(`/logs?q=${encodeURIComponent(traceId)}`)).json()) as { items: { id: string }[] };
    const row = (await (await gateway.admin(`/logs/${list.items[0].id}`)).json()) as { dropped: string[] };
    expect(row.dropped).toEqual(['generationConfig.topP']);
  });

  it('thinkingConfig becomes the target’s reasoning: a Claude thinking budget', async () => {
    await client(keys.anthropic).models.generateContent({ model: 'claude-sonnet-4-5', contents: 'hi', config: { maxOutputTokens: 4000, thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } } });
    expect(anthropic.requests.at(-1)!.json.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(anthropic.requests.at(-1)!.json.max_tokens).toBe(4000);
  });

  it('responseMimeType with responseSchema (OpenAPI types) becomes a JSON-schema response format with lower-case types', async () => {
    await client(keys.openai).models.generateContent({
      model: 'gpt-4o-mini',
      contents: 'hi',
      config: { responseMimeType: 'application/json', responseSchema: { type: Type.OBJECT, properties: { city: { type: Type.STRING } }, required: ['city'] }, stopSequences: ['END'], candidateCount: 1 },
    });
    const sent = openai.requests.at(-1)!.json;
    expect(sent.response_format).toMatchObject({ type: 'json_schema', json_schema: { schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } });
    expect(sent.stop).toEqual(['END']);
  });

  it('candidateCount 2: two candidates, each from its own call to a format that makes one', async () => {
    const before = anthropic.requests.length;
    const response = await client(keys.anthropic).models.generateContent({ model: 'claude-sonnet-4-5', contents: 'hi', config: { candidateCount: 2 } });
    expect(response.candidates?.map((candidate) => candidate.index)).toEqual([0, 1]);
    expect(response.candidates?.map((candidate) => candidate.content?.parts?.[0]?.text)).toEqual(['Claude heard: hi', 'Claude heard: hi']);
    expect(anthropic.requests.length - before).toBe(2);
  });
});

describe('call ids', () => {
  it('calls and responses sent without ids (as older clients do) are matched by name and order', async () => {
    openai.enqueue(chatToolTurn);
    const body = {
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris and Rome?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }, { functionCall: { name: 'get_weather', args: { city: 'Rome' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } }, { functionResponse: { name: 'get_weather', response: { output: 'rainy' } } }] },
      ],
      tools: [{ functionDeclarations: [WEATHER_JSON_SCHEMA] }],
    };
    const response = await fetch(`${gateway.baseUrl}/v1beta/models/gpt-4o-mini:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': keys.openai, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(response.status, await response.clone().text()).toBe(200);
    const messages = openai.requests.at(-1)!.json.messages as { role: string; tool_calls?: { id: string; function: { arguments: string } }[]; tool_call_id?: string; content?: string }[];
    const calls = messages.find((message) => message.role === 'assistant')!.tool_calls!;
    const results = messages.filter((message) => message.role === 'tool');
    expect(calls.map((call) => JSON.parse(call.function.arguments) as unknown)).toEqual([{ city: 'Paris' }, { city: 'Rome' }]);
    // The first response answers the first call, the second the second.
    expect(results.map((result) => [result.tool_call_id, result.content])).toEqual([
      [calls[0].id, 'sunny'],
      [calls[1].id, 'rainy'],
    ]);
    expect(new Set(calls.map((call) => call.id)).size).toBe(2);
  });
});

describe('keys, model lists and what the log keeps', () => {
  it('?key= is read as the gateway key, never sent on, and kept out of the log', async () => {
    const traceId = `gemini-query-key-${Date.now()}`;
    const response = await fetch(`${gateway.baseUrl}/v1beta/models/gpt-4o-mini:generateContent?key=${encodeURIComponent(keys.openai)}`, {
      method: 'POST',
      headers: { 'x-gateway-trace-id': traceId, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }] }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const upstream = openai.requests.at(-1)!;
    expect(upstream.url).not.toContain('key=');
    expect(JSON.stringify(upstream.headers)).not.toContain(keys.openai);
    await gateway.flushLog();
    const list = (await (await gateway.admin(`/logs?q=${encodeURIComponent(traceId)}`)).json()) as { items: { id: string }[] };
    expect(list.items).toHaveLength(1);
    const row = (await (await gateway.admin(`/logs/${list.items[0].id}`)).json()) as Record<string, unknown>;
    expect(JSON.stringify(row)).not.toContain(keys.openai);
    expect(row.dialect).toBe('gemini');
    expect(row.providerFormat).toBe('openai-chat');
    // What the target cannot honour is left out and noted.
    expect(row.dropped).toContain('safetySettings');
  });

  it('GET /v1beta/models and /v1/models (key sent Gemini’s way): Gemini’s list shape; models.get reads one', async () => {
    const models: string[] = [];
    for await (const model of await client(keys.gemini).models.list()) models.push(model.name ?? '');
    expect(models).toEqual(FAKE_GEMINI_MODELS.filter((id) => !id.startsWith('text-embedding')).map((id) => `models/${id}`));
    const v1 = (await (await fetch(`${gateway.baseUrl}/v1/models`, { headers: { 'x-goog-api-key': keys.openai } })).json()) as { models: { name: string; supportedGenerationMethods: string[] }[] };
    expect(v1.models.length).toBeGreaterThan(0);
    expect(v1.models[0].name).toMatch(/^models\//);
    expect(v1.models[0].supportedGenerationMethods).toContain('generateContent');
    // The same path with the key sent OpenAI's way stays OpenAI's list.
    const openaiShape = (await (await fetch(`${gateway.baseUrl}/v1/models`, { headers: { authorization: `Bearer ${keys.openai}` } })).json()) as { object: string };
    expect(openaiShape.object).toBe('list');
    const one = await client(keys.gemini, 'v1').models.get({ model: 'gemini-2.5-pro' });
    expect(one.name).toBe('models/gemini-2.5-pro');
    const missing = await fetch(`${gateway.baseUrl}/v1beta/models/no-such-model`, { headers: { 'x-goog-api-key': keys.gemini } });
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { status: string } }).error.status).toBe('NOT_FOUND');
  });

  it('a wrong key: 401 in Google’s shape', async () => {
    const wrong = await fetch(`${gateway.baseUrl}/v1beta/models/gemini-2.5-flash:generateContent`, { method: 'POST', headers: { 'x-goog-api-key': 'nope-not-a-key' }, body: '{"contents":[]}' });
    expect(wrong.status).toBe(401);
    expect(((await wrong.json()) as { error: { status: string; code: number } }).error).toMatchObject({ status: 'UNAUTHENTICATED', code: 401 });
  });

  it('a wrong key is refused naming the place it was read from, for every place a key can be read', async () => {
    const path = '/v1beta/models/gemini-2.5-flash:generateContent';
    const places: Array<[string, string, Record<string, string>, RegExp]> = [
      ['?key=', `${path}?key=nope-not-a-key`, {}, /The key sent in the URL \(\?key=\) is not a Gatehouse key/],
      ['x-goog-api-key', path, { 'x-goog-api-key': 'nope-not-a-key' }, /The key sent in x-goog-api-key is not a Gatehouse key/],
      ['x-api-key', path, { 'x-api-key': 'nope-not-a-key' }, /The key sent in x-api-key is not a Gatehouse key/],
      ['x-gateway-api-key', path, { 'x-gateway-api-key': 'nope-not-a-key' }, /The key sent in x-gateway-api-key is not a Gatehouse key/],
      ['Authorization: Bearer', path, { authorization: 'Bearer nope-not-a-key' }, /The key sent in Authorization: Bearer is not a Gatehouse key/],
      ['a provider key in ?key=', `${path}?key=AIzaSyNotAGatehouseKey`, {}, /The key sent in the URL \(\?key=\) is a provider's API key/],
    ];
    for (const [place, url, headers, message] of places) {
      const wrong = await fetch(`${gateway.baseUrl}${url}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{"contents":[]}' });
      const { error } = (await wrong.json()) as { error: { message: string; code: number } };
      expect({ place, code: error.code, message: error.message }).toMatchObject({ place, code: 401, message: expect.stringMatching(message) });
      // Only the place the key was read from is named as where it was sent.
      if (place !== 'x-gateway-api-key') expect(error.message).not.toMatch(/sent in x-gateway-api-key/);
    }
  });

  it(':batchEmbedContents takes at most as many items as /v1/embeddings (2048): more is a 400 in Google’s shape, and nothing is sent', async () => {
    const item = { model: 'models/text-embedding-004', content: { parts: [{ text: 'a' }] } };
    const before = gemini.requests.length;
    const tooMany = await post('/v1beta/models/text-embedding-004:batchEmbedContents', keys.gemini, JSON.stringify({ requests: Array(2049).fill(item) }));
    expect(tooMany.status).toBe(400);
    expect(tooMany.json.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT', message: expect.stringContaining('at most 2048') });
    expect(gemini.requests.length).toBe(before);
    const openaiMany = await fetch(`${gateway.baseUrl}/v1/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${keys.openai}` },
      body: JSON.stringify({ model: 'text-embedding-3-small', input: Array(2049).fill('a') }),
    });
    expect(openaiMany.status).toBe(400);
    expect(((await openaiMany.json()) as { error: { message: string } }).error.message).toContain('at most 2048');
    // At the cap it is served (to an OpenAI-format server here: Google itself takes 100 a batch and says so).
    const atTheCap = await post('/v1beta/models/text-embedding-3-small:batchEmbedContents', keys.openai, JSON.stringify({ requests: Array(2048).fill({ ...item, model: 'models/text-embedding-3-small' }) }));
    expect(atTheCap.status, JSON.stringify(atTheCap.json).slice(0, 300)).toBe(200);
  });

  it('embedContent through the SDK: to Gemini (its batch passed through) and to an OpenAI-format server (translated), the vectors in Gemini’s shape', async () => {
    const toGemini = await client(keys.gemini).models.embedContent({ model: 'text-embedding-004', contents: ['first text', 'second text'] });
    expect(toGemini.embeddings).toHaveLength(2);
    expect(toGemini.embeddings![0].values!.length).toBeGreaterThan(0);
    expect(gemini.requests.at(-1)!.url).toContain('text-embedding-004:batchEmbedContents');
    const toOpenAI = await client(keys.openai).models.embedContent({ model: 'text-embedding-3-small', contents: ['one text'] });
    expect(toOpenAI.embeddings).toHaveLength(1);
    expect(toOpenAI.embeddings![0].values!.length).toBeGreaterThan(0);
    const sent = openai.requests.at(-1)!;
    expect(sent.url).toBe('/v1/embeddings');
    expect(sent.json).toMatchObject({ model: 'text-embedding-3-small', input: ['one text'] });
  });

  it(':embedContent with no content: a 400 in Google’s shape naming the field', async () => {
    const bad = await fetch(`${gateway.baseUrl}/v1beta/models/text-embedding-004:embedContent`, { method: 'POST', headers: { 'x-goog-api-key': keys.gemini, 'content-type': 'application/json' }, body: '{}' });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { status: string; message: string } }).error).toMatchObject({ status: 'INVALID_ARGUMENT', message: expect.stringContaining('content') });
  });
});

interface GoogleError {
  error: { code: number; message: string; status: string; details?: { fieldViolations?: { field: string }[] }[] };
}

async function post(path: string, key: string, body: string): Promise<{ status: number; json: GoogleError }> {
  const response = await fetch(`${gateway.baseUrl}${path}`, { method: 'POST', headers: { 'x-goog-api-key': key, 'content-type': 'application/json' }, body });
  const text = await response.text();
  let json: GoogleError;
  try {
    json = JSON.parse(text) as GoogleError;
  } catch {
    throw new Error(`not JSON (${response.status}): ${text.slice(0, 200)}`);
  }
  return { status: response.status, json };
}

describe('bad input: a 400 in Google’s shape naming the field, never a 5xx', () => {
  const CASES: [string, string, string][] = [
    ['no contents', '{}', 'contents'],
    ['contents not an array', '{"contents":"hi"}', 'contents'],
    ['a role Gemini does not have', '{"contents":[{"role":"assistant","parts":[{"text":"hi"}]}]}', 'contents[0].role'],
    ['a part with two kinds of data', '{"contents":[{"role":"user","parts":[{"text":"hi","inlineData":{"mimeType":"image/png","data":"AA=="}}]}]}', 'contents[0].parts[0]'],
    ['temperature out of range', '{"contents":[{"parts":[{"text":"hi"}]}],"generationConfig":{"temperature":7}}', 'generationConfig.temperature'],
    ['a function without a name', '{"contents":[{"parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"description":"x"}]}]}', 'tools[0].functionDeclarations[0].name'],
    ['an unknown calling mode', '{"contents":[{"parts":[{"text":"hi"}]}],"toolConfig":{"functionCallingConfig":{"mode":"SOMETIMES"}}}', 'toolConfig.functionCallingConfig.mode'],
    ['a response to no call', '{"contents":[{"role":"user","parts":[{"functionResponse":{"name":"f","response":{}}}]}]}', 'contents[0].parts[0].functionResponse'],
  ];
  for (const [what, body, field] of CASES) {
    it(`${what}: names ${field}`, async () => {
      const { status, json } = await post('/v1beta/models/gpt-4o-mini:generateContent', keys.openai, body);
      expect(status, JSON.stringify(json)).toBe(400);
      expect(json.error.status).toBe('INVALID_ARGUMENT');
      expect(json.error.code).toBe(400);
      expect(json.error.message).toContain(field.split('[')[0]);
      expect(json.error.details?.[0]?.fieldViolations?.[0]?.field).toBe(field);
    });
  }

  it('any JSON value or bytes on the Gemini paths: answered, or a 4xx in Google’s shape', async () => {
    const paths = ['/v1beta/models/gpt-4o-mini:generateContent', '/v1beta/models/gpt-4o-mini:streamGenerateContent?alt=sse', '/v1/models/gpt-4o-mini:countTokens', '/v1beta/models/claude-sonnet-4-5:generateContent'];
    const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 3 }), fc.string(), fc.integer(), fc.constant(null));
    const part = fc.oneof(
      fc.record({ text: fc.oneof(fc.string({ maxLength: 10 }), anyValue) }),
      fc.record({ functionCall: fc.record({ name: fc.oneof(fc.constant('f'), anyValue), args: anyValue }, { requiredKeys: [] }) }, { requiredKeys: [] }),
      fc.record({ functionResponse: fc.record({ name: fc.oneof(fc.constant('f'), anyValue), response: anyValue }, { requiredKeys: [] }) }),
      fc.record({ inlineData: fc.record({ mimeType: fc.oneof(fc.constant('image/png'), anyValue), data: fc.oneof(fc.constant('AA=='), anyValue) }, { requiredKeys: [] }) }),
      anyValue,
    );
    const body = fc.oneof(
      fc.record(
        {
          contents: fc.oneof(fc.constant([{ role: 'user', parts: [{ text: 'hi' }] }]), fc.array(fc.record({ role: fc.oneof(fc.constantFrom('user', 'model', 'tool'), anyValue), parts: fc.oneof(fc.array(part, { maxLength: 3 }), anyValue) }, { requiredKeys: [] }), { maxLength: 3 }), anyValue),
          systemInstruction: fc.oneof(fc.string({ maxLength: 5 }), fc.record({ parts: fc.array(part, { maxLength: 2 }) }), anyValue),
          tools: fc.oneof(fc.array(fc.record({ functionDeclarations: fc.oneof(fc.array(fc.record({ name: fc.oneof(fc.constant('f'), anyValue), parameters: anyValue, parametersJsonSchema: anyValue }, { requiredKeys: [] }), { maxLength: 2 }), anyValue) }, { requiredKeys: [] }), { maxLength: 2 }), anyValue),
          toolConfig: fc.oneof(fc.record({ functionCallingConfig: fc.record({ mode: fc.oneof(fc.constantFrom('AUTO', 'ANY', 'NONE'), anyValue), allowedFunctionNames: anyValue }, { requiredKeys: [] }) }), anyValue),
          generationConfig: fc.oneof(
            fc.record({ temperature: anyValue, topP: anyValue, topK: anyValue, maxOutputTokens: anyValue, stopSequences: anyValue, candidateCount: anyValue, responseMimeType: anyValue, responseSchema: anyValue, thinkingConfig: anyValue }, { requiredKeys: [] }),
            anyValue,
          ),
        },
        { requiredKeys: [] },
      ),
      anyValue,
    );
    // A valid turn with fuzzed settings, so that answers are reached as well as refusals.
    const nearlyValid = fc
      .record({ temperature: fc.oneof(fc.double({ min: 0, max: 2, noNaN: true }), anyValue), topK: fc.oneof(fc.integer({ min: 1, max: 100 }), anyValue), stopSequences: fc.oneof(fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }), anyValue) }, { requiredKeys: [] })
      .map((generationConfig) => JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig }));
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...paths), fc.oneof(body.map((value) => JSON.stringify(value)), nearlyValid, fc.uint8Array({ maxLength: 256 }).map((bytes) => Buffer.from(bytes).toString('latin1'))), async (path, text) => {
        const key = path.includes('claude') ? keys.anthropic : keys.openai;
        const response = await fetch(`${gateway.baseUrl}${path}`, { method: 'POST', headers: { 'x-goog-api-key': key, 'content-type': 'application/json' }, body: text });
        const reply = await response.text();
        expect(response.status, `${path} ${text.slice(0, 300)} → ${reply.slice(0, 300)}`).toBeLessThan(500);
        if (response.status === 200) {
          answered++;
          return;
        }
        const json = JSON.parse(reply) as GoogleError;
        expect(json.error.code).toBe(response.status);
        expect(json.error.status).toMatch(/^[A-Z_]+$/);
        expect(json.error.message).toMatch(/\S/);
      }),
      { numRuns: 200 },
    );
    // The generator reaches answers too, not only refusals.
    expect(answered).toBeGreaterThan(0);
  });
});
