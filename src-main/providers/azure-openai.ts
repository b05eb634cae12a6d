// Azure OpenAI ("Cloud A"): OpenAI's format behind a resource/deployment URL with `api-version`.
// The client's body goes up byte for byte (a seed beyond 2^53 must arrive exact); answers come back
// through a light translator, because Azure streams chunks no OpenAI client expects: a leading chunk
// whose `choices` is `[]` (prompt filter results) and choice entries that only carry filter annotations.
import { z } from 'zod';
import { GatewayError, invalidRequest } from '../core/errors.js';
import { optional, optionalText } from './json-fields.js';
import { joinUrl, mapOpenAIStyleError, openAIStyleError } from './openai-compatible.js';
import { refuseDotSegments } from './model-path.js';
import { bearerHeaders, noSuchEndpoint, tokenHeaders, type TokenAuth } from './provider-request.js';
import type { CredentialField, MappedProviderError, ProviderAdapter, ProviderCall, AnswerQuirk, UpstreamEvent, ProviderEndpoint, ProviderTarget } from './types.js';
import { ProviderStreamError } from '../core/provider-stream-error.js';

const SLUG = 'azure-openai';

export const AZURE_HEADERS = {
  resourceName: 'x-gateway-cloud-a-resource-name',
  deploymentId: 'x-gateway-cloud-a-deployment-id',
  apiVersion: 'x-gateway-cloud-a-api-version',
  modelName: 'x-gateway-cloud-a-model-name',
} as const;

const credentialFields: readonly CredentialField[] = [
  { name: 'token', label: 'API key', secret: true, required: true, header: 'Authorization', placeholder: 'resource key or Entra ID token' },
  // Not required: a custom host replaces the resource's own address.
  { name: 'azure.resourceName', label: 'Resource name', secret: false, required: false, header: AZURE_HEADERS.resourceName, placeholder: 'my-resource' },
  { name: 'azure.deploymentId', label: 'Deployment', secret: false, required: true, header: AZURE_HEADERS.deploymentId, placeholder: 'gpt-35-turbo-instruct' },
  { name: 'azure.apiVersion', label: 'API version', secret: false, required: true, header: AZURE_HEADERS.apiVersion, placeholder: '2024-10-21' },
  { name: 'azure.modelName', label: 'Model name', secret: false, required: false, header: AZURE_HEADERS.modelName },
];

/** An Entra ID access token is a JWT: three base64url parts, the header starting `{"` (`eyJ`). */
export function isEntraToken(token: string): boolean {
  return /^eyJ[A-Za-z0-9_-]*\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(token);
}

/** A resource name becomes a host name label; anything else could point the key at another host. */
const RESOURCE_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,62})$/;

function requireSetting(value: string | undefined, header: string, what: string): string {
  if (!value) throw new GatewayError(400, 'invalid_request_error', `Provider '${SLUG}' needs the ${what}: send '${header}' or use a virtual key that stores it`, header, 'missing_provider_setting', SLUG);
  return value;
}

/** The deployment's path for each endpoint Azure has: its generations and its embeddings. */
function deploymentPath(endpoint: ProviderEndpoint): string {
  if (endpoint.kind === 'embeddings') return 'embeddings';
  if (endpoint.kind !== 'generate') throw noSuchEndpoint(SLUG, endpoint);
  return endpoint.call.format === 'openai-completions' ? 'completions' : 'chat/completions';
}

function azureUrl(endpoint: ProviderEndpoint, target: ProviderTarget): string {
  const azure = target.credentials.azure ?? {};
  const deployment = requireSetting(azure.deploymentId, AZURE_HEADERS.deploymentId, 'deployment name');
  const apiVersion = requireSetting(azure.apiVersion, AZURE_HEADERS.apiVersion, 'API version');
  let base = target.customHost;
  if (!base) {
    const resource = requireSetting(azure.resourceName, AZURE_HEADERS.resourceName, 'resource name');
    if (!RESOURCE_NAME.test(resource)) throw invalidRequest(`'${AZURE_HEADERS.resourceName}' must be an Azure resource name (letters, digits and hyphens)`, AZURE_HEADERS.resourceName);
    base = `https://${resource}.openai.azure.com/openai`;
  }
  const path = `/deployments/${encodeURIComponent(refuseDotSegments(deployment, AZURE_HEADERS.deploymentId))}/${deploymentPath(endpoint)}`;
  const url = new URL(joinUrl(base, path));
  url.searchParams.set('api-version', apiVersion);
  return url.toString();
}

const auth: TokenAuth = {
  provider: SLUG,
  // An Entra ID token stays a bearer; a resource key goes in `api-key`.
  headers: (token) => (isEntraToken(token) ? bearerHeaders(token) : { 'api-key': token }),
  // A key the client forwards itself (x-gateway-forward-headers: api-key) or a keyless custom host still works.
  forwardedAs: 'api-key',
  how: "a key: send 'Authorization: Bearer <Azure key or Entra ID token>'",
};

/**
 * A choice, as far as the quirk reads it: text (completions) or a delta (chat), and whether it finishes.
 * Everything else (filter results, logprobs, index) is kept as Azure sent it.
 */
const AzureChoice = z.looseObject({
  text: optional(z.string()),
  delta: optional(z.looseObject({})),
  finish_reason: z.unknown().optional(),
});
type AzureChoice = z.infer<typeof AzureChoice>;

/** A chunk or a whole answer: the fields Azure may leave blank, its choices, and the include_usage / error parts. */
const AzureAnswer = z.looseObject({
  model: optional(z.string()),
  object: optional(z.string()),
  choices: z.array(AzureChoice).catch([]),
  usage: z.looseObject({}).nullish().catch(undefined),
  error: z.unknown().optional(),
});
type AzureAnswer = z.infer<typeof AzureAnswer>;

/** The model to report when Azure leaves it blank: the configured model name, else what the client asked for. */
function fallbackModel(call: ProviderCall): string {
  return call.credentials.azure?.modelName ?? call.model;
}

/**
 * A stream choice worth sending: it carries text (completions) or a delta (chat), or it finishes.
 * Entries that only hold `content_filter_results` / offsets are annotations and are dropped.
 */
function normaliseStreamChoice(choice: AzureChoice, endpoint: 'chat' | 'completions'): AzureChoice | null {
  const finishes = choice.finish_reason !== null && choice.finish_reason !== undefined;
  if (endpoint === 'chat') {
    if (choice.delta) return choice;
    return finishes ? { ...choice, delta: {} } : null;
  }
  if (choice.text !== undefined) return choice;
  return finishes ? { ...choice, text: '' } : null;
}

/** Fills in what Azure leaves blank, in the answer zod has just made (a copy of what came). */
function fillIn(answer: AzureAnswer, call: ProviderCall, objectName: string): AzureAnswer {
  if (!answer.model) answer.model = fallbackModel(call);
  if (!answer.object) answer.object = objectName;
  return answer;
}

/** Azure's answers in OpenAI's shape: blank models and object names filled in, filter annotations dropped from streams. */
function answerQuirk(call: ProviderCall): AnswerQuirk {
  const endpoint = call.format === 'openai-completions' ? 'completions' : 'chat';
  return {
    // Whole answers are OpenAI's shape already; filter results stay, since clients may want them.
    answer(json: unknown): object {
      const answer = AzureAnswer.safeParse(json);
      if (!answer.success) throw new GatewayError(502, 'gateway_error', `Provider '${SLUG}' answered with JSON that is not an object`, null, 'bad_provider_response', SLUG);
      return fillIn(answer.data, call, endpoint === 'chat' ? 'chat.completion' : 'text_completion');
    },
    onEvent(event: UpstreamEvent): object[] {
      if (event.kind !== 'sse') return [];
      const data = event.data.trim();
      // The relay writes its own `data: [DONE]` after the last chunk.
      if (data === '' || data === '[DONE]') return [];
      let json: unknown;
      try {
        json = JSON.parse(data);
      } catch {
        throw new ProviderStreamError(`Provider '${SLUG}' sent a stream event that is not JSON`, 'gateway_error', 'bad_provider_response');
      }
      const read = AzureAnswer.safeParse(json);
      if (!read.success) return [];
      const chunk = read.data;
      if (chunk.error !== null && typeof chunk.error === 'object' && !Array.isArray(chunk.error)) {
        const mapped = openAIStyleError(500, chunk);
        throw new ProviderStreamError(mapped.message, mapped.type, mapped.code === null ? null : String(mapped.code));
      }
      const kept: AzureChoice[] = [];
      for (const choice of chunk.choices) {
        const normalised = normaliseStreamChoice(choice, endpoint);
        if (normalised) kept.push(normalised);
      }
      // A chunk with nothing left is a filter annotation — unless it is the include_usage chunk.
      if (kept.length === 0 && !chunk.usage) return [];
      chunk.choices = kept;
      return [fillIn(chunk, call, endpoint === 'chat' ? 'chat.completion.chunk' : 'text_completion')];
    },
  };
}

/** A category of Azure's content filter that fired: `{filtered: true, severity?}`. */
const FiredCategory = z.object({ filtered: z.literal(true), severity: optionalText });
/** A content-filter refusal: `innererror.content_filter_result` names each category. */
const ContentFilterRefusal = z.object({ error: z.object({ innererror: z.object({ content_filter_result: z.record(z.string(), z.unknown()) }) }) });

/** Which filter categories blocked the prompt, from `innererror.content_filter_result`. */
function filteredCategories(body: string): string[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return [];
  }
  const refusal = ContentFilterRefusal.safeParse(parsed);
  if (!refusal.success) return [];
  const fired: string[] = [];
  for (const [name, category] of Object.entries(refusal.data.error.innererror.content_filter_result)) {
    const read = FiredCategory.safeParse(category);
    if (read.success) fired.push(read.data.severity ? `${name} (${read.data.severity})` : name);
  }
  return fired;
}

/** OpenAI's error shape plus Azure's `innererror`; a content-filter 400 also says which categories fired. */
export function mapAzureError(status: number, body: string): MappedProviderError {
  const mapped = mapOpenAIStyleError(status, body);
  const categories = mapped.code === 'content_filter' ? filteredCategories(body) : [];
  return categories.length ? { ...mapped, message: `${mapped.message} (filtered: ${categories.join(', ')})` } : mapped;
}

export const azureOpenAI: ProviderAdapter = {
  slug: SLUG,
  name: 'Azure OpenAI',
  defaultBaseUrl: 'https://{resource}.openai.azure.com/openai',
  credentialFields,
  formats: () => ['openai-chat', 'openai-completions'],
  modelInBody: true,
  // A deployment is named by its owner ("prod-chat"); the model name stored with it is what it serves.
  pricedModel: (credentials, model) => credentials.azure?.modelName || model,
  // Azure generates n choices itself (same API as OpenAI).
  supportsN: true,
  // Unchanged bytes: Azure ignores `model` (the deployment decides) and takes OpenAI's fields as they are.
  url: azureUrl,
  authHeaders: (endpoint, target) => tokenHeaders(endpoint, target, auth),
  answerQuirk,
  // An embeddings deployment, with the same settings: its bytes go up as they came.
  embeddings: { format: () => 'openai-embeddings' },
  mapError: (status, body) => mapAzureError(status, body),
};
