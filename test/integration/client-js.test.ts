// @gatehouse/client against a running gateway and an OpenAI-format provider double:
// the settings of spec §5 arrive as headers, answers and errors come back as the SDK's.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { APIError, BadRequestError, Gatehouse, gatehouseHeaders, headerNameOf, OpenAIError } from '@gatehouse/client';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

const PROVIDER_TOKEN = 'sk-provider-token-1234567890';

let gateway: TestGateway;
let fake: OpenAIFake;

beforeAll(async () => {
  gateway = await startGateway();
  fake = await startOpenAIFake();
});
afterAll(async () => {
  await gateway.close();
  await fake.close();
});
afterEach(() => {
  fake.requests.length = 0;
});

function client(extra: ConstructorParameters<typeof Gatehouse>[0] = {}): Gatehouse {
  return new Gatehouse({
    gatewayApiKey: gateway.apiKey,
    baseURL: `${gateway.baseUrl}/v1`,
    provider: 'openai',
    customHost: fake.baseUrl,
    Authorization: `Bearer ${PROVIDER_TOKEN}`,
    maxRetries: 0,
    ...extra,
  });
}

interface LogEntry {
  traceId: string;
  metadata: Record<string, string>;
  path: string;
  status: number;
}

async function logEntriesFor(traceId: string): Promise<LogEntry[]> {
  await gateway.flushLog();
  const response = await gateway.admin(`/logs?q=${encodeURIComponent(traceId)}`);
  expect(response.status).toBe(200);
  const { items } = (await response.json()) as { items: LogEntry[] };
  return items.filter((entry) => entry.traceId === traceId);
}

describe('@gatehouse/client against the gateway', () => {
  it('returns a text completion, with the provider token reaching the provider and the gateway key not', async () => {
    const completion = await client().completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'hello world' });
    expect(completion.object).toBe('text_completion');
    expect(completion.choices[0].text).toBe('echo: hello world');
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0].url).toBe('/v1/completions');
    expect(fake.requests[0].headers.authorization).toBe(`Bearer ${PROVIDER_TOKEN}`);
    expect(JSON.stringify(fake.requests[0].headers)).not.toContain(gateway.apiKey);
  });

  it('streams a completion chunk by chunk with for await', async () => {
    const stream = await client().completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'one two three', stream: true });
    const pieces: string[] = [];
    for await (const chunk of stream) pieces.push(chunk.choices[0]?.text ?? '');
    expect(pieces.filter(Boolean).length).toBeGreaterThan(1);
    expect(pieces.join('')).toBe('echo: one two three');
  });

  it('answers a chat completion, streamed and not', async () => {
    const chat = await client().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
    expect(chat.choices[0].message.content).toBe('Hello from the fake');
    expect(fake.requests[0].url).toBe('/v1/chat/completions');

    const stream = await client().chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text).toBe('Hello from the fake');
  });

  it('records the trace id and metadata given to withOptions in the request log, for that client only', async () => {
    const base = client({ metadata: { app: 'client-js-test' } });
    const traceId = `client-js-${Date.now()}`;
    const traced = base.withOptions({ traceId, metadata: { user: 'ada' } });
    expect(traced).toBeInstanceOf(Gatehouse);

    const response = await traced.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'traced' }).withResponse();
    expect(response.response.headers.get('x-gateway-trace-id')).toBe(traceId);
    await base.completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'not traced' });

    const entries = await logEntriesFor(traceId);
    expect(entries).toHaveLength(1);
    expect(entries[0].metadata).toEqual({ app: 'client-js-test', user: 'ada' });
    expect(entries[0].path).toContain('/completions');
    expect(entries[0].status).toBe(200);
  });

  it('sends a camelCase option as a custom header that reaches the provider', async () => {
    await client({ xMyCustomHeader: 'custom-value' }).completions.create({ model: 'm', prompt: 'x' });
    expect(fake.requests[0].headers['x-my-custom-header']).toBe('custom-value');
  });

  it('passes the headers named in forwardHeaders to the provider, credential headers included', async () => {
    const forwarding = client({ forwardHeaders: ['x-api-key', 'x-secret-thing'], xApiKey: 'abc123', xSecretThing: 'shh' });
    await forwarding.completions.create({ model: 'm', prompt: 'x' });
    expect(fake.requests[0].headers['x-api-key']).toBe('abc123');
    expect(fake.requests[0].headers['x-secret-thing']).toBe('shh');
  });

  it('surfaces a validation error as an APIError with status 400, message, type and param', async () => {
    const error: unknown = await client()
      .completions.create({ model: 'gpt-3.5-turbo-instruct', prompt: 'x', temperature: 2.5 })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect(error).toBeInstanceOf(BadRequestError);
    const apiError = error as APIError;
    expect(apiError.status).toBe(400);
    expect(apiError.type).toBe('invalid_request_error');
    expect(apiError.param).toBe('temperature');
    expect(apiError.message).toContain('temperature');
    expect(fake.requests).toHaveLength(0);
  });

  it('surfaces a wrong gateway key as a 401 APIError', async () => {
    const error: unknown = await client({ gatewayApiKey: 'not-a-key' })
      .completions.create({ model: 'm', prompt: 'x' })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(401);
  });

  it('accepts per-call headers built by gatehouseHeaders', async () => {
    const traceId = `client-js-per-call-${Date.now()}`;
    await client().completions.create({ model: 'm', prompt: 'x' }, { headers: gatehouseHeaders({ traceId, metadata: { step: 'one' } }) });
    const entries = await logEntriesFor(traceId);
    expect(entries).toHaveLength(1);
    expect(entries[0].metadata).toEqual({ step: 'one' });
  });
});

describe('@gatehouse/client settings without a gateway', () => {
  it('maps every spec setting to its header', () => {
    expect(
      gatehouseHeaders({
        apiKey: 'gw',
        provider: 'azure-openai',
        customHost: 'http://127.0.0.1:1/v1',
        Authorization: 'Bearer t',
        forwardHeaders: ['a', 'b'],
        traceId: 't1',
        metadata: { k: 'v' },
        retryCount: 2,
        requestTimeout: 5000,
        cloudAResourceName: 'res',
        cloudADeploymentId: 'dep',
        cloudAApiVersion: '2024-10-21',
        cloudAModelName: 'gpt-4o',
        cloudBProjectId: 'proj',
        cloudBRegion: 'us-central1',
        cloudCAccessKeyId: 'AKIA',
        cloudCSecretAccessKey: 'secret',
        cloudCRegion: 'us-east-1',
        cloudCSessionToken: 'session',
        xCloudBLlmRequestType: 'rawPredict',
      }),
    ).toEqual({
      'x-gateway-api-key': 'gw',
      'x-gateway-provider': 'azure-openai',
      'x-gateway-custom-host': 'http://127.0.0.1:1/v1',
      authorization: 'Bearer t',
      'x-gateway-forward-headers': 'a,b',
      'x-gateway-trace-id': 't1',
      'x-gateway-metadata': '{"k":"v"}',
      'x-gateway-retry-count': '2',
      'x-gateway-request-timeout': '5000',
      'x-gateway-cloud-a-resource-name': 'res',
      'x-gateway-cloud-a-deployment-id': 'dep',
      'x-gateway-cloud-a-api-version': '2024-10-21',
      'x-gateway-cloud-a-model-name': 'gpt-4o',
      'x-gateway-cloud-b-project-id': 'proj',
      'x-gateway-cloud-b-region': 'us-central1',
      'x-gateway-cloud-c-access-key-id': 'AKIA',
      'x-gateway-cloud-c-secret-access-key': 'secret',
      'x-gateway-cloud-c-region': 'us-east-1',
      'x-gateway-cloud-c-session-token': 'session',
      'x-cloud-b-llm-request-type': 'rawPredict',
    });
  });

  it('turns camelCase option names into header names', () => {
    expect(headerNameOf('xMyCustomHeader')).toBe('x-my-custom-header');
    expect(headerNameOf('xAPIKey')).toBe('x-api-key');
    expect(headerNameOf('X_My_Custom_Header')).toBe('x-my-custom-header');
    expect(headerNameOf('x-already-dashed')).toBe('x-already-dashed');
  });

  it('refuses to start without a gateway key, naming the option and the environment variable', () => {
    const saved = process.env.GATEWAY_API_KEY;
    delete process.env.GATEWAY_API_KEY;
    try {
      expect(() => new Gatehouse({ provider: 'openai' })).toThrow(OpenAIError);
      expect(() => new Gatehouse({ provider: 'openai' })).toThrow(/gatewayApiKey.*GATEWAY_API_KEY/);
    } finally {
      if (saved !== undefined) process.env.GATEWAY_API_KEY = saved;
    }
  });

  it('sends the gateway key only as x-gateway-api-key, never as a bearer token the provider could see', async () => {
    const sent: Headers[] = [];
    const recordingFetch: typeof fetch = async (_url, init) => {
      sent.push(new Headers(init?.headers));
      return new Response(JSON.stringify({ id: 'c', object: 'text_completion', created: 0, model: 'm', choices: [] }), {
        headers: { 'content-type': 'application/json' },
      });
    };
    const virtualKeyClient = new Gatehouse({ gatewayApiKey: 'gh-vk-example', fetch: recordingFetch, maxRetries: 0 });
    await virtualKeyClient.completions.create({ model: 'm', prompt: 'x' });
    expect(sent[0].get('x-gateway-api-key')).toBe('gh-vk-example');
    expect(sent[0].get('authorization')).toBeNull();
  });

  it('withOptions keeps the SDK options and refuses options that would bypass the gateway', () => {
    const base = new Gatehouse({ gatewayApiKey: 'gw', baseURL: 'http://127.0.0.1:9/v1', timeout: 1234, maxRetries: 0 });
    const derived = base.withOptions({ traceId: 't' });
    expect(derived.baseURL).toBe('http://127.0.0.1:9/v1');
    expect(derived.timeout).toBe(1234);
    expect(derived.maxRetries).toBe(0);
    expect(() => base.withOptions({ adminAPIKey: 'sk-admin' })).toThrow(/withOptions takes Gatehouse options/);
  });

  it('defaults to the local gateway address and reads GATEWAY_API_KEY', () => {
    const saved = process.env.GATEWAY_API_KEY;
    process.env.GATEWAY_API_KEY = 'from-env';
    try {
      const fromEnv = new Gatehouse();
      expect(fromEnv.baseURL).toBe('http://127.0.0.1:8787/v1');
      expect(fromEnv.apiKey).toBe('from-env');
    } finally {
      if (saved === undefined) delete process.env.GATEWAY_API_KEY;
      else process.env.GATEWAY_API_KEY = saved;
    }
  });
});
