// The gateway in front of Azure OpenAI (Cloud A): deployment URL, api-version, key or Entra auth,
// Azure's filter-annotated streams cleaned up for OpenAI clients, and Azure's errors in the contract's shape.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { AZURE_CHAT_TEXT, AZURE_MODEL, azureCompletionText, azureError, contentFilterError, startAzureFake, streamThatFails, type AzureFake } from '../fakes/azure-openai.js';

const AZURE_KEY = '0123456789abcdef0123456789abcdef';
// Shaped like an Entra ID access token (header.payload.signature, base64url).
const ENTRA_TOKEN = 'eyJ0eXAiOiJKV1QiLCJhbGciOiJSUzI1NiJ9.eyJhdWQiOiJodHRwczovL2NvZ25pdGl2ZXNlcnZpY2VzLmF6dXJlLmNvbSJ9.c2lnbmF0dXJlLXBhcnQ';

let gateway: TestGateway;
let fake: AzureFake;

beforeAll(async () => {
  gateway = await startGateway();
  fake = await startAzureFake();
});
afterAll(async () => {
  await gateway.close();
  await fake.close();
});
afterEach(() => {
  fake.requests.length = 0;
});

const cloudHeaders = (): Record<string, string> => ({
  'x-gateway-api-key': gateway.apiKey,
  'x-gateway-provider': 'azure-openai',
  'x-gateway-custom-host': fake.baseUrl,
  'x-gateway-cloud-a-resource-name': 'my-resource',
  'x-gateway-cloud-a-deployment-id': 'instruct-prod',
  'x-gateway-cloud-a-api-version': '2024-10-21',
});

function post(path: string, body: string | object, extra: Record<string, string> = {}) {
  return fetch(`${gateway.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${AZURE_KEY}`, ...cloudHeaders(), ...extra },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

function sdk(token = AZURE_KEY) {
  return new OpenAI({ apiKey: token, baseURL: `${gateway.baseUrl}/v1`, defaultHeaders: cloudHeaders(), maxRetries: 0 });
}

/** The `data:` payloads of an SSE body, in order. */
function dataLines(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
}

describe('azure-openai: requests', () => {
  it('calls the deployment route with api-version and moves a resource key into api-key', async () => {
    const response = await post('/v1/completions', { model: 'gpt-3.5-turbo-instruct', prompt: 'hi' });
    expect(response.status).toBe(200);
    const received = fake.requests[0];
    expect(received.path).toBe('/openai/deployments/instruct-prod/completions');
    expect(received.apiVersion).toBe('2024-10-21');
    expect(received.headers['api-key']).toBe(AZURE_KEY);
    expect(received.headers.authorization).toBeUndefined();
    expect(Object.keys(received.headers).filter((name) => name.startsWith('x-gateway-'))).toEqual([]);
  });

  it('keeps an Entra ID token as Authorization: Bearer', async () => {
    await post('/v1/chat/completions', { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, { authorization: `Bearer ${ENTRA_TOKEN}` });
    const received = fake.requests[0];
    expect(received.path).toBe('/openai/deployments/instruct-prod/chat/completions');
    expect(received.headers.authorization).toBe(`Bearer ${ENTRA_TOKEN}`);
    expect(received.headers['api-key']).toBeUndefined();
  });

  it('sends the client body bytes unchanged, so a seed beyond 2^53 arrives exactly', async () => {
    const raw = '{"model":"gpt-35-turbo-instruct","prompt":"Say hi","seed":9007199254740993,"max_tokens":5}';
    const response = await post('/v1/completions', raw);
    expect(response.status).toBe(200);
    expect(fake.requests[0].body.toString('utf8')).toBe(raw);
  });

  it('refuses a request without the deployment header with 400 naming that header', async () => {
    const response = await post('/v1/completions', { model: 'm', prompt: 'x' }, { 'x-gateway-cloud-a-deployment-id': '' });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { param: string; message: string; provider: string } };
    expect(body.error.param).toBe('x-gateway-cloud-a-deployment-id');
    expect(body.error.message).toContain('x-gateway-cloud-a-deployment-id');
    expect(body.error.provider).toBe('azure-openai');
    expect(fake.requests).toHaveLength(0);
  });

  it('refuses a request without api-version with 400 naming that header', async () => {
    const response = await post('/v1/completions', { model: 'm', prompt: 'x' }, { 'x-gateway-cloud-a-api-version': '' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe('x-gateway-cloud-a-api-version');
  });

  it('needs the resource name when no custom host stands in for it', async () => {
    const response = await post('/v1/completions', { model: 'm', prompt: 'x' }, { 'x-gateway-custom-host': '', 'x-gateway-cloud-a-resource-name': '' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe('x-gateway-cloud-a-resource-name');
  });

  it('refuses a resource name that is not a host label, so a key cannot be sent elsewhere', async () => {
    const response = await post('/v1/completions', { model: 'm', prompt: 'x' }, { 'x-gateway-custom-host': '', 'x-gateway-cloud-a-resource-name': 'evil.example.com/x' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe('x-gateway-cloud-a-resource-name');
  });
});

describe('azure-openai: answers through the official OpenAI SDK', () => {
  it('completion: text, finish_reason, usage, and the model Azure reports', async () => {
    const completion = await sdk().completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'hello world', max_tokens: 8 });
    expect(completion.object).toBe('text_completion');
    expect(completion.model).toBe(AZURE_MODEL);
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0].text).toBe(azureCompletionText('hello world'));
    expect(completion.choices[0].finish_reason).toBe('stop');
    expect(completion.usage).toEqual({ prompt_tokens: 6, completion_tokens: 4, total_tokens: 10 });
  });

  it('streamed completion: every chunk has a choice, and the text arrives whole', async () => {
    const stream = await sdk().completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'one two', stream: true });
    let text = '';
    const finishReasons: (string | null)[] = [];
    for await (const chunk of stream) {
      expect(chunk.choices.length).toBeGreaterThan(0);
      text += chunk.choices[0].text;
      finishReasons.push(chunk.choices[0].finish_reason);
      expect(chunk.model).toBe(AZURE_MODEL);
    }
    expect(text).toBe(azureCompletionText('one two'));
    expect(finishReasons.at(-1)).toBe('stop');
  });

  it('chat and streamed chat', async () => {
    const client = sdk(ENTRA_TOKEN);
    const chat = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.object).toBe('chat.completion');
    expect(chat.choices[0].message.content).toBe(AZURE_CHAT_TEXT);
    expect(chat.model).toBe(AZURE_MODEL);

    const stream = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(AZURE_CHAT_TEXT);
    expect(usage).toEqual({ prompt_tokens: 6, completion_tokens: 4, total_tokens: 10 });
  });
});

describe('azure-openai: streams on the wire', () => {
  it('skips the leading empty-choices chunk and annotation-only entries, and ends with data: [DONE]', async () => {
    const response = await post('/v1/completions', { model: 'x', prompt: 'a b c', stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    const lines = dataLines(await response.text());
    expect(lines.at(-1)).toBe('[DONE]');
    const chunks = lines.slice(0, -1).map((line) => JSON.parse(line) as { object: string; choices: { text?: string }[] });
    const words = azureCompletionText('a b c').split(' ').length;
    expect(chunks.length).toBe(words + 1); // one chunk per word, then the finishing chunk
    for (const chunk of chunks) {
      expect(chunk.object).toBe('text_completion');
      expect(chunk.choices).toHaveLength(1);
      expect(typeof chunk.choices[0].text).toBe('string');
    }
    expect(chunks.map((chunk) => chunk.choices[0].text).join('')).toBe(azureCompletionText('a b c'));
  });

  it('keeps the include_usage chunk, whose choices are empty on purpose', async () => {
    const response = await post('/v1/completions', { model: 'x', prompt: 'a', stream: true, stream_options: { include_usage: true } });
    const lines = dataLines(await response.text());
    const usageChunk = JSON.parse(lines.at(-2)!) as { choices: unknown[]; usage: { total_tokens: number } };
    expect(usageChunk.choices).toEqual([]);
    expect(usageChunk.usage.total_tokens).toBe(10);
  });

  it('turns an error event inside the stream into an error event for the client, then ends', async () => {
    fake.enqueue(streamThatFails);
    const response = await post('/v1/completions', { model: 'x', prompt: 'a', stream: true });
    const lines = dataLines(await response.text());
    expect(JSON.parse(lines[0]).choices[0].text).toBe('partial');
    const last = JSON.parse(lines.at(-1)!) as { error: { message: string; provider: string } };
    expect(last.error.message).toContain('The server had an error');
    expect(last.error.provider).toBe('azure-openai');
    expect(lines).not.toContain('[DONE]');
  });
});

describe('azure-openai: errors', () => {
  it("relays Azure's content-filter 400 with its message, code and the categories that fired", async () => {
    fake.enqueue(contentFilterError);
    const response = await post('/v1/completions', { model: 'x', prompt: 'something' });
    expect(response.status).toBe(400);
    const body = (await response.json()) as { error: { message: string; type: string; code: string; provider: string; param: string } };
    expect(body.error.message).toContain("triggering Azure OpenAI's content management policy");
    expect(body.error.message).toContain('violence (medium)');
    expect(body.error.code).toBe('content_filter');
    expect(body.error.type).toBe('invalid_request_error');
    expect(body.error.provider).toBe('azure-openai');
  });

  it("relays Azure's 400 for a field the deployment does not take (Azure decides, the gateway does not drop it)", async () => {
    fake.enqueue(azureError(400, { message: 'Unrecognized request argument supplied: best_of', type: 'invalid_request_error', param: null, code: null }));
    const response = await post('/v1/chat/completions', { model: 'x', messages: [{ role: 'user', content: 'a' }], best_of: 2 });
    expect(response.status).toBe(400);
    expect(JSON.parse(fake.requests[0].body.toString('utf8')).best_of).toBe(2);
    const body = (await response.json()) as { error: { message: string; provider: string } };
    expect(body.error.message).toBe('Unrecognized request argument supplied: best_of');
    expect(body.error.provider).toBe('azure-openai');
  });

  it('relays 429 with its status and Retry-After, through the SDK too', async () => {
    fake.enqueue(azureError(429, { code: '429', message: 'Requests to the Completions Operation have exceeded call rate limit. Please retry after 2 seconds.' }, { 'retry-after': '2' }));
    const error = await sdk().completions.create({ model: 'x', prompt: 'a' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    const rateLimited = error as InstanceType<typeof OpenAI.RateLimitError>;
    expect(rateLimited.status).toBe(429);
    expect(rateLimited.message).toContain('exceeded call rate limit');
    expect(rateLimited.headers.get('retry-after')).toBe('2');
  });

  it('relays a wrong key as 401 with Azure’s message', async () => {
    const response = await post('/v1/completions', { model: 'x', prompt: 'a' }, { authorization: '' });
    expect(response.status).toBe(401);
    const body = (await response.json()) as { error: { message: string; provider: string; type: string } };
    expect(body.error.message).toContain('Access denied');
    expect(body.error.type).toBe('authentication_error');
    expect(body.error.provider).toBe('azure-openai');
  });
});

describe('azure-openai: what a call costs', () => {
  // The fake reports 6 prompt and 4 completion tokens.
  type Row = { model: string; costUsd: number | null };
  async function lastRow(): Promise<Row> {
    await gateway.flushLog();
    const { items } = (await (await gateway.admin('/logs?limit=1')).json()) as { items: Row[] };
    return items[0];
  }
  // gpt-3.5-turbo-instruct (Azure: gpt-35-turbo-instruct-0914, what the fake answers with): $1.50 / $2.
  const instructCost = (6 * 1.5 + 4 * 2) / 1e6;

  it('prices a call named by its deployment by the model Azure says served it, streamed or not', async () => {
    expect((await post('/v1/completions', { model: 'prod-instruct', prompt: 'hi' })).status).toBe(200);
    const whole = await lastRow();
    expect(whole.model).toBe('prod-instruct');
    expect(whole.costUsd).toBeCloseTo(instructCost, 12);

    const streamed = await post('/v1/chat/completions', { model: 'prod-chat', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
    await streamed.text();
    const row = await lastRow();
    expect(row.model).toBe('prod-chat');
    expect(row.costUsd).toBeCloseTo(instructCost, 12);
  });

  it('prices by the model name stored with the deployment when there is one', async () => {
    // gpt-4o-mini: $0.15 / $0.60 per million.
    expect((await post('/v1/completions', { model: 'prod-instruct', prompt: 'hi' }, { 'x-gateway-cloud-a-model-name': 'gpt-4o-mini' })).status).toBe(200);
    expect((await lastRow()).costUsd).toBeCloseTo((6 * 0.15 + 4 * 0.6) / 1e6, 12);
  });
});
