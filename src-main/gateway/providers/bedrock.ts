// Amazon Bedrock ("Cloud C") through the Converse API: OpenAI requests become Converse requests,
// SigV4-signed from the Cloud C credentials (or sent with a Bedrock API key as a bearer token); answers,
// binary event streams and errors come back in OpenAI's shape.
import { randomUUID } from 'node:crypto';
import type { Sha256 } from '@aws-crypto/sha256-js';
import type { SignatureV4 } from '@smithy/signature-v4';
import { GatewayError, errorTypeForStatus, invalidRequest, unsupportedField, type ErrorType } from '../errors.js';
import { COMPLETION_BOUNDS } from '../spec-bounds.js';
import type { ChatRequest } from '../validate.js';
import { conversationOf, includeUsage, refuseUnsupportedFields, requireUserFirst, stopSequences, type Conversation } from './conversation.js';
import { joinUrl } from './openai-compatible.js';
import {
  asNumber,
  asRecord,
  asString,
  buildAnswer,
  buildChunk,
  buildUsageChunk,
  nowInSeconds,
  usageOf,
  type AnswerIdentity,
  type FinishReason,
  type OpenAIUsage,
} from './openai-shape.js';
import type { CredentialField, MappedProviderError, ProviderAdapter, ProviderCall, StreamTranslator, UpstreamEvent, UpstreamRequest } from './types.js';
import { ProviderStreamError } from './types.js';

const SLUG = 'bedrock';

export const BEDROCK_HEADERS = {
  accessKeyId: 'x-gateway-cloud-c-access-key-id',
  secretAccessKey: 'x-gateway-cloud-c-secret-access-key',
  sessionToken: 'x-gateway-cloud-c-session-token',
  region: 'x-gateway-cloud-c-region',
} as const;

// The secret access key is the first secret field: a virtual key's bare "secret" fills it.
const credentialFields: readonly CredentialField[] = [
  { name: 'bedrock.secretAccessKey', label: 'Secret access key', secret: true, required: true, header: BEDROCK_HEADERS.secretAccessKey },
  { name: 'bedrock.accessKeyId', label: 'Access key ID', secret: false, required: true, header: BEDROCK_HEADERS.accessKeyId, placeholder: 'AKIA…' },
  { name: 'bedrock.region', label: 'Region', secret: false, required: true, header: BEDROCK_HEADERS.region, placeholder: 'us-east-1' },
  { name: 'bedrock.sessionToken', label: 'Session token', secret: true, required: false, header: BEDROCK_HEADERS.sessionToken },
];

/** Request fields Converse has a place for beyond those every chat-only adapter maps. */
const BEDROCK_FIELDS: ReadonlySet<string> = new Set(['user', 'top_k']);

/** Converse's `requestMetadata` values must match this (Bedrock runtime model, RequestMetadataValueString). */
const REQUEST_METADATA_VALUE = /^[a-zA-Z0-9\s:_@$#=/+,.-]{0,256}$/;
const REGION = /^[a-z0-9-]{1,32}$/;

function missingSetting(header: string, what: string): GatewayError {
  return new GatewayError(400, 'invalid_request_error', `Provider '${SLUG}' needs the ${what}: send '${header}' or use a virtual key that stores it`, header, 'missing_provider_setting', SLUG);
}

/**
 * A model id is one path segment: `:` (versioned ids), `/` (ARNs) and the characters encodeURIComponent
 * leaves alone are escaped, as the AWS SDKs do for path labels.
 */
export function encodeModelId(modelId: string): string {
  return encodeURIComponent(modelId).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

function regionOf(call: ProviderCall, required: boolean): string | undefined {
  const region = call.credentials.bedrock?.region;
  if (!region) {
    if (required) throw missingSetting(BEDROCK_HEADERS.region, 'AWS region');
    return undefined;
  }
  if (!REGION.test(region)) throw invalidRequest(`'${BEDROCK_HEADERS.region}' must be an AWS region such as us-east-1`, BEDROCK_HEADERS.region);
  return region;
}

export function bedrockUrl(call: ProviderCall): string {
  const base = call.customHost ?? `https://bedrock-runtime.${regionOf(call, true)}.amazonaws.com`;
  return joinUrl(base, `/model/${encodeModelId(call.body.model)}/${call.stream ? 'converse-stream' : 'converse'}`);
}

interface ConverseMessage {
  role: 'user' | 'assistant';
  content: { text: string }[];
}

/** Converse wants non-empty content in every message; consecutive turns of one role become one message. */
function converseMessages(conversation: Conversation): ConverseMessage[] {
  const messages: ConverseMessage[] = [];
  for (const turn of conversation.turns) {
    if (turn.parts.length === 0) continue;
    const blocks = turn.parts.map((text) => ({ text }));
    const previous = messages.at(-1);
    if (previous?.role === turn.role) previous.content.push(...blocks);
    else messages.push({ role: turn.role, content: blocks });
  }
  return messages;
}

/** The Converse request body for one call (`n` is 1 here: the core fans out). */
export function converseRequest(call: ProviderCall): Record<string, unknown> {
  const body = call.body;
  refuseUnsupportedFields(body, SLUG, BEDROCK_FIELDS);
  const conversation = conversationOf(call, SLUG);
  // Converse wants a user message first; blank text and empty messages never reach it (conversation.ts).
  requireUserFirst(conversation.turns, SLUG);
  const request: Record<string, unknown> = { messages: converseMessages(conversation) };
  if (conversation.system.length) request.system = conversation.system.map((text) => ({ text }));

  // A legacy completion without max_tokens means 16 (OpenAI's default); chat has no limit of its own,
  // so Converse's model default applies.
  const maxTokens = call.endpoint === 'chat' ? ((body as ChatRequest).max_completion_tokens ?? body.max_tokens) : (body.max_tokens ?? COMPLETION_BOUNDS.max_tokens.default);
  const inferenceConfig: Record<string, unknown> = {};
  if (maxTokens != null) inferenceConfig.maxTokens = maxTokens;
  if (body.temperature != null) inferenceConfig.temperature = body.temperature;
  if (body.top_p != null) inferenceConfig.topP = body.top_p;
  const stop = stopSequences(body.stop);
  if (stop?.length) inferenceConfig.stopSequences = stop;
  if (Object.keys(inferenceConfig).length) request.inferenceConfig = inferenceConfig;

  // Model-specific parameters travel in additionalModelRequestFields (Claude and Mistral take top_k; other
  // models answer with their own ValidationException, which is relayed).
  const topK = (body as Record<string, unknown>).top_k;
  if (topK != null) {
    if (typeof topK !== 'number' || !Number.isInteger(topK) || topK < 0) throw invalidRequest("'top_k' must be a non-negative integer", 'top_k');
    request.additionalModelRequestFields = { top_k: topK };
  }
  if (body.user !== undefined) {
    if (!REQUEST_METADATA_VALUE.test(body.user)) {
      throw unsupportedField('user', SLUG, "with characters outside Bedrock's request metadata pattern (letters, digits, spaces and :_@$#=/+,.- ; at most 256) is not supported");
    }
    request.requestMetadata = { user: body.user };
  }
  return request;
}

interface SigningCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** SigV4 keys when the call has them; a half-given pair is a mistake worth naming. */
function signingCredentials(call: ProviderCall): SigningCredentials | undefined {
  const { accessKeyId, secretAccessKey, sessionToken } = call.credentials.bedrock ?? {};
  if (!accessKeyId && !secretAccessKey) return undefined;
  if (!accessKeyId) throw missingSetting(BEDROCK_HEADERS.accessKeyId, 'AWS access key ID that goes with the secret access key');
  if (!secretAccessKey) throw missingSetting(BEDROCK_HEADERS.secretAccessKey, 'AWS secret access key that goes with the access key ID');
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}) };
}

function queryOf(url: URL): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key);
    query[key] = values.length === 1 ? values[0] : values;
  }
  return query;
}

interface AwsSigning {
  SignatureV4: typeof SignatureV4;
  Sha256: typeof Sha256;
}

let awsSigning: Promise<AwsSigning> | undefined;

/** The AWS signer is loaded with the first Bedrock call: with the event-stream codec, ~6 MB of RSS that users of other providers never pay for. */
function loadAwsSigning(): Promise<AwsSigning> {
  awsSigning ??= Promise.all([import('@smithy/signature-v4'), import('@aws-crypto/sha256-js')]).then(([signer, hash]) => ({
    SignatureV4: signer.SignatureV4,
    Sha256: hash.Sha256,
  }));
  return awsSigning;
}

/**
 * Signs what is actually sent: this URL's host (a custom host included), path and query, and the exact
 * body bytes. The Smithy signer escapes the already-encoded path again, as SigV4 wants for every service
 * but S3 — so a model id's `%3A` is signed as `%253A`.
 */
async function signedHeaders(url: URL, body: Buffer, region: string, credentials: SigningCredentials, accept: string): Promise<Record<string, string>> {
  const aws = await loadAwsSigning();
  const signer = new aws.SignatureV4({ service: 'bedrock', region, credentials, sha256: aws.Sha256 });
  const signed = await signer.sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: url.pathname,
    query: queryOf(url),
    headers: { host: url.host, 'content-type': 'application/json', accept },
    body,
  });
  return signed.headers;
}

async function buildRequest(call: ProviderCall): Promise<UpstreamRequest> {
  const body = Buffer.from(JSON.stringify(converseRequest(call)), 'utf8');
  const url = new URL(bedrockUrl(call));
  const accept = call.stream ? 'application/vnd.amazon.eventstream' : 'application/json';
  const credentials = signingCredentials(call);
  let headers: Record<string, string>;
  if (credentials) {
    headers = await signedHeaders(url, body, regionOf(call, true)!, credentials, accept);
  } else if (call.credentials.token) {
    // A Bedrock API key; any other bearer token cannot stand in for SigV4.
    headers = { 'content-type': 'application/json', accept, authorization: `Bearer ${call.credentials.token}` };
  } else {
    throw new GatewayError(
      401,
      'authentication_error',
      `Provider '${SLUG}' needs AWS credentials: send '${BEDROCK_HEADERS.accessKeyId}' and '${BEDROCK_HEADERS.secretAccessKey}' (and '${BEDROCK_HEADERS.region}'), a Bedrock API key as 'Authorization: Bearer', or use a virtual key`,
      null,
      null,
      SLUG,
    );
  }
  // Forwarded headers go along unsigned (SigV4 allows that); ours win over any of the same name.
  return { url: url.toString(), method: 'POST', headers: { ...call.forwardHeaders, ...headers }, body };
}

/** Converse stop reasons → OpenAI finish reasons (tool calls only exist for chat). */
export function mapStopReason(stopReason: string | undefined, endpoint: ProviderCall['endpoint']): FinishReason {
  switch (stopReason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'guardrail_intervened':
    case 'content_filtered':
      return 'content_filter';
    case 'tool_use':
      return endpoint === 'chat' ? 'tool_calls' : 'stop';
    default:
      // end_turn, stop_sequence, and reasons added later.
      return 'stop';
  }
}

/** Cached prompt tokens are reported apart from `inputTokens`; OpenAI counts them in `prompt_tokens`. */
export function mapUsage(usage: unknown): OpenAIUsage {
  const figures = asRecord(usage);
  const cacheRead = asNumber(figures.cacheReadInputTokens);
  const promptTokens = asNumber(figures.inputTokens) + cacheRead + asNumber(figures.cacheWriteInputTokens);
  return usageOf(promptTokens, asNumber(figures.outputTokens), cacheRead);
}

function answerIdentity(call: ProviderCall): AnswerIdentity {
  return { id: `${call.endpoint === 'chat' ? 'chatcmpl' : 'cmpl'}-${randomUUID()}`, created: nowInSeconds(), model: call.body.model };
}

function mapResponse(call: ProviderCall, json: unknown): object {
  const answer = asRecord(json);
  const content = asRecord(asRecord(answer.output).message).content;
  const text = (Array.isArray(content) ? content : []).map((block) => asString(asRecord(block).text) ?? '').join('');
  return buildAnswer(call.endpoint, answerIdentity(call), text, mapStopReason(asString(answer.stopReason), call.endpoint), mapUsage(answer.usage));
}

const EXCEPTION_TYPES: Readonly<Record<string, ErrorType>> = {
  validationException: 'invalid_request_error',
  throttlingException: 'rate_limit_error',
  serviceUnavailableException: 'api_error',
  internalServerException: 'api_error',
  modelStreamErrorException: 'api_error',
};

function payloadJson(payload: Uint8Array): Record<string, unknown> {
  if (payload.length === 0) return {};
  try {
    return asRecord(JSON.parse(Buffer.from(payload).toString('utf8')));
  } catch {
    throw new ProviderStreamError(`Provider '${SLUG}' sent a stream event that is not JSON`, 'gateway_error', 'bad_provider_response');
  }
}

function createStreamTranslator(call: ProviderCall): StreamTranslator {
  const identity = answerIdentity(call);
  const withUsage = includeUsage(call);
  let hasSentRole = false;
  const chunk = (text: string | undefined, finishReason: FinishReason | null = null): object => {
    const withRole = call.endpoint === 'chat' && !hasSentRole;
    hasSentRole = true;
    return buildChunk(call.endpoint, identity, { text, withRole, finishReason }, withUsage);
  };
  return {
    framing: 'aws-eventstream',
    onEvent(event: UpstreamEvent): object[] {
      if (event.kind !== 'frame') return [];
      const messageType = event.headers[':message-type'];
      if (messageType === 'exception') {
        const exceptionType = String(event.headers[':exception-type'] ?? 'exception');
        const details = payloadJson(event.payload);
        const message = asString(details.message) ?? asString(details.Message) ?? `Bedrock stream failed (${exceptionType})`;
        throw new ProviderStreamError(message, EXCEPTION_TYPES[exceptionType] ?? 'api_error', exceptionType);
      }
      if (messageType === 'error') {
        const code = String(event.headers[':error-code'] ?? 'error');
        throw new ProviderStreamError(String(event.headers[':error-message'] ?? `Bedrock stream failed (${code})`), 'api_error', code);
      }
      // Payloads may carry a padding field `p`; only the named fields are read.
      const payload = payloadJson(event.payload);
      switch (event.headers[':event-type']) {
        case 'messageStart':
          return call.endpoint === 'chat' ? [chunk('')] : [];
        case 'contentBlockDelta': {
          const text = asString(asRecord(payload.delta).text);
          return text === undefined ? [] : [chunk(text)];
        }
        case 'messageStop':
          return [chunk(call.endpoint === 'chat' ? undefined : '', mapStopReason(asString(payload.stopReason), call.endpoint))];
        case 'metadata':
          return withUsage ? [buildUsageChunk(call.endpoint, identity, mapUsage(payload.usage))] : [];
        default:
          // contentBlockStart / contentBlockStop and event types added later carry no text.
          return [];
      }
    },
    onEnd: () => [],
  };
}

function headerValue(headers: Record<string, string | string[] | undefined>, name: string): string | undefined {
  const value = headers[name] ?? headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** The AWS error name, from `x-amzn-errortype` (`ValidationException:http://internal…`) or the body's `__type`. */
function awsErrorType(headers: Record<string, string | string[] | undefined>, body: Record<string, unknown>): string | undefined {
  const raw = headerValue(headers, 'x-amzn-errortype') ?? asString(body.__type);
  if (!raw) return undefined;
  const name = raw.split(':')[0];
  return name.includes('#') ? name.slice(name.lastIndexOf('#') + 1) : name;
}

const AUTHENTICATION_ERRORS = new Set(['UnrecognizedClientException', 'InvalidSignatureException', 'MissingAuthenticationTokenException', 'ExpiredTokenException', 'IncompleteSignatureException']);

export function mapBedrockError(status: number, text: string, headers: Record<string, string | string[] | undefined>): MappedProviderError {
  let body: Record<string, unknown> = {};
  try {
    body = asRecord(JSON.parse(text));
  } catch {
    // Not JSON (a proxy's page, say): its text is the message.
  }
  const errorType = awsErrorType(headers, body);
  const message = asString(body.message) ?? asString(body.Message) ?? (text.trim().slice(0, 2000) || `Bedrock answered with status ${status}`);
  const type = errorType && AUTHENTICATION_ERRORS.has(errorType) ? 'authentication_error' : errorTypeForStatus(status);
  return { message, type, code: errorType ?? null, param: null };
}

export const bedrock: ProviderAdapter = {
  slug: SLUG,
  name: 'Amazon Bedrock',
  defaultBaseUrl: 'https://bedrock-runtime.{region}.amazonaws.com',
  credentialFields,
  relay: 'translate',
  // Converse generates one answer per call; the core makes n calls.
  supportsN: false,
  buildRequest,
  mapResponse,
  createStreamTranslator,
  mapError: mapBedrockError,
};
