import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startVertexFake, type VertexFake } from '../fakes/vertex.js';
import { startGoogleOAuthFake, type GoogleOAuthFake } from '../fakes/google-oauth.js';
import { anthropicError, streamThenOverloaded } from '../fakes/anthropic.js';
import { googleError } from '../fakes/gemini.js';
import { finishReasons, readDataLines, streamedText } from '../helpers/sse.js';

const TOKEN = 'ya29.test-access-token';
const PROJECT = 'my-project';
const REGION = 'us-east5';
const GEMINI = 'gemini-2.0-flash-001';
const CLAUDE = 'claude-sonnet-4-5@20250929';

let gateway: TestGateway;
let fake: VertexFake;

beforeAll(async () => {
  [gateway, fake] = await Promise.all([startGateway(), startVertexFake()]);
});

afterAll(async () => {
  await Promise.all([gateway?.close(), fake?.close()]);
});

beforeEach(() => {
  fake.requests.length = 0;
});

function cloudHeaders(): Record<string, string> {
  return {
    'x-gateway-api-key': gateway.apiKey,
    'x-gateway-provider': 'vertex-ai',
    'x-gateway-custom-host': fake.baseUrl,
    'x-gateway-cloud-b-project-id': PROJECT,
    'x-gateway-cloud-b-region': REGION,
  };
}

function post(path: string, body: unknown, change: (headers: Record<string, string>) => void = () => {}): Promise<Response> {
  const headers: Record<string, string> = { 'content-type': 'application/json', ...cloudHeaders(), authorization: `Bearer ${TOKEN}` };
  change(headers);
  return fetch(`${gateway.baseUrl}/v1/${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
}

function sdk(): OpenAI {
  return new OpenAI({ apiKey: TOKEN, baseURL: `${gateway.baseUrl}/v1`, defaultHeaders: cloudHeaders(), maxRetries: 0 });
}

const geminiPath = (method: string) => `/v1/projects/${PROJECT}/locations/${REGION}/publishers/google/models/${GEMINI}:${method}`;
const claudePath = (method: string) => `/v1/projects/${PROJECT}/locations/${REGION}/publishers/anthropic/models/${CLAUDE}:${method}`;

describe('vertex-ai: Gemini models', () => {
  it('calls generateContent on the project and region path with the bearer token, and answers a text_completion', async () => {
    const res = await post('completions', { model: GEMINI, prompt: 'Say hi', max_tokens: 30, temperature: 0.2 }, (headers) => {
      headers['x-cloud-b-llm-request-type'] = 'dedicated';
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      object: 'text_completion',
      model: GEMINI,
      choices: [{ index: 0, text: 'Gemini heard: Say hi', logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 9, completion_tokens: 7, total_tokens: 16 },
    });
    const sent = fake.requests[0];
    expect(sent.url).toBe(geminiPath('generateContent'));
    expect(sent.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(sent.headers['x-vertex-ai-llm-request-type']).toBe('dedicated');
    expect(sent.headers['x-cloud-b-llm-request-type']).toBeUndefined();
    expect(sent.json).toEqual({ contents: [{ role: 'user', parts: [{ text: 'Say hi' }] }], generationConfig: { maxOutputTokens: 30, temperature: 0.2 } });
  });

  it('streams through streamGenerateContent?alt=sse, ending in data: [DONE]', async () => {
    const res = await post('completions', { model: GEMINI, prompt: 'Stream me', stream: true, stream_options: { include_usage: true } });
    const stream = readDataLines(await res.text());
    expect(fake.requests[0].url).toBe(`${geminiPath('streamGenerateContent')}?alt=sse`);
    expect(streamedText(stream.chunks)).toBe('Gemini heard: Stream me');
    expect(finishReasons(stream.chunks)).toEqual(['stop']);
    expect(stream.chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 7 } });
    expect(stream.done).toBe(true);
  });

  it('answers chat to the OpenAI SDK with systemInstruction and the model role', async () => {
    const completion = await sdk().chat.completions.create({
      model: GEMINI,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi' },
        { role: 'user', content: 'Again' },
      ],
    });
    expect(completion.choices[0].message.content).toBe('Gemini heard: Again');
    expect(fake.requests[0].json).toEqual({
      contents: [
        { role: 'user', parts: [{ text: 'Hello' }] },
        { role: 'model', parts: [{ text: 'Hi' }] },
        { role: 'user', parts: [{ text: 'Again' }] },
      ],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
    });
  });

  it('answers function calls of Gemini models as OpenAI tool_calls', async () => {
    const completion = await sdk().chat.completions.create({
      model: GEMINI,
      messages: [{ role: 'user', content: 'Weather?' }],
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
    });
    expect(completion.choices[0].finish_reason).toBe('tool_calls');
    expect(completion.choices[0].message.tool_calls?.[0]).toMatchObject({ type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } });
    expect(fake.requests[0].json.tools).toEqual([{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } } }] }]);
  });

  it('relays Google’s error status and message, naming the provider', async () => {
    fake.enqueue(googleError(403, "Permission 'aiplatform.endpoints.predict' denied on resource", 'PERMISSION_DENIED'));
    const res = await post('completions', { model: GEMINI, prompt: 'Hi' });
    expect(res.status).toBe(403);
    expect((await res.json()).error).toEqual({
      message: "Permission 'aiplatform.endpoints.predict' denied on resource",
      type: 'permission_error',
      param: null,
      code: 'PERMISSION_DENIED',
      provider: 'vertex-ai',
    });
  });
});

describe('vertex-ai: Claude models', () => {
  it('calls rawPredict with the Messages body, anthropic_version and no model, and answers a text_completion', async () => {
    const res = await post('completions', { model: CLAUDE, prompt: 'Say hi', user: 'u-1' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      object: 'text_completion',
      model: CLAUDE,
      choices: [{ index: 0, text: 'Claude heard: Say hi', finish_reason: 'stop' }],
      usage: { prompt_tokens: 18, completion_tokens: 4, total_tokens: 22 },
    });
    const sent = fake.requests[0];
    expect(sent.url).toBe(claudePath('rawPredict'));
    expect(sent.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(sent.headers['x-api-key']).toBeUndefined();
    expect(sent.json).toEqual({
      anthropic_version: 'vertex-2023-10-16',
      max_tokens: 16,
      messages: [{ role: 'user', content: 'Say hi' }],
      metadata: { user_id: 'u-1' },
    });
  });

  it('streams through streamRawPredict to the OpenAI SDK', async () => {
    const stream = await sdk().chat.completions.create({ model: CLAUDE, messages: [{ role: 'user', content: 'Stream please' }], stream: true });
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(fake.requests[0].url).toBe(claudePath('streamRawPredict'));
    expect(fake.requests[0].json).toMatchObject({ anthropic_version: 'vertex-2023-10-16', stream: true, max_tokens: 4096 });
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    expect(chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('')).toBe('Claude heard: Stream please');
  });

  it('relays Claude’s own error body', async () => {
    fake.enqueue(anthropicError(400, 'invalid_request_error', 'prompt is too long: 210000 tokens > 200000 maximum'));
    const res = await post('chat/completions', { model: CLAUDE, messages: [{ role: 'user', content: 'Hi' }] });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ message: 'prompt is too long: 210000 tokens > 200000 maximum', code: 'invalid_request_error', provider: 'vertex-ai' });
  });

  it('ends the stream with an error event when Claude reports one mid-stream', async () => {
    fake.enqueue(streamThenOverloaded);
    const stream = readDataLines(await (await post('completions', { model: CLAUDE, prompt: 'Hi', stream: true })).text());
    expect(stream.done).toBe(false);
    expect(stream.chunks.at(-1)!.error).toMatchObject({ message: 'Overloaded', provider: 'vertex-ai' });
  });

  it('refuses a temperature above 1 for Claude, naming the field and provider', async () => {
    const res = await post('completions', { model: CLAUDE, prompt: 'Hi', temperature: 1.2 });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ param: 'temperature', provider: 'vertex-ai' });
    expect(fake.requests).toHaveLength(0);
  });
});

describe('vertex-ai: Cloud B headers', () => {
  it.each([
    ['x-gateway-cloud-b-project-id'],
    ['x-gateway-cloud-b-region'],
  ])('answers 400 naming %s when it is missing', async (header) => {
    const res = await post('completions', { model: GEMINI, prompt: 'Hi' }, (headers) => {
      delete headers[header];
    });
    expect(res.status).toBe(400);
    const body = await res.json();
    expect(body.error).toMatchObject({ type: 'invalid_request_error', param: header, provider: 'vertex-ai' });
    expect(body.error.message).toContain(header);
    expect(fake.requests).toHaveLength(0);
  });

  it('refuses a region that is not a region name (it becomes part of the host name)', async () => {
    const res = await post('completions', { model: GEMINI, prompt: 'Hi' }, (headers) => {
      headers['x-gateway-cloud-b-region'] = 'evil.example.com/';
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error.param).toBe('x-gateway-cloud-b-region');
  });

  it('refuses logprobs for Claude models with a 400 naming the field', async () => {
    const res = await post('completions', { model: CLAUDE, prompt: 'Hi', logprobs: 1 });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ param: 'logprobs', provider: 'vertex-ai' });
  });
});

describe('vertex-ai: virtual keys and the providers list', () => {
  it('lists the Cloud B fields the UI needs', async () => {
    const res = await gateway.admin('/providers');
    const { items } = (await res.json()) as { items: { slug: string; fields: { name: string; required: boolean; header?: string; alternative?: string }[] }[] };
    const fields = items.find((item) => item.slug === 'vertex-ai')!.fields;
    expect(fields.map((field) => field.name)).toEqual(['token', 'vertex.serviceAccountJson', 'vertex.projectId', 'vertex.region', 'vertex.requestType']);
    expect(fields.find((field) => field.name === 'token')).toMatchObject({ required: true, alternative: 'vertex.serviceAccountJson' });
    expect(fields.find((field) => field.name === 'vertex.region')).toMatchObject({ required: true, header: 'x-gateway-cloud-b-region' });
  });

  it('serves a request with a virtual key that holds the token, project and region', async () => {
    const created = await gateway.admin('/virtual-keys', {
      method: 'POST',
      body: JSON.stringify({ name: 'vertex', provider: 'vertex-ai', secret: 'ya29.stored-token', customHost: fake.baseUrl, cloud: { cloud_b_project_id: 'stored-project', cloud_b_region: 'europe-west4' } }),
    });
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: string };
    const res = await fetch(`${gateway.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': key },
      body: JSON.stringify({ model: GEMINI, messages: [{ role: 'user', content: 'Hi' }] }),
    });
    expect(res.status).toBe(200);
    expect(fake.requests[0].url).toBe(`/v1/projects/stored-project/locations/europe-west4/publishers/google/models/${GEMINI}:generateContent`);
    expect(fake.requests[0].headers.authorization).toBe('Bearer ya29.stored-token');
  });

  describe('with a service account key instead of an access token', () => {
    let oauth: GoogleOAuthFake;
    beforeAll(async () => {
      oauth = await startGoogleOAuthFake();
    });
    afterAll(async () => {
      await oauth?.close();
    });

    // Key names are unique among active keys: each key these tests make has its own.
    let keysMade = 0;
    const createKey = (cloud: Record<string, string>, customHost: string | null = fake.baseUrl) =>
      gateway.admin('/virtual-keys', {
        method: 'POST',
        body: JSON.stringify({ name: `vertex-sa-${++keysMade}`, provider: 'vertex-ai', ...(customHost ? { customHost } : {}), cloud: { cloud_b_project_id: 'sa-project', cloud_b_region: 'us-central1', ...cloud } }),
      });
    const chat = (key: string) =>
      fetch(`${gateway.baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-gateway-api-key': key },
        body: JSON.stringify({ model: GEMINI, messages: [{ role: 'user', content: 'Hi' }] }),
      });

    it('makes an access token from the key once, and sends it on every request while it is valid', async () => {
      const account = oauth.serviceAccount('renewing');
      const created = await createKey({ 'vertex.serviceAccountJson': account.json });
      expect(created.status).toBe(201);
      const { key } = (await created.json()) as { key: string };
      const issuedBefore = oauth.issued.length;

      for (let i = 0; i < 3; i++) expect((await chat(key)).status).toBe(200);
      expect(oauth.issued.length - issuedBefore).toBe(1);
      const minted = oauth.issued.at(-1)!;
      expect(fake.requests.map((request) => request.headers.authorization)).toEqual([`Bearer ${minted}`, `Bearer ${minted}`, `Bearer ${minted}`]);
      expect(fake.requests[0].url).toContain('/projects/sa-project/locations/us-central1/');
      // The key file stays sealed: the listing shows no part of it.
      const listed = JSON.stringify(await (await gateway.admin('/virtual-keys')).json());
      expect(listed).not.toContain('PRIVATE KEY');
    });

    it('takes the key file in place of the token, also where no custom host would excuse a missing token', async () => {
      const created = await createKey({ 'vertex.serviceAccountJson': oauth.serviceAccount('no-host').json }, null);
      expect(created.status, await created.clone().text()).toBe(201);
    });

    it('refuses a key file that is not a service account key when the virtual key is created', async () => {
      const wrongType = await createKey({ 'vertex.serviceAccountJson': '{"type": "authorized_user"}' });
      expect(wrongType.status).toBe(400);
      expect(((await wrongType.json()) as { error: { param: string; message: string } }).error).toMatchObject({ param: 'vertex.serviceAccountJson', message: expect.stringContaining('service_account') });
      // Without a custom host (a local server needs no token), a Vertex key needs a token or a key file.
      const neither = await createKey({}, null);
      expect(neither.status).toBe(400);
      expect(((await neither.json()) as { error: { param: string } }).error.param).toBe('secret');
    });

    it('answers 401 naming the account when Google refuses it', async () => {
      const account = oauth.serviceAccount('refused');
      // Same account name, another key pair: the double knows only the first public key.
      const forged = JSON.parse(account.json) as Record<string, string>;
      forged.private_key = JSON.parse(oauth.serviceAccount('other').json).private_key as string;
      const created = await createKey({ 'vertex.serviceAccountJson': JSON.stringify(forged) });
      expect(created.status).toBe(201);
      const { key } = (await created.json()) as { key: string };
      const res = await chat(key);
      expect(res.status).toBe(401);
      const { error } = (await res.json()) as { error: { message: string; provider: string } };
      expect(error.provider).toBe('vertex-ai');
      expect(error.message).toContain(account.clientEmail);
      expect(error.message).toContain('Invalid JWT Signature');
      expect(fake.requests).toHaveLength(0);
    });
  });
});
