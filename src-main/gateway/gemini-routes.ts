// The Gemini paths at the front door, answered in Google's error shape: generations (the ingress reads the
// model from the path), the model list and one model of it, and the embedding methods (the embeddings core
// of `POST /v1/embeddings`, read and written in Gemini's shape). `GET /v1/models` comes here when the key was
// sent Gemini's way.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError, errorBody } from '../core/errors.js';
import { sendJson } from '../core/http-io.js';
import { geminiErrorBody } from '../codecs/gemini/index.js';
import { PATH_MODEL_DIALECTS } from './ingress/registry.js';
import type { GeminiPath } from './ingress/gemini.js';
import { handleProxy, type ProxyDependencies } from './proxy.js';
import { geminiEmbeddingsIngress } from './embeddings/embeddings-ingress.js';

/** Paths only Gemini's clients send (`/v1/models/{model}` too: OpenAI's spelling of one model is read there as well). */
export function mayBeGeminiPath(path: string): boolean {
  return path.startsWith('/v1beta/') || path === '/v1beta' || path.startsWith('/v1/models/');
}

/** A key sent as Gemini's clients send it: `x-goog-api-key`, or `?key=` in the URL. */
export function isGeminiKeyed(req: IncomingMessage, url: URL): boolean {
  return req.headers['x-goog-api-key'] !== undefined || url.searchParams.has('key');
}

function sendGeminiError(res: ServerResponse, error: GatewayError, headers?: Record<string, string>): void {
  sendJson(res, error.status, geminiErrorBody(error), headers);
}

/**
 * Answers a Gemini path (one under `/v1/` that is none gets the server's usual 404). `refusal`: the request
 * was refused before anything was read (a browser's), answered in Gemini's shape.
 */
export function routeGeminiPath(req: IncomingMessage, res: ServerResponse, path: string, url: URL, options: ProxyDependencies, refusal?: GatewayError): Promise<void> | void {
  if (refusal) return sendGeminiError(res, refusal);
  let read: GeminiPath | undefined;
  try {
    read = path === '/v1/models' ? { kind: 'model-list' } : PATH_MODEL_DIALECTS[0].readPath(path, url.searchParams);
  } catch (error) {
    return sendGeminiError(res, error as GatewayError);
  }
  if (!read) {
    const message = `Unknown path: ${req.method} ${path}`;
    return path.startsWith('/v1beta') ? sendGeminiError(res, new GatewayError(404, 'not_found_error', message)) : sendJson(res, 404, errorBody('not_found_error', message));
  }
  // `?key=` is Gatehouse's key: read as the key headers are, never sent on (the provider URL is built anew).
  const queryKey = url.searchParams.get('key') ?? undefined;
  const method = (allowed: string): boolean => {
    if (req.method === allowed) return true;
    sendGeminiError(res, new GatewayError(405, 'invalid_request_error', `Use ${allowed} for ${path}`), { allow: allowed });
    return false;
  };
  switch (read.kind) {
    case 'generation':
      if (!method('POST')) return;
      return handleProxy(req, res, read.route, path, options, queryKey);
    case 'embedding':
      if (!method('POST')) return;
      return handleProxy(req, res, { embeddings: geminiEmbeddingsIngress(read.model, read.method) }, path, options, queryKey);
    case 'unknown-method':
      return sendGeminiError(res, new GatewayError(404, 'not_found_error', `Gatehouse serves generateContent, streamGenerateContent and countTokens on a Gemini model, not ':${read.method}'`));
    case 'model-list':
    case 'model': {
      if (!method('GET')) return;
      // `/v1/models/{id}` with a key sent OpenAI's way is OpenAI's "retrieve model".
      const shape = path.startsWith('/v1beta') || isGeminiKeyed(req, url) ? 'gemini' : 'openai';
      return handleProxy(req, res, { modelList: { shape, ...(read.kind === 'model' ? { model: read.model } : {}) } }, path, options, queryKey);
    }
  }
}
