// Vertex AI ("Cloud B"): Gemini models through generateContent and Claude models through rawPredict,
// both under `/v1/projects/{project}/locations/{region}/publishers/{google|anthropic}/models/{model}`,
// with the OAuth access token as a bearer and the project and region from the Cloud B headers.
import { z } from 'zod';
import { parseServiceAccount, serviceAccountToken } from './google-service-account.js';
import { GatewayError } from '../core/errors.js';
import { mapMessagesError } from './anthropic.js';
import { geminiMethod, googleMethodUrl, mapGoogleError } from './google.js';
import { refuseDotSegments } from './model-path.js';
import { bearerHeaders, noSuchEndpoint, tokenHeaders, type TokenAuth } from './provider-request.js';
import type { ProviderAdapter, ProviderCall, ProviderEndpoint, ProviderTarget } from './types.js';

const SLUG = 'vertex-ai';

/** Claude on Vertex takes the Messages body without `model` and with this version in the body. */
const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

const PROJECT_HEADER = 'x-gateway-cloud-b-project-id';
const REGION_HEADER = 'x-gateway-cloud-b-region';

/** Project ids (also domain-scoped `example.com:project`) and numbers; nothing that could leave the path. */
const PROJECT_ID = /^[A-Za-z0-9][A-Za-z0-9.:_-]*$/;
/** The region becomes part of the host name, so it is held to what region names look like. */
const REGION = /^[a-z0-9]+(-[a-z0-9]+)*$/;

export const isClaudeModel = (model: string): boolean => /^claude/i.test(model);

function badHeader(header: string, message: string): GatewayError {
  return new GatewayError(400, 'invalid_request_error', message, header, 'missing_cloud_header', SLUG);
}

export function vertexLocation(call: Pick<ProviderCall, 'credentials'>): { projectId: string; region: string } {
  const { projectId, region } = call.credentials.vertex ?? {};
  if (!projectId) throw badHeader(PROJECT_HEADER, `Provider '${SLUG}' needs the Google Cloud project: send '${PROJECT_HEADER}' (or use a virtual key that has one)`);
  if (!region) throw badHeader(REGION_HEADER, `Provider '${SLUG}' needs the region: send '${REGION_HEADER}' (e.g. us-central1, or global)`);
  if (!PROJECT_ID.test(projectId)) throw badHeader(PROJECT_HEADER, `'${PROJECT_HEADER}' is not a valid project id: ${projectId}`);
  if (!REGION.test(region)) throw badHeader(REGION_HEADER, `'${REGION_HEADER}' is not a valid region: ${region}`);
  return { projectId, region };
}

/** The regional endpoint, or the global one for `locations/global`. */
export function vertexBaseUrl(region: string): string {
  return region === 'global' ? 'https://aiplatform.googleapis.com' : `https://${region}-aiplatform.googleapis.com`;
}

/** Vertex model ids carry versions after `@` (claude-sonnet-4-5@20250929), which stays readable in the path. */
const encodeModel = (model: string): string => encodeURIComponent(refuseDotSegments(model)).replace(/%40/g, '@');

const SERVICE_ACCOUNT_FIELD = 'vertex.serviceAccountJson';

/** Gemini models through generateContent, Claude models through rawPredict, embeddings through `:predict`. */
function vertexUrl(endpoint: ProviderEndpoint, target: ProviderTarget): string {
  if (endpoint.kind !== 'generate' && endpoint.kind !== 'embeddings') throw noSuchEndpoint(SLUG, endpoint);
  const { projectId, region } = vertexLocation(target);
  const base = target.customHost ?? vertexBaseUrl(region);
  const claude = endpoint.kind === 'generate' && endpoint.call.format === 'anthropic-messages';
  const path = `/v1/projects/${projectId}/locations/${region}/publishers/${claude ? 'anthropic' : 'google'}/models/${encodeModel(endpoint.call.model)}`;
  if (endpoint.kind === 'embeddings') return googleMethodUrl(base, path, 'predict', false);
  // streamRawPredict answers in Anthropic's own SSE; no alt=sse there.
  if (claude) return googleMethodUrl(base, path, endpoint.call.stream ? 'streamRawPredict' : 'rawPredict', false);
  const { method, sse } = geminiMethod(endpoint.call);
  return googleMethodUrl(base, path, method, sse);
}

const auth: TokenAuth = {
  provider: SLUG,
  headers: bearerHeaders,
  how: "an OAuth access token: send 'Authorization: Bearer <token>' (gcloud auth print-access-token)",
};

/**
 * The access token as a bearer — made (or taken from the cache) from a stored service account key when
 * there is one — and, for generations, the spec's X-Cloud-B-LLM-Request-Type under Vertex's own name
 * (its provisioned-throughput switch).
 */
function authHeaders(endpoint: ProviderEndpoint, target: ProviderTarget): Record<string, string> | Promise<Record<string, string>> {
  const requestType = endpoint.kind === 'generate' ? target.credentials.vertex?.requestType : undefined;
  const withRequestType = (headers: Record<string, string>) => (requestType ? { 'x-vertex-ai-llm-request-type': requestType, ...headers } : headers);
  const serviceAccountJson = target.credentials.vertex?.serviceAccountJson;
  if (!serviceAccountJson) return withRequestType(tokenHeaders(endpoint, target, auth));
  return serviceAccountToken(serviceAccountJson, SERVICE_ACCOUNT_FIELD).then((token) => withRequestType(tokenHeaders(endpoint, target, auth, token)));
}

/** Anthropic's errors say what they are: `{type:"error", …}`. */
const AnthropicErrorShape = z.object({ type: z.literal('error') });

/** Errors come from Google's front end (`{error:{code,status}}`) or, for Claude, from Anthropic (`{type:"error"}`). */
export function mapVertexError(status: number, body: string): ReturnType<ProviderAdapter['mapError']> {
  let isAnthropicShape = false;
  try {
    isAnthropicShape = AnthropicErrorShape.safeParse(JSON.parse(body)).success;
  } catch {
    // Not JSON: the Google mapper keeps the text.
  }
  return isAnthropicShape ? mapMessagesError(status, body) : mapGoogleError(status, body);
}

export const vertexAi: ProviderAdapter = {
  slug: SLUG,
  name: 'Google Vertex AI',
  defaultBaseUrl: 'https://{region}-aiplatform.googleapis.com',
  credentialFields: [
    {
      name: 'token',
      label: 'Access token',
      secret: true,
      required: true,
      placeholder: 'ya29.… (gcloud auth print-access-token; lasts an hour)',
      header: 'Authorization',
      alternative: SERVICE_ACCOUNT_FIELD,
    },
    {
      name: SERVICE_ACCOUNT_FIELD,
      label: 'Service account key (JSON)',
      secret: true,
      required: false,
      placeholder: 'The key file of a service account: access tokens are made and renewed from it',
    },
    { name: 'vertex.projectId', label: 'Project ID', secret: false, required: true, placeholder: 'my-project', header: PROJECT_HEADER },
    { name: 'vertex.region', label: 'Region', secret: false, required: true, placeholder: 'us-central1', header: REGION_HEADER },
    { name: 'vertex.requestType', label: 'LLM request type', secret: false, required: false, placeholder: 'dedicated or shared', header: 'X-Cloud-B-LLM-Request-Type' },
  ],
  checkCredentials: (values) => {
    const serviceAccountJson = values[SERVICE_ACCOUNT_FIELD];
    if (serviceAccountJson) parseServiceAccount(serviceAccountJson, SERVICE_ACCOUNT_FIELD);
  },
  // Claude models speak Messages (with the model in the URL and Vertex's version in the body), the rest Gemini.
  formats: (model) => (isClaudeModel(model) ? ['anthropic-messages'] : ['gemini']),
  modelInBody: false,
  prepareBody: (body, format) => (format === 'anthropic-messages' ? { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...body } : body),
  // Gemini's candidateCount is refused by many models and Claude has none: n separate calls work everywhere.
  supportsN: false,
  url: vertexUrl,
  authHeaders,
  embeddings: { format: () => 'vertex-predict' },
  mapError: (status, body) => mapVertexError(status, body),
};
