// Calls the gateway from the Playground exactly as an outside client would, and reports each
// token as it arrives together with the raw wire text for the request/response viewer.
import { apiErrorFromBody, ApiError } from './api-error';
import { readServerSentEvents } from './sse';

/** The paths the Playground sends to; `/v1beta/models` stands for Gemini's, which name the model (playground/gemini.ts). */
export type GatewayEndpoint = '/v1/completions' | '/v1/chat/completions' | '/v1/messages' | '/v1/responses' | '/v1beta/models';

export type GatewayAuth =
  /** A stored virtual key named by its id: the admin API runs it, so no key is sent from the page. */
  | { kind: 'key-by-name'; keyId: string }
  | { kind: 'virtual-key'; virtualKey: string }
  | { kind: 'provider'; provider: string; providerToken: string; customHost: string; gatewayApiKey: string };

export function buildGatewayHeaders(auth: GatewayAuth): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (auth.kind === 'key-by-name') return headers;
  if (auth.kind === 'virtual-key') {
    headers['x-gateway-api-key'] = auth.virtualKey.trim();
    return headers;
  }
  if (auth.gatewayApiKey.trim()) headers['x-gateway-api-key'] = auth.gatewayApiKey.trim();
  // No provider: the model name is a route's, and the route's keys bring provider, credentials and host.
  if (!auth.provider) return headers;
  headers['x-gateway-provider'] = auth.provider;
  if (auth.providerToken.trim()) headers.authorization = `Bearer ${auth.providerToken.trim()}`;
  if (auth.customHost.trim()) headers['x-gateway-custom-host'] = auth.customHost.trim();
  return headers;
}

const SECRET_HEADERS = new Set(['x-gateway-api-key', 'authorization', 'x-api-key', 'x-goog-api-key']);

/** The headers as the viewer shows them: secrets cut to a recognisable prefix. */
export function maskHeaders(headers: Record<string, string>): Record<string, string> {
  const masked: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    masked[name] = SECRET_HEADERS.has(name) ? maskSecret(value) : value;
  }
  return masked;
}

export function maskSecret(value: string): string {
  const bearer = value.startsWith('Bearer ') ? 'Bearer ' : '';
  const secret = value.slice(bearer.length);
  if (secret.length <= 10) return `${bearer}••••`;
  return `${bearer}${secret.slice(0, 6)}••••${secret.slice(-2)}`;
}

export interface Usage {
  promptTokens: number | null;
  completionTokens: number | null;
  totalTokens: number | null;
}

/**
 * A run's usage so far with a newer report merged in: later counts win field by field, and a field the
 * newer report does not carry keeps its earlier value (Anthropic streams report input and output apart).
 */
export function mergeUsage(earlier: Usage | null, later: Usage | null): Usage | null {
  if (!later) return earlier;
  if (!earlier) return later;
  const promptTokens = later.promptTokens ?? earlier.promptTokens;
  const completionTokens = later.completionTokens ?? earlier.completionTokens;
  return { promptTokens, completionTokens, totalTokens: promptTokens !== null && completionTokens !== null ? promptTokens + completionTokens : (later.totalTokens ?? earlier.totalTokens) };
}

/** One generated token with its log probability, when the request asked for logprobs. */
export interface TokenLogprob {
  token: string;
  logprob: number | null;
}

export interface ChoiceUpdate {
  index: number;
  text: string;
  finishReason: string | null;
  tokens: TokenLogprob[];
}

/** What one completion object (whole or streamed chunk) says, for either endpoint. */
export interface CompletionPiece {
  choices: ChoiceUpdate[];
  usage: Usage | null;
  error: string | null;
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' ? value : null;
}

/** Completions carry `{tokens, token_logprobs}`; chat carries `{content: [{token, logprob}]}`. */
function readTokenLogprobs(value: unknown): TokenLogprob[] {
  const logprobs = asRecord(value);
  if (!logprobs) return [];
  if (Array.isArray(logprobs.tokens)) {
    const values = Array.isArray(logprobs.token_logprobs) ? logprobs.token_logprobs : [];
    return logprobs.tokens.map((token, position) => ({ token: String(token), logprob: numberOrNull(values[position]) }));
  }
  if (Array.isArray(logprobs.content)) {
    return logprobs.content.flatMap((entry) => {
      const record = asRecord(entry);
      return record && typeof record.token === 'string' ? [{ token: record.token, logprob: numberOrNull(record.logprob) }] : [];
    });
  }
  return [];
}

/** Reads choices, usage and error out of a completion or chat completion object (whole or chunk). */
export function readCompletionPiece(value: unknown): CompletionPiece {
  const object = asRecord(value);
  if (!object) return { choices: [], usage: null, error: null };
  const errorField = asRecord(object.error);
  if (errorField || typeof object.error === 'string') {
    const message = errorField && typeof errorField.message === 'string' ? errorField.message : String(object.error);
    return { choices: [], usage: null, error: message };
  }
  const choices: ChoiceUpdate[] = [];
  if (Array.isArray(object.choices)) {
    for (const rawChoice of object.choices) {
      const choice = asRecord(rawChoice);
      if (!choice) continue;
      const delta = asRecord(choice.delta);
      const message = asRecord(choice.message);
      const text = typeof choice.text === 'string' ? choice.text
        : delta && typeof delta.content === 'string' ? delta.content
          : message && typeof message.content === 'string' ? message.content : '';
      choices.push({
        index: typeof choice.index === 'number' ? choice.index : 0,
        text,
        finishReason: typeof choice.finish_reason === 'string' ? choice.finish_reason : null,
        tokens: readTokenLogprobs(choice.logprobs),
      });
    }
  }
  const usageField = asRecord(object.usage);
  const usage = usageField
    ? {
        promptTokens: numberOrNull(usageField.prompt_tokens),
        completionTokens: numberOrNull(usageField.completion_tokens),
        totalTokens: numberOrNull(usageField.total_tokens),
      }
    : null;
  return { choices, usage, error: null };
}

export interface GatewayCall {
  endpoint: GatewayEndpoint;
  /** Where to send it when not the gateway path itself (the admin API's Playground path for a key picked by name). */
  url?: string;
  headers: Record<string, string>;
  bodyText: string;
  stream: boolean;
  /** Reads one answer object or event (OpenAI's Chat/Completions shapes by default; Messages and Responses modes read theirs). */
  readPiece?: (value: unknown) => CompletionPiece;
}

export interface GatewayCallObserver {
  onResponseStart(status: number, headers: Record<string, string>): void;
  onPiece(piece: CompletionPiece): void;
  /** The raw text of each SSE data line (streams) or the whole body (otherwise). */
  onRawText(text: string): void;
}

export interface GatewayCallOutcome {
  status: number;
  /** The in-stream error a provider sent after the 200, if any. */
  streamError: string | null;
}

/** Sends one request and feeds the observer as bytes arrive. Throws ApiError for non-2xx answers. */
export async function callGateway(call: GatewayCall, observer: GatewayCallObserver, signal: AbortSignal): Promise<GatewayCallOutcome> {
  const response = await fetch(call.url ?? call.endpoint, { method: 'POST', headers: call.headers, body: call.bodyText, signal });
  const responseHeaders: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    responseHeaders[name] = value;
  });
  observer.onResponseStart(response.status, responseHeaders);

  const readPiece = call.readPiece ?? readCompletionPiece;
  const isEventStream = (response.headers.get('content-type') ?? '').includes('text/event-stream');
  if (!response.ok || !isEventStream || !response.body) {
    const text = await response.text();
    observer.onRawText(text);
    if (!response.ok) throw apiErrorFromBody(response.status, response.statusText, text);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new ApiError('The gateway answered with something that is not JSON', response.status);
    }
    const piece = readPiece(parsed);
    observer.onPiece(piece);
    return { status: response.status, streamError: piece.error };
  }

  let streamError: string | null = null;
  for await (const event of readServerSentEvents(response.body, signal)) {
    // Typed streams (Anthropic's) name each event; OpenAI's have data lines only.
    observer.onRawText(event.event ? `event: ${event.event}\ndata: ${event.data}` : `data: ${event.data}`);
    if (event.data.trim() === '[DONE]') break;
    let parsed: unknown;
    try {
      parsed = JSON.parse(event.data);
    } catch {
      continue;
    }
    const piece = readPiece(parsed);
    if (piece.error) streamError = piece.error;
    observer.onPiece(piece);
  }
  return { status: response.status, streamError };
}

