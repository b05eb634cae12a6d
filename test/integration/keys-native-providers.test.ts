// Virtual keys for providers with their own credentials (Anthropic, Azure OpenAI, Bedrock, Vertex AI):
// stored once with every field they need, then used with no provider headers at all.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runKeysCommand } from '../../src-main/cli/keys.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic.js';
import { startAzureFake, type AzureFake } from '../fakes/azure-openai.js';
import { startBedrockFake, type BedrockFake } from '../fakes/bedrock.js';
import { startVertexFake, type VertexFake } from '../fakes/vertex.js';
import { startGoogleOAuthFake } from '../fakes/google-oauth.js';
import { runInProcess } from '../helpers/cli-in-process.js';

const AWS_SESSION = { accessKeyId: 'ASIAKEYSTOREDTEST001', secretAccessKey: 'stored/secret/access/key/for/tests/0001', sessionToken: 'stored-session-token-0001' };

let gateway: TestGateway;
let anthropicFake: AnthropicFake;
let azureFake: AzureFake;
let bedrockFake: BedrockFake;
let vertexFake: VertexFake;

beforeAll(async () => {
  gateway = await startGateway();
  anthropicFake = await startAnthropicFake();
  azureFake = await startAzureFake();
  bedrockFake = await startBedrockFake({ region: 'eu-west-1', credentials: [AWS_SESSION] });
  vertexFake = await startVertexFake();
});
afterAll(async () => {
  await gateway.close();
  await anthropicFake.close();
  await azureFake.close();
  await bedrockFake.close();
  await vertexFake.close();
});

async function createVirtualKey(body: Record<string, unknown>): Promise<string> {
  const response = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify(body) });
  expect(response.status).toBe(201);
  return ((await response.json()) as { key: string }).key;
}

/** `gatehouse keys ...` against the running gateway's data dir; returns stdout. */
async function cli(args: string[], stdin: string): Promise<string> {
  const { code, stdout, stderr } = await runInProcess(runKeysCommand, [...args, '--data-dir', gateway.dataDir], { stdin });
  expect(code, stderr).toBe(0);
  return stdout.trim();
}

/** A key added by another process (the CLI) is seen by the running server within a second. */
async function completeWhenLive(key: string, send: (key: string) => Promise<Response> = complete, limitMs = 1500): Promise<Response> {
  const start = Date.now();
  for (;;) {
    const response = await send(key);
    if (response.status !== 401 || Date.now() - start > limitMs) return response;
    await response.text();
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
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

  it('a Bedrock key from the command line: ids and region as flags, secret and session token on stdin, signed by the gateway', async () => {
    const key = await cli(
      ['keys', 'add', '--name', 'bedrock', '--provider', 'bedrock', '--custom-host', bedrockFake.baseUrl, '--cloud-c-access-key-id', AWS_SESSION.accessKeyId, '--cloud-c-region', 'eu-west-1'],
      `${AWS_SESSION.secretAccessKey}\n${AWS_SESSION.sessionToken}\n`,
    );
    const response = await completeWhenLive(key);
    expect(response.status, await response.clone().text()).toBe(200);
    const received = bedrockFake.requests.at(-1);
    // The fake verified the SigV4 signature with the stored secret; the session token rode along signed.
    expect(received?.headers['x-amz-security-token']).toBe(AWS_SESSION.sessionToken);
    expect(received?.signedHeaders).toContain('x-amz-security-token');
    expect(String(received?.headers.authorization)).toContain(`Credential=${AWS_SESSION.accessKeyId}/`);
    expect(String(received?.headers.authorization)).not.toContain(AWS_SESSION.secretAccessKey);
  });

  it('a Vertex AI key carries project and region', async () => {
    const key = await createVirtualKey({
      name: 'vertex',
      provider: 'vertex-ai',
      secret: 'ya29.stored-vertex-token',
      customHost: vertexFake.baseUrl,
      cloud: { cloud_b_project_id: 'my-project', cloud_b_region: 'europe-west4' },
    });
    const response = await fetch(`${gateway.baseUrl}/v1/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-gateway-api-key': key },
      body: JSON.stringify({ model: 'gemini-2.0-flash', prompt: 'hi', max_tokens: 5 }),
    });
    expect(response.status, await response.clone().text()).toBe(200);
    const received = vertexFake.requests.at(-1);
    expect(received?.url).toMatch(/^\/v1\/projects\/my-project\/locations\/europe-west4\//);
    expect(received?.headers.authorization).toBe('Bearer ya29.stored-vertex-token');
  });

  it('a Vertex AI key from the command line with a service account key file: no token asked for, tokens made from the file', async () => {
    const oauth = await startGoogleOAuthFake();
    const folder = mkdtempSync(join(tmpdir(), 'gatehouse-sa-'));
    try {
      const file = join(folder, 'service-account.json');
      writeFileSync(file, oauth.serviceAccount('cli').json, { mode: 0o600 });
      // No custom host to excuse a missing token, and nothing on stdin: the key file is enough.
      await cli(['keys', 'add', '--name', 'vertex-sa-default-host', '--provider', 'vertex-ai', '--cloud-b-project-id', 'cli-project', '--cloud-b-region', 'us-central1', '--service-account-key', file], '');

      const key = await cli(
        ['keys', 'add', '--name', 'vertex-sa', '--provider', 'vertex-ai', '--custom-host', vertexFake.baseUrl, '--cloud-b-project-id', 'cli-project', '--cloud-b-region', 'us-central1', '--service-account-key', file],
        '',
      );
      const response = await completeWhenLive(key, (liveKey) =>
        fetch(`${gateway.baseUrl}/v1/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-gateway-api-key': liveKey },
          body: JSON.stringify({ model: 'gemini-2.0-flash', prompt: 'hi', max_tokens: 5 }),
        }),
      );
      expect(response.status, await response.clone().text()).toBe(200);
      expect(vertexFake.requests.at(-1)?.headers.authorization).toBe(`Bearer ${oauth.issued.at(-1)}`);
    } finally {
      await oauth.close();
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
