// Virtual keys for providers with their own credentials: an Anthropic key stored once, and an Azure
// OpenAI key with its resource, deployment and API version, used with no provider headers at all.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic.js';
import { startAzureFake, type AzureFake } from '../fakes/azure-openai.js';

let gateway: TestGateway;
let anthropicFake: AnthropicFake;
let azureFake: AzureFake;

beforeAll(async () => {
  gateway = await startGateway();
  anthropicFake = await startAnthropicFake();
  azureFake = await startAzureFake();
});
afterAll(async () => {
  await gateway.close();
  await anthropicFake.close();
  await azureFake.close();
});

async function createVirtualKey(body: Record<string, unknown>): Promise<string> {
  const response = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify(body) });
  expect(response.status).toBe(201);
  return ((await response.json()) as { key: string }).key;
}

function complete(key: string) {
  return fetch(`${gateway.baseUrl}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'claude-haiku-4-5', prompt: 'hi', max_tokens: 5 }),
  });
}

describe('virtual keys for native providers', () => {
  it('an Anthropic key stored once reaches Anthropic with its own key header', async () => {
    const key = await createVirtualKey({ name: 'claude', provider: 'anthropic', secret: 'sk-ant-stored-777', customHost: anthropicFake.baseUrl });
    const response = await complete(key);
    expect(response.status).toBe(200);
    const received = anthropicFake.requests.at(-1);
    expect(received?.headers['x-api-key']).toBe('sk-ant-stored-777');
  });

  it('an Azure OpenAI key carries resource, deployment and API version (spec parameter names accepted)', async () => {
    const key = await createVirtualKey({
      name: 'azure',
      provider: 'azure-openai',
      secret: '0123456789abcdef0123456789abcdef',
      customHost: azureFake.baseUrl,
      cloud: { cloud_a_resource_name: 'my-resource', cloudADeploymentId: 'instruct-prod', 'azure.apiVersion': '2024-10-21' },
    });
    const listed = (await (await gateway.admin('/virtual-keys')).json()) as { items: { provider: string; settings: Record<string, string> }[] };
    expect(listed.items.find((item) => item.provider === 'azure-openai')?.settings).toEqual({
      'azure.resourceName': 'my-resource',
      'azure.deploymentId': 'instruct-prod',
      'azure.apiVersion': '2024-10-21',
    });

    const response = await complete(key);
    expect(response.status).toBe(200);
    const received = azureFake.requests.at(-1);
    expect(received?.path).toBe('/openai/deployments/instruct-prod/completions');
    expect(received?.apiVersion).toBe('2024-10-21');
    expect(received?.headers['api-key']).toBe('0123456789abcdef0123456789abcdef');
  });

  it('an Azure key without its deployment is refused when created', async () => {
    const response = await gateway.admin('/virtual-keys', {
      method: 'POST',
      body: JSON.stringify({ name: 'incomplete', provider: 'azure-openai', secret: 'k', cloud: { cloud_a_resource_name: 'r', cloud_a_api_version: '2024-10-21' } }),
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { param: string } }).error.param).toBe('azure.deploymentId');
  });
});
