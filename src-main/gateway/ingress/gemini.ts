// The Gemini API's front door (`@google/genai`, Gemini CLI): `POST /v1beta/models/{model}:generateContent`,
// `:streamGenerateContent` (with `alt=sse`, or without it: one JSON array), `:countTokens`, and the same
// under `/v1/`. The model and the streaming switch come from the path, so a body for a Gemini provider
// goes up byte for byte; errors in Google's `{"error":{"code","message","status"}}` shape.
import { GatewayError, invalidRequest } from '../../core/errors.js';
import { isPlainObject } from '../../core/plain-object.js';
import { geminiDialect, geminiErrorBody, geminiMaxOutputTokens, geminiTokenCount, type GeminiCallRequest } from '../../codecs/gemini/index.js';
import { checkPromptFits } from '../context-window.js';
import { answersAsked, positiveCount } from './openai.js';
import type { GenerationRoute, Ingress, PathRequest } from './types.js';

const streamError = (error: GatewayError): string => `data: ${JSON.stringify(geminiErrorBody(error))}\n\n`;

function requireBody(json: unknown): Record<string, unknown> {
  if (!isPlainObject(json)) throw invalidRequest('The request body must be a JSON object (a GenerateContentRequest)');
  return json;
}

function requireContents(body: Record<string, unknown>, field = 'contents'): void {
  if (!Array.isArray(body.contents) || body.contents.length === 0) throw invalidRequest(`'${field}' is required: a non-empty array of Content objects`, field);
}

/** `generationConfig.candidateCount`: the choices asked for, read lightly (the decoder checks it in full). */
function candidates(body: Record<string, unknown>): number {
  const count = isPlainObject(body.generationConfig) ? body.generationConfig.candidateCount : undefined;
  return typeof count === 'number' && Number.isInteger(count) && count > 1 && count <= 8 ? count : 1;
}

function routed(path: PathRequest | undefined, body: Record<string, unknown>, stream: boolean) {
  if (!path) throw new GatewayError(500, 'api_error', 'A Gemini request reached the gateway without its path');
  const call: GeminiCallRequest = { model: path.model, stream, ...(path.streamFraming ? { streamFraming: path.streamFraming } : {}), body };
  return { model: path.model, stream, n: candidates(body), body: call, ...(stream && path.streamFraming ? { streamFraming: path.streamFraming } : {}) };
}

export const geminiIngress: Ingress = {
  dialect: 'gemini',
  codec: geminiDialect,
  modelFromPath: true,
  readRequest(json, path) {
    const body = requireBody(json);
    requireContents(body);
    return routed(path, body, path?.stream === true);
  },
  errorBody: geminiErrorBody,
  streamErrorEvent: streamError,
  tokenCountBody: geminiTokenCount,
  // `generationConfig.maxOutputTokens` of the call's body (RoutedRequest.body is the path's request around it).
  maxOutputTokens: (call) => positiveCount(geminiMaxOutputTokens(call)),
  // candidateCount is the request's `n` already.
  answersBilled: answersAsked,
  checkWindow(call) {
    return checkPromptFits(call, geminiIngress.maxOutputTokens(call.body));
  },
};

/** `:countTokens`: `{contents}` or a whole `{generateContentRequest}`; never streamed. */
export const geminiCountTokensIngress: Ingress = {
  ...geminiIngress,
  readRequest(json, path) {
    const body = requireBody(json);
    if (isPlainObject(body.generateContentRequest)) requireContents(body.generateContentRequest, 'generateContentRequest.contents');
    else requireContents(body);
    return routed(path, body, false);
  },
};

/** The Gemini methods on a model, as the path names them. */
const MODEL_METHOD = /^\/(?:v1beta|v1)\/models\/(.+):([A-Za-z]+)$/;
/** `GET /v1beta/models/{model}`: one model of the list. */
const MODEL_PATH = /^\/(?:v1beta|v1)\/models\/([^:]+)$/;

/** What a Gemini path asks for, or undefined when it is no Gemini path. */
export type GeminiPath =
  | { kind: 'generation'; route: GenerationRoute }
  | { kind: 'embedding'; method: 'embedContent' | 'batchEmbedContents'; model: string }
  | { kind: 'unknown-method'; method: string }
  | { kind: 'model-list' }
  | { kind: 'model'; model: string };

function pathModel(raw: string): string {
  let model: string;
  try {
    model = decodeURIComponent(raw);
  } catch {
    throw invalidRequest('The model in the path is not valid percent-encoding', 'model');
  }
  if (model.trim() === '') throw invalidRequest('The path names no model: /v1beta/models/{model}:generateContent', 'model');
  return model;
}

/**
 * Reads a Gemini path: `/v1beta/models/{model}:{method}` (and `/v1/…`), `/v1beta/models`, `/v1beta/models/{model}`.
 * `/v1/models` alone is not read here: it is OpenAI's list unless the key came Gemini's way (server.ts).
 */
export function readGeminiPath(path: string, search: URLSearchParams): GeminiPath | undefined {
  if (path === '/v1beta/models') return { kind: 'model-list' };
  const method = MODEL_METHOD.exec(path);
  if (method) {
    const name = method[2];
    const model = pathModel(method[1]);
    const sse = search.get('alt') === 'sse';
    switch (name) {
      case 'generateContent':
        return { kind: 'generation', route: { ingress: geminiIngress, operation: 'generate', path: { model, stream: false } } };
      case 'streamGenerateContent':
        return { kind: 'generation', route: { ingress: geminiIngress, operation: 'generate', path: { model, stream: true, ...(sse ? {} : { streamFraming: 'json-array' as const }) } } };
      case 'countTokens':
        return { kind: 'generation', route: { ingress: geminiCountTokensIngress, operation: 'count_tokens', path: { model, stream: false } } };
      case 'embedContent':
      case 'batchEmbedContents':
        return { kind: 'embedding', method: name, model };
      default:
        return { kind: 'unknown-method', method: name };
    }
  }
  const one = MODEL_PATH.exec(path);
  if (one) return { kind: 'model', model: pathModel(one[1]) };
  return undefined;
}
