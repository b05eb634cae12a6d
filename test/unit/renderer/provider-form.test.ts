// The key form asks for what the server will require: every required field, except an API key when a
// custom host is given, and a field whose alternative is filled in (Vertex: a service account key file
// instead of an access token).
import { describe, expect, it } from 'vitest';
import type { ProviderInfo } from '../../../src-renderer/api/types';
import { missingRequiredFields } from '../../../src-renderer/keys/provider-form';

const vertex: ProviderInfo = {
  slug: 'vertex-ai',
  name: 'Google Vertex AI',
  defaultBaseUrl: 'https://{region}-aiplatform.googleapis.com',
  fields: [
    { name: 'token', label: 'Access token', secret: true, required: true, alternative: 'vertex.serviceAccountJson' },
    { name: 'vertex.serviceAccountJson', label: 'Service account key (JSON)', secret: true, required: false },
    { name: 'vertex.projectId', label: 'Project ID', secret: false, required: true },
  ],
};
const missing = (values: Record<string, string>, customHost = '') => missingRequiredFields(vertex, values, customHost).map((field) => field.name);

describe('required credential fields in the key form', () => {
  it('asks for the token and the project when neither is given', () => {
    expect(missing({})).toEqual(['token', 'vertex.projectId']);
  });

  it('takes a service account key file instead of the token', () => {
    expect(missing({ 'vertex.serviceAccountJson': '{"type": "service_account"}', 'vertex.projectId': 'p' })).toEqual([]);
    expect(missing({ 'vertex.serviceAccountJson': '   ', 'vertex.projectId': 'p' })).toEqual(['token']);
  });

  it('needs no token with a custom host, but still the project', () => {
    expect(missing({}, 'http://localhost:8080')).toEqual(['vertex.projectId']);
  });
});
