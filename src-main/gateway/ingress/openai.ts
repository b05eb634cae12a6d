// The OpenAI dialects the gateway served first: `/v1/chat/completions` and `/v1/completions`, validated
// against the spec's schema (validate.ts) before anything else happens; errors in the contract's shape.
import { invalidRequest, type GatewayError } from '../../core/errors.js';
import { sseData } from '../sse.js';
import { validateChat, validateCompletion, type CompletionRequest } from '../validate.js';
import { COMPLETION_BOUNDS } from '../../core/spec-bounds.js';
import { checkContextWindow, checkPromptFits } from '../context-window.js';
import { openaiChatDialect } from '../../codecs/openai-chat/index.js';
import { openaiCompletionsDialect } from '../../codecs/openai-completions/index.js';
import type { Ingress } from './types.js';

const contractError = (error: GatewayError): object => error.toBody();
const contractStreamError = (error: GatewayError): string => sseData(JSON.stringify(error.toBody()));

/** A body's field as a count of tokens: a positive finite number, else undefined. */
export function positiveCount(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : undefined;
}

/** A body's field read without knowing the body is an object. */
export const fieldOf = (body: unknown, name: string): unknown => (typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined);

/** One answer per `n`: every dialect but Completions. */
export const answersAsked = (_body: unknown, n: number): number => n;

export const openaiChatIngress: Ingress = {
  dialect: 'openai-chat',
  codec: openaiChatDialect,
  readRequest(json) {
    const body = validateChat(json);
    return { model: body.model, stream: body.stream === true, n: body.n ?? 1, body };
  },
  errorBody: contractError,
  streamErrorEvent: contractStreamError,
  maxOutputTokens: (body) => positiveCount(fieldOf(body, 'max_completion_tokens')) ?? positiveCount(fieldOf(body, 'max_tokens')),
  answersBilled: answersAsked,
  checkWindow(call) {
    return checkPromptFits(call, openaiChatIngress.maxOutputTokens(call.body));
  },
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
  // Completions' own default when the body names none: a call may write that much.
  maxOutputTokens: (body) => positiveCount(fieldOf(body, 'max_tokens')) ?? COMPLETION_BOUNDS.max_tokens.default,
  // `best_of` answers are generated and billed, one returned.
  answersBilled: (body, n) => Math.max(n, positiveCount(fieldOf(body, 'best_of')) ?? 1),
  // Each prompt against the window, OpenAI's own completion models counted exactly.
  checkWindow: (call) => checkContextWindow(call.provider, call.model, call.body as CompletionRequest),
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
