// The OpenAI dialects the gateway served first: `/v1/chat/completions` and `/v1/completions`, validated
// against the spec's schema (validate.ts) before anything else happens; errors in the contract's shape.
import { invalidRequest, type GatewayError } from '../../core/errors.js';
import { sseData } from '../sse.js';
import { validateChat, validateCompletion } from '../validate.js';
import { openaiChatDialect } from '../../codecs/openai-chat/index.js';
import { openaiCompletionsDialect } from '../../codecs/openai-completions/index.js';
import type { Ingress } from './types.js';

const contractError = (error: GatewayError): object => error.toBody();
const contractStreamError = (error: GatewayError): string => sseData(JSON.stringify(error.toBody()));

export const openaiChatIngress: Ingress = {
  dialect: 'openai-chat',
  codec: openaiChatDialect,
  readRequest(json) {
    const body = validateChat(json);
    return { model: body.model, stream: body.stream === true, n: body.n ?? 1, body };
  },
  errorBody: contractError,
  streamErrorEvent: contractStreamError,
};

export const openaiCompletionsIngress: Ingress = {
  dialect: 'openai-completions',
  codec: openaiCompletionsDialect,
  readRequest(json) {
    const body = validateCompletion(json);
    return { model: body.model, stream: body.stream === true, n: body.n ?? 1, body };
  },
  errorBody: contractError,
  streamErrorEvent: contractStreamError,
};

/** A JSON object body, or the 400 that says it must be one. */
export function requireObject(json: unknown): Record<string, unknown> {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw invalidRequest('The request body must be a JSON object');
  return json as Record<string, unknown>;
}

/** `model`: a non-empty string, whatever the dialect. */
export function requireModel(body: Record<string, unknown>): string {
  if (typeof body.model !== 'string' || body.model.trim() === '') throw invalidRequest("'model' is required: a non-empty string", 'model');
  return body.model;
}

/** `stream`: absent, null or a boolean. */
export function readStreamFlag(body: Record<string, unknown>): boolean {
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') throw invalidRequest("'stream' must be a boolean", 'stream');
  return body.stream === true;
}
