// The key form asks for what the server will require: every required field, except an API key when a
// custom host is given, and a field whose alternative is filled in (Vertex: a service account key file
// instead of an access token).
import { describe, expect, it } from 'vitest';
import type { ProviderInfo } from '../../../src-renderer/api/types';
import { missingRequiredFields } from '../../../src-renderer/keys/provider-form';
import { vertexAi } from '../../../src-main/providers/vertex-ai';

// The fields exactly as GET /admin/api/providers lists them (admin/key-routes.ts).
const vertex: ProviderInfo = {
  slug: vertexAi.slug,
  name: vertexAi.name,
  defaultBaseUrl: vertexAi.defaultBaseUrl,
  fields: vertexAi.credentialFields.map((field) => ({ ...field })),
};
const missing = (values: Record<string, string>, customHost = '') => missingRequiredFields(vertex, values, customHost).map((field) => field.name);

describe('required credential fields in the key form', () => {
  it('asks for the token, the project and the region when none is given', () => {
    expect(missing({})).toEqual(['token', 'vertex.projectId', 'vertex.region']);
  });

  it('takes a service account key file instead of the token', () => {
    expect(missing({ 'vertex.serviceAccountJson': '{"type": "service_account"}', 'vertex.projectId': 'p', 'vertex.region': 'r' })).toEqual([]);
    expect(missing({ 'vertex.serviceAccountJson': '   ', 'vertex.projectId': 'p', 'vertex.region': 'r' })).toEqual(['token']);
  });

  it('needs no token with a custom host, but still the project and region', () => {
    expect(missing({}, 'http://localhost:8080')).toEqual(['vertex.projectId', 'vertex.region']);
  });
});
