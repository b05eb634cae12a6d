// GET /v1/models: tools fill their model pickers from it, through the same auth as the rest of /v1.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { FAKE_MODELS, openAIError, startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic.js';
import { sendJson } from '../fakes/recording-server.js';

let gateway: TestGateway;
let openaiFake: OpenAIFake;
let anthropicFake: AnthropicFake;

beforeAll(async () => {
  [gateway, openaiFake, anthropicFake] = await Promise.all([startGateway(), startOpenAIFake(), startAnthropicFake()]);
});
afterAll(async () => {
  await Promise.all([gateway.close(), openaiFake.close(), anthropicFake.close()]);
});

const listModels = (headers: Record<string, string>) => fetch(`${gateway.baseUrl}/v1/models`, { headers: { 'x-gateway-api-key': gateway.apiKey, ...headers } });

describe('GET /v1/models', () => {
  it('passes an OpenAI-format provider list through, sending the provider token', async () => {
    const response = await listModels({ 'x-gateway-provider': 'openai', 'x-gateway-custom-host': openaiFake.baseUrl, authorization: 'Bearer sk-list-token-123456' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(FAKE_MODELS);
    const received = openaiFake.requests.at(-1)!;
    expect(received.method).toBe('GET');
    expect(received.url).toBe('/v1/models');
    expect(received.headers.authorization).toBe('Bearer sk-list-token-123456');
  });

  it('works for the OpenAI SDK with a virtual key alone', async () => {
    const created = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'lister', provider: 'openai', secret: 'sk-stored-secret-999', customHost: openaiFake.baseUrl }) });
    const { key } = (await created.json()) as { key: string };
    const client = new OpenAI({ apiKey: key, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0 });
    const ids: string[] = [];
    for await (const model of client.models.list()) ids.push(model.id);
    expect(ids).toEqual(['gpt-3.5-turbo-instruct', 'gpt-4o-mini']);
    expect(openaiFake.requests.at(-1)!.headers.authorization).toBe('Bearer sk-stored-secret-999');
  });

  it("maps Anthropic's list to OpenAI's shape, authenticating with x-api-key", async () => {
    anthropicFake.enqueue((_request, res) =>
      sendJson(res, 200, {
        data: [{ type: 'model', id: 'claude-sonnet-4-5', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' }],
        has_more: false,
        first_id: 'claude-sonnet-4-5',
        last_id: 'claude-sonnet-4-5',
      }),
    );
    const response = await listModels({ 'x-gateway-provider': 'anthropic', 'x-gateway-custom-host': anthropicFake.baseUrl, authorization: 'Bearer sk-ant-list-123456' });
    expect(await response.json()).toEqual({ object: 'list', data: [{ id: 'claude-sonnet-4-5', object: 'model', created: 1759104000, owned_by: 'anthropic' }] });
    const received = anthropicFake.requests.at(-1)!;
    expect(received.url).toBe('/v1/models?limit=1000');
    expect(received.headers['x-api-key']).toBe('sk-ant-list-123456');
    expect(received.headers['anthropic-version']).toBe('2023-06-01');
  });

  it("relays the provider's error with its status, and answers 404 for a provider without a list", async () => {
    openaiFake.enqueue(openAIError(401, 'Incorrect API key provided'));
    const refused = await listModels({ 'x-gateway-provider': 'openai', 'x-gateway-custom-host': openaiFake.baseUrl, authorization: 'Bearer sk-wrong-0000000' });
    expect(refused.status).toBe(401);
    expect((await refused.json()).error).toMatchObject({ message: 'Incorrect API key provided', provider: 'openai' });

    const none = await listModels({ 'x-gateway-provider': 'bedrock', 'x-gateway-cloud-c-region': 'us-east-1' });
    expect(none.status).toBe(404);
    expect((await none.json()).error.type).toBe('not_found_error');
  });

  it('needs a key like every /v1 call, and only answers GET', async () => {
    const anonymous = await fetch(`${gateway.baseUrl}/v1/models`);
    expect(anonymous.status).toBe(401);
    const post = await fetch(`${gateway.baseUrl}/v1/models`, { method: 'POST', headers: { 'x-gateway-api-key': gateway.apiKey } });
    expect(post.status).toBe(405);
  });
});
