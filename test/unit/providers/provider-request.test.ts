// Every kind of request a provider is sent — a generation, embeddings, its model list, a response it
// stored — carries the credential the same way, because one function makes them all from the provider's
// members (providers/provider-request.ts).
import { describe, expect, it } from 'vitest';
import { getProvider } from '../../../src-main/providers/registry.js';
import { providerRequest } from '../../../src-main/providers/provider-request.js';
import type { ProviderAdapter, ProviderCredentials, ProviderEndpoint, ProviderTarget, UpstreamRequest } from '../../../src-main/providers/types.js';

/** Each provider with credentials that need no signing or token minting, and the header its token travels in. */
const CASES: { slug: string; credentials: ProviderCredentials; header: string; value: string }[] = [
  { slug: 'openai', credentials: { token: 'sk-1' }, header: 'authorization', value: 'Bearer sk-1' },
  { slug: 'anthropic', credentials: { token: 'sk-ant-1' }, header: 'x-api-key', value: 'sk-ant-1' },
  { slug: 'azure-openai', credentials: { token: 'k'.repeat(32), azure: { resourceName: 'r', deploymentId: 'd', apiVersion: '2024-10-21' } }, header: 'api-key', value: 'k'.repeat(32) },
  { slug: 'google', credentials: { token: 'AIza1' }, header: 'x-goog-api-key', value: 'AIza1' },
  { slug: 'vertex-ai', credentials: { token: 'ya29.1', vertex: { projectId: 'p', region: 'us-central1' } }, header: 'authorization', value: 'Bearer ya29.1' },
  { slug: 'bedrock', credentials: { token: 'bedrock-api-key', bedrock: { region: 'us-east-1' } }, header: 'authorization', value: 'Bearer bedrock-api-key' },
];

/** The endpoints a provider has, as its members declare them. */
function endpointsOf(adapter: ProviderAdapter, target: ProviderTarget): ProviderEndpoint[] {
  const model = adapter.slug === 'bedrock' ? 'amazon.titan-embed-text-v2:0' : 'm';
  const endpoints: ProviderEndpoint[] = [
    { kind: 'generate', call: { ...target, format: adapter.formats(model)[0], operation: 'generate', model, stream: false, body: '{}' } },
  ];
  if (adapter.embeddings) endpoints.push({ kind: 'embeddings', call: { ...target, operation: 'embeddings', format: adapter.embeddings.format(model), model, body: '{}' } });
  if (adapter.modelListing) endpoints.push({ kind: 'models' });
  if (adapter.storesResponses) endpoints.push({ kind: 'stored-response', method: 'GET', path: 'resp_1', search: '' });
  return endpoints;
}

describe('one way to address and authenticate a provider', () => {
  it.each(CASES)('$slug: every kind of request it has carries the credential in $header', async ({ slug, credentials, header, value }) => {
    const adapter = getProvider(slug);
    // A client's own header of the same name goes along where it is not the credential, and never replaces it.
    const target: ProviderTarget = { credentials, forwardHeaders: { [header]: 'smuggled', 'x-trace': 't1' } };
    const requests: UpstreamRequest[] = await Promise.all(endpointsOf(adapter, target).map((endpoint) => providerRequest(adapter, endpoint, target)));
    expect(requests.length).toBeGreaterThan(1);
    for (const request of requests) {
      expect(request.headers[header]).toBe(value);
      expect(request.headers['x-trace']).toBe('t1');
    }
  });

  it('a read may go without a token (the provider answers its own 401); a generation without one is refused before it is sent', () => {
    const adapter = getProvider('openai');
    const target: ProviderTarget = { credentials: {}, forwardHeaders: {} };
    const models = providerRequest(adapter, { kind: 'models' }, target) as UpstreamRequest;
    expect(models).toMatchObject({ method: 'GET', url: 'https://api.openai.com/v1/models' });
    expect(models.headers).not.toHaveProperty('authorization');
    const generate: ProviderEndpoint = { kind: 'generate', call: { ...target, format: 'openai-chat', operation: 'generate', model: 'm', stream: false, body: '{}' } };
    expect(() => providerRequest(adapter, generate, target)).toThrow(expect.objectContaining({ status: 401 }));
  });
});
