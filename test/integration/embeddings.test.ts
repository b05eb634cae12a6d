// POST /v1/embeddings through the real gateway, driven by the official `openai` SDK, against strict
// doubles of each provider's embeddings API: OpenAI-format passthrough (bytes unchanged both ways),
// Gemini's batchEmbedContents, Vertex's :predict, Bedrock's InvokeModel for Titan (one signed call an
// input) and Cohere (batched, token count from a header). Also: Anthropic's 400, bad input named by
// field (and fuzzed), the tokens-per-minute limit counting the input, and a log row without vectors.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import OpenAI from 'openai';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { FAKE_EMBEDDING_DIMENSIONS, openAIError, startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { GEMINI_EMBEDDING_DIMENSIONS, startGeminiFake, type GeminiFake } from '../fakes/gemini.js';
import { VERTEX_EMBEDDING_DIMENSIONS, startVertexFake, type VertexFake } from '../fakes/vertex.js';
import { COHERE_EMBEDDING_DIMENSIONS, startBedrockFake, type AwsTestCredentials, type BedrockFake } from '../fakes/bedrock.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic.js';
import { fakeTokenCount, fakeVector } from '../fakes/embeddings.js';
import { priceCall } from '../../src-main/catalog/pricing.js';

const AWS: AwsTestCredentials = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const TEXTS = ['The quick brown fox', 'jumps over the lazy dog', 'embeddings through a gateway'];
const words = (texts: string[]) => texts.reduce((sum, text) => sum + fakeTokenCount(text), 0);

let gateway: TestGateway;
let openai: OpenAIFake;
let gemini: GeminiFake;
let vertex: VertexFake;
let bedrock: BedrockFake;
let anthropic: AnthropicFake;
const keys: Record<string, string> = {};

async function createVirtualKey(body: Record<string, unknown>): Promise<{ id: string; key: string }> {
  const response = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify(body) });
  expect(response.status, await response.clone().text()).toBe(201);
  return (await response.json()) as { id: string; key: string };
}

beforeAll(async () => {
  [gateway, openai, gemini, vertex, bedrock, anthropic] = await Promise.all([
    startGateway(),
    startOpenAIFake(),
    startGeminiFake(),
    startVertexFake(),
    startBedrockFake({ region: 'us-east-1', credentials: [AWS] }),
    startAnthropicFake(),
  ]);
  keys.openai = (await createVirtualKey({ name: 'embed-openai', provider: 'openai', secret: 'sk-embed-openai', customHost: openai.baseUrl })).key;
  keys.gemini = (await createVirtualKey({ name: 'embed-gemini', provider: 'google', secret: 'AIza-embed-gemini', customHost: gemini.baseUrl })).key;
  keys.vertex = (await createVirtualKey({ name: 'embed-vertex', provider: 'vertex-ai', secret: 'ya29.embed-vertex', customHost: vertex.baseUrl, cloud: { 'vertex.projectId': 'my-project', 'vertex.region': 'us-central1' } })).key;
  keys.bedrock = (
    await createVirtualKey({ name: 'embed-bedrock', provider: 'bedrock', secret: AWS.secretAccessKey, customHost: bedrock.baseUrl, cloud: { 'bedrock.accessKeyId': AWS.accessKeyId, 'bedrock.region': 'us-east-1' } })
  ).key;
  keys.anthropic = (await createVirtualKey({ name: 'embed-anthropic', provider: 'anthropic', secret: 'sk-ant-embed', customHost: anthropic.baseUrl })).key;
});
afterAll(async () => {
  await Promise.all([gateway?.close(), openai?.close(), gemini?.close(), vertex?.close(), bedrock?.close(), anthropic?.close()]);
});

const client = (key: string) => new OpenAI({ baseURL: `${gateway.baseUrl}/v1`, apiKey: key, maxRetries: 0 });

function post(key: string, body: unknown): Promise<Response> {
  return fetch(`${gateway.baseUrl}/v1/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

interface LogItem {
  id: string;
  path: string;
  model: string;
  provider: string;
  status: number;
  dialect: string | null;
  providerFormat: string | null;
  promptTokens: number | null;
  completionTokens: number | null;
  costUsd: number | null;
  usageEstimated?: boolean;
}

/** The newest log row and its detail (the stored bodies). */
interface LogDetail extends LogItem {
  responseBody: string | null;
  route: string | null;
  routeTarget: string | null;
  attemptLog: { status: number | null; reason?: string }[];
}

async function lastLogRow(): Promise<LogDetail> {
  await gateway.flushLog();
  const { items } = (await (await gateway.admin('/logs?limit=1')).json()) as { items: LogItem[] };
  return (await (await gateway.admin(`/logs/${items[0].id}`)).json()) as LogDetail;
}

/** The vectors the SDK gave back are the double's, for these texts, at this length. */
function expectVectors(data: { embedding: number[]; index: number }[], texts: string[], dimensions: number): void {
  expect(data.map((item) => item.index)).toEqual(texts.map((_text, index) => index));
  data.forEach((item, index) => expect(item.embedding).toEqual(fakeVector(texts[index], dimensions)));
}

describe('OpenAI-format providers: passthrough', () => {
  it('the SDK gets float and base64 vectors; the provider gets the client bytes, the client the provider bytes', async () => {
    const floats = await client(keys.openai).embeddings.create({ model: 'text-embedding-3-small', input: TEXTS, encoding_format: 'float' });
    expectVectors(floats.data, TEXTS, FAKE_EMBEDDING_DIMENSIONS);
    expect(floats.usage).toEqual({ prompt_tokens: words(TEXTS), total_tokens: words(TEXTS) });

    // The SDK's default: it asks for base64 and decodes it itself.
    const decoded = await client(keys.openai).embeddings.create({ model: 'text-embedding-3-small', input: TEXTS, dimensions: 4 });
    expect(openai.requests.at(-1)!.json.encoding_format).toBe('base64');
    expectVectors(decoded.data, TEXTS, 4);

    // Byte for byte: the odd spacing of the body reaches the provider as sent, and the answer comes back as the provider wrote it.
    const body = '{"model":"text-embedding-3-small",  "input":[[1,2,3],[4,5]],"encoding_format":"base64"}';
    const response = await post(keys.openai, body);
    expect(response.status).toBe(200);
    expect(openai.requests.at(-1)!.body.toString('utf8')).toBe(body);
    expect(openai.requests.at(-1)!.url).toBe('/v1/embeddings');
    const direct = await fetch(`${openai.baseUrl}/embeddings`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    expect(await response.text()).toBe(await direct.text());
  });

  it('logs the call with its count and dimensions, its usage and cost, and never a vector', async () => {
    await client(keys.openai).embeddings.create({ model: 'text-embedding-3-small', input: TEXTS, encoding_format: 'float' });
    const row = await lastLogRow();
    expect(row).toMatchObject({ path: '/v1/embeddings', provider: 'openai', model: 'text-embedding-3-small', status: 200, dialect: 'openai-embeddings', providerFormat: 'openai-embeddings' });
    expect(row.promptTokens).toBe(words(TEXTS));
    expect(row.usageEstimated).toBe(false);
    expect(row.costUsd).toBeGreaterThan(0);
    expect(row.costUsd).toBeCloseTo(priceCall('openai', 'text-embedding-3-small', { inputTokens: words(TEXTS), outputTokens: 0 })!, 12);
    const stored = JSON.parse(row.responseBody!) as { embeddings: { count: number; dimensions: number } };
    expect(stored.embeddings).toMatchObject({ count: 3, dimensions: FAKE_EMBEDDING_DIMENSIONS });
    // No number of any vector is in the stored answer.
    for (const value of fakeVector(TEXTS[0], FAKE_EMBEDDING_DIMENSIONS).filter((value) => value !== 0)) expect(row.responseBody).not.toContain(String(value));
    expect(row.responseBody!.length).toBeLessThan(400);
  });
});

describe('Gemini: batchEmbedContents', () => {
  it('float and base64 through the SDK; the gateway counts the tokens Gemini does not report and marks them estimated', async () => {
    const floats = await client(keys.gemini).embeddings.create({ model: 'gemini-embedding-001', input: TEXTS, encoding_format: 'float' });
    expectVectors(floats.data, TEXTS, GEMINI_EMBEDDING_DIMENSIONS);
    const sent = gemini.requests.at(-1)!;
    expect(sent.url).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    expect(sent.headers['x-goog-api-key']).toBe('AIza-embed-gemini');
    expect(sent.json).toEqual({ requests: TEXTS.map((text) => ({ model: 'models/gemini-embedding-001', content: { parts: [{ text }] } })) });
    // cl100k counts these 14 words as 14 tokens; whatever the count, it is the gateway's own and not zero.
    expect(floats.usage.prompt_tokens).toBeGreaterThan(0);

    const row = await lastLogRow();
    expect(row).toMatchObject({ provider: 'google', providerFormat: 'gemini-embeddings', usageEstimated: true, promptTokens: floats.usage.prompt_tokens });
    // The translated answer is stored as a summary too, marked as the gateway's count.
    expect(JSON.parse(row.responseBody!)).toMatchObject({ embeddings: { count: 3, dimensions: GEMINI_EMBEDDING_DIMENSIONS }, usage: { estimated: true } });
    expect(row.responseBody!.length).toBeLessThan(400);

    const decoded = await client(keys.gemini).embeddings.create({ model: 'gemini-embedding-001', input: 'one text', dimensions: 5 });
    expect(gemini.requests.at(-1)!.json).toEqual({ requests: [{ model: 'models/gemini-embedding-001', content: { parts: [{ text: 'one text' }] }, outputDimensionality: 5 }] });
    expectVectors(decoded.data, ['one text'], 5);
  });

  it('more than 100 inputs go as several batches, answered in input order', async () => {
    const texts = Array.from({ length: 130 }, (_v, index) => `text number ${index}`);
    const before = gemini.requests.length;
    const answer = await client(keys.gemini).embeddings.create({ model: 'gemini-embedding-001', input: texts, encoding_format: 'float' });
    expect(gemini.requests.length - before).toBe(2);
    expectVectors(answer.data, texts, GEMINI_EMBEDDING_DIMENSIONS);
  });

  it('token arrays cannot be sent to Gemini: a 400 naming input', async () => {
    const response = await post(keys.gemini, { model: 'gemini-embedding-001', input: [[1, 2, 3]] });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string; message: string } }).error).toMatchObject({ param: 'input', message: expect.stringContaining('embeds text only') });
  });
});

describe('Vertex AI: :predict', () => {
  it('float and base64 through the SDK, with the token counts Vertex reports', async () => {
    const floats = await client(keys.vertex).embeddings.create({ model: 'text-embedding-005', input: TEXTS, encoding_format: 'float' });
    expectVectors(floats.data, TEXTS, VERTEX_EMBEDDING_DIMENSIONS);
    expect(floats.usage.prompt_tokens).toBe(words(TEXTS));
    const sent = vertex.requests.at(-1)!;
    expect(sent.url).toBe('/v1/projects/my-project/locations/us-central1/publishers/google/models/text-embedding-005:predict');
    expect(sent.headers.authorization).toBe('Bearer ya29.embed-vertex');
    expect(sent.json).toEqual({ instances: TEXTS.map((content) => ({ content })) });

    const decoded = await client(keys.vertex).embeddings.create({ model: 'text-embedding-005', input: TEXTS, dimensions: 3 });
    expect(vertex.requests.at(-1)!.json.parameters).toEqual({ outputDimensionality: 3 });
    expectVectors(decoded.data, TEXTS, 3);
    expect((await lastLogRow()).usageEstimated).toBe(false);
  });
});

describe('Bedrock: Titan and Cohere through InvokeModel', () => {
  it('Titan: N inputs are N signed calls, one inputText each; its token counts are summed', async () => {
    const before = bedrock.requests.length;
    const floats = await client(keys.bedrock).embeddings.create({ model: 'amazon.titan-embed-text-v2:0', input: TEXTS, encoding_format: 'float', dimensions: 512 });
    const calls = bedrock.requests.slice(before);
    expect(calls).toHaveLength(3);
    for (const call of calls) {
      expect(call.rawUrl).toBe('/model/amazon.titan-embed-text-v2%3A0/invoke');
      expect(call.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\//);
    }
    // Sent a few at a time, in any order: each input once, with the length asked for.
    expect(calls.map((call) => call.json)).toEqual(expect.arrayContaining(TEXTS.map((inputText) => ({ inputText, dimensions: 512 }))));
    expectVectors(floats.data, TEXTS, 512);
    expect(floats.usage.prompt_tokens).toBe(words(TEXTS));

    const decoded = await client(keys.bedrock).embeddings.create({ model: 'amazon.titan-embed-text-v2:0', input: 'one' });
    expectVectors(decoded.data, ['one'], 8);
  });

  it('Titan: dimensions it does not offer are a 400 naming dimensions, and nothing is sent', async () => {
    const before = bedrock.requests.length;
    const response = await post(keys.bedrock, { model: 'amazon.titan-embed-text-v2:0', input: 'x', dimensions: 300 });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { param: string; message: string } };
    expect(error.param).toBe('dimensions');
    expect(error.message).toContain('256, 512, 1024');
    expect(bedrock.requests.length).toBe(before);
  });

  it('Cohere: texts batched with input_type search_document; the token count read from the response header', async () => {
    const texts = Array.from({ length: 100 }, (_v, index) => `document ${index} body`);
    const before = bedrock.requests.length;
    const floats = await client(keys.bedrock).embeddings.create({ model: 'cohere.embed-english-v3', input: texts, encoding_format: 'float' });
    const calls = bedrock.requests.slice(before);
    expect(calls.map((call) => (call.json.texts as string[]).length)).toEqual([96, 4]);
    expect(calls.every((call) => call.json.input_type === 'search_document')).toBe(true);
    expectVectors(floats.data, texts, COHERE_EMBEDDING_DIMENSIONS);
    expect(floats.usage.prompt_tokens).toBe(words(texts));
    expect((await lastLogRow()).usageEstimated).toBe(false);

    const decoded = await client(keys.bedrock).embeddings.create({ model: 'cohere.embed-english-v3', input: TEXTS });
    expectVectors(decoded.data, TEXTS, COHERE_EMBEDDING_DIMENSIONS);
  });
});

describe('Anthropic', () => {
  it('has no embeddings API: a 400 that says so, and no call', async () => {
    const before = anthropic.requests.length;
    const response = await post(keys.anthropic, { model: 'claude-sonnet-4-5', input: 'hello' });
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { message: string; code: string } };
    expect(error.message).toContain('Anthropic has no embeddings API');
    expect(error.code).toBe('embeddings_not_supported');
    expect(anthropic.requests.length).toBe(before);
  });
});

describe('bad input', () => {
  it.each([
    ['no input', 'input', { model: 'text-embedding-3-small' }],
    ['an empty string', 'input', { model: 'text-embedding-3-small', input: '' }],
    ['an empty array', 'input', { model: 'text-embedding-3-small', input: [] }],
    ['more than 2048 inputs', 'input', { model: 'text-embedding-3-small', input: Array.from({ length: 2049 }, () => 'x') }],
    ['a mixed array', 'input', { model: 'text-embedding-3-small', input: ['a', 1] }],
    ['a negative token id', 'input', { model: 'text-embedding-3-small', input: [1, -2] }],
    ['an object', 'input', { model: 'text-embedding-3-small', input: { text: 'a' } }],
    ['a token array over the model limit', 'input', { model: 'text-embedding-3-small', input: [Array.from({ length: 8193 }, () => 1)] }],
    ['an unknown encoding', 'encoding_format', { model: 'text-embedding-3-small', input: 'a', encoding_format: 'int8' }],
    ['zero dimensions', 'dimensions', { model: 'text-embedding-3-small', input: 'a', dimensions: 0 }],
    ['a numeric user', 'user', { model: 'text-embedding-3-small', input: 'a', user: 7 }],
    ['no model', 'model', { input: 'a' }],
  ])('%s: a 400 naming %s, in OpenAI shape, and no provider call', async (_name, param, body) => {
    const before = openai.requests.length;
    const response = await post(keys.openai, body);
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { type: string; param: string; message: string } };
    expect(error).toMatchObject({ type: 'invalid_request_error', param });
    expect(error.message).toContain(param);
    expect(openai.requests.length).toBe(before);
  });

  it('GET is a 405 naming POST', async () => {
    const response = await fetch(`${gateway.baseUrl}/v1/embeddings`, { headers: { authorization: `Bearer ${keys.openai}` } });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  const anyJson = fc.jsonValue({ maxDepth: 3 });
  const embeddingsBody = fc.oneof(
    anyJson,
    fc.record(
      {
        model: fc.oneof(fc.constant('text-embedding-3-small'), anyJson),
        input: fc.oneof(fc.string(), fc.array(fc.string()), fc.array(fc.integer({ min: -5, max: 100_000 })), fc.array(fc.array(fc.nat())), anyJson),
        encoding_format: fc.oneof(fc.constantFrom('float', 'base64'), anyJson),
        dimensions: fc.oneof(fc.integer({ min: -3, max: 2000 }), anyJson),
        user: fc.oneof(fc.string(), anyJson),
      },
      { requiredKeys: [] },
    ),
  );

  it.each([
    ['passed through to OpenAI', () => keys.openai],
    ['translated to Gemini', () => keys.gemini],
    ['translated to Bedrock', () => keys.bedrock],
  ])('fuzzed bodies %s never get a 5xx', async (_name, key) => {
    await fc.assert(
      fc.asyncProperty(embeddingsBody, async (body) => {
        const sent = key() === keys.bedrock && typeof body === 'object' && body !== null && !Array.isArray(body) ? { ...body, model: 'cohere.embed-english-v3' } : body;
        const response = await post(key(), JSON.stringify(sent));
        const text = await response.text();
        expect(response.status, `${JSON.stringify(sent)} → ${text.slice(0, 300)}`).toBeLessThan(500);
        if (response.status >= 400) expect(typeof (JSON.parse(text) as { error: { message: unknown } }).error.message).toBe('string');
      }),
      { numRuns: 80 },
    );
  }, 60_000);
});

describe('routes', () => {
  it('a route falls back from an OpenAI target that answers 503 to a Gemini one, translated; the row names route and target', async () => {
    const created = await gateway.admin('/routes', {
      method: 'POST',
      body: JSON.stringify({
        name: 'embed-fallback',
        match: 'my-embedder',
        strategy: 'fallback',
        targets: [
          { key: 'embed-openai', model: 'text-embedding-3-small' },
          { key: 'embed-gemini', model: 'gemini-embedding-001' },
        ],
      }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    openai.enqueue(openAIError(503, 'The engine is currently overloaded', 'server_error'));
    const answer = await client(gateway.apiKey).embeddings.create({ model: 'my-embedder', input: TEXTS, encoding_format: 'float' });
    expectVectors(answer.data, TEXTS, GEMINI_EMBEDDING_DIMENSIONS);
    expect(openai.requests.at(-1)!.json.model).toBe('text-embedding-3-small');
    expect(gemini.requests.at(-1)!.url).toBe('/v1beta/models/gemini-embedding-001:batchEmbedContents');
    const row = await lastLogRow();
    expect(row).toMatchObject({ route: 'embed-fallback', routeTarget: 'embed-gemini → gemini-embedding-001', provider: 'google', status: 200 });
    expect(row.attemptLog.map((attempt) => [attempt.status, attempt.reason ?? null])).toEqual([
      [503, '503'],
      [200, null],
    ]);
  });
});

describe('limits', () => {
  it('tokens per minute count the input tokens: a key over its tpm is refused until the minute passes', async () => {
    const created = await createVirtualKey({ name: 'embed-tpm', provider: 'openai', secret: 'sk-embed-tpm', customHost: openai.baseUrl });
    const limits = await gateway.admin(`/keys/${created.id}/limits`, { method: 'PUT', body: JSON.stringify({ tpm: 10 }) });
    expect(limits.status).toBe(200);
    // 12 words: the double reports 12 input tokens, over the 10 allowed.
    const first = await post(created.key, { model: 'text-embedding-3-small', input: 'one two three four five six seven eight nine ten eleven twelve' });
    expect(first.status).toBe(200);
    const second = await post(created.key, { model: 'text-embedding-3-small', input: 'again' });
    expect(second.status).toBe(429);
    const { error } = (await second.json()) as { error: { message: string } };
    expect(error.message).toContain('10 tokens per minute (12 used in the last minute)');
  });

  it('a budget holds the worst case of the input: a call whose input could cost more than is left is refused before any call', async () => {
    const created = await createVirtualKey({ name: 'embed-budget', provider: 'openai', secret: 'sk-embed-budget', customHost: openai.baseUrl });
    // text-embedding-3-large: $0.13 per million input tokens. 2000 inputs of 3,000 bytes are held as 2,000,000 tokens ($0.26).
    const limits = await gateway.admin(`/keys/${created.id}/limits`, { method: 'PUT', body: JSON.stringify({ dailyUsd: 0.1 }) });
    expect(limits.status).toBe(200);
    const before = openai.requests.length;
    const big = await post(created.key, { model: 'text-embedding-3-large', input: Array.from({ length: 2000 }, () => 'x'.repeat(3000)) });
    expect(big.status).toBe(429);
    expect(((await big.json()) as { error: { code: string } }).error.code).toBe('budget_exceeded');
    expect(openai.requests.length).toBe(before);
    // A small one fits, and what it cost is charged.
    const small = await post(created.key, { model: 'text-embedding-3-large', input: 'a small text' });
    expect(small.status).toBe(200);
    const view = (await (await gateway.admin(`/keys/${created.id}/limits`)).json()) as { spentTodayUsd: number };
    expect(view.spentTodayUsd).toBeCloseTo(priceCall('openai', 'text-embedding-3-large', { inputTokens: 3, outputTokens: 0 })!, 12);
  });

  it('/metrics counts embeddings like any call: requests and input tokens by provider and model', async () => {
    await client(keys.vertex).embeddings.create({ model: 'text-embedding-005', input: TEXTS, encoding_format: 'float' });
    const metrics = await (await fetch(`${gateway.baseUrl}/metrics`)).text();
    const line = metrics.split('\n').find((text) => text.startsWith('gatehouse_tokens_total{') && text.includes('model="text-embedding-005"') && text.includes('kind="input"'));
    expect(line, metrics.slice(0, 2000)).toBeDefined();
    expect(Number(line!.split(' ').at(-1))).toBeGreaterThanOrEqual(words(TEXTS));
  });
});
