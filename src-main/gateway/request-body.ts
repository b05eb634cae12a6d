// Reading a generation request's body: the bytes within the size cap, JSON in UTF-8 with nothing JSON.parse
// would silently accept, the key's default model standing in for none, and the dialect's check to route it.
// A body of OFF_THREAD_MIN_BYTES or more is read off the serving thread (prepare/): what the steps after
// this one read of a generation is the `Generation` interface, which either kind answers.
import type { IncomingMessage } from 'node:http';
import { isUtf8 } from 'node:buffer';
import { GatewayError, invalidRequest } from '../core/errors.js';
import type { Caller } from '../core/keys.js';
import { readBody } from '../core/http-io.js';
import type { CanonicalRequest, WireFormat } from '../codecs/canonical.js';
import type { Operation } from '../providers/types.js';
import { refuseUnsafeJson } from '../core/json-scan.js';
import type { GenerationRoute, Ingress, RoutedRequest } from './ingress/types.js';
import { isPlainObject } from '../core/plain-object.js';
import { traitsOf, type RequestTraits } from './routing/conditions.js';
import { estimateInputTokens } from './token-estimate.js';
import type { TokenCount } from './token-count.js';
import { encodeForTarget } from './plan-call.js';
import { OFF_THREAD_MIN_BYTES, prepareGeneration, type PrepareContext } from './prepare/prepare-pool.js';

/** What a generation request asks, as routing, limits and the record read it; the parsed body stays with its reader. */
export type CallRequest = Omit<RoutedRequest, 'body'>;

/** One target a translated request is encoded for. */
export interface EncodeSpec {
  providerFormat: WireFormat;
  /** The model sent (a route or model map may send another than the body's). */
  model: string;
  /** The adapter's slug and traits, as the provider codec and the fan-out read them. */
  provider: string;
  modelInBody: boolean;
  supportsN: boolean;
}

/** A request translated for one target. */
export interface EncodedRequest {
  body: string | Buffer;
  /** Request fields the provider's format has no place for. */
  dropped: string[];
  /** Calls to make (formats without `n`: one per choice). */
  copies: number;
  /**
   * The canonical request as encoded (one choice per call when fanned out), as the relay reads it to decode
   * and encode the answer: a request prepared off the serving thread brings it without `system` and `turns`,
   * which no answer codec reads.
   */
  request: CanonicalRequest;
}

/** What one generation request brings to any target it may be sent to, whichever thread read its body. */
export interface Generation {
  readonly ingress: Ingress;
  readonly operation: Operation;
  readonly request: CallRequest;
  readonly rawBody: Buffer;
  /** The body's own `model` value (undefined when a default model stood in). */
  readonly rawModel: unknown;
  readonly bodyText: string;
  /** The most output the body asks for (Ingress.maxOutputTokens). */
  readonly maxOutputTokens: number | undefined;
  /** Answers generated and billed (Ingress.answersBilled). */
  readonly answersBilled: number;
  /** What route conditions read. */
  readonly traits: RequestTraits;
  /** The model's context window at one provider (Ingress.checkWindow): a 400 if not; a promise when the prompt is counted. */
  checkWindow(provider: string, model: string): Promise<void> | undefined;
  /** The request translated for one target; a 400 when the target's format cannot take it. */
  encodeFor(spec: EncodeSpec): EncodedRequest | Promise<EncodedRequest>;
  /** The prompt's estimated tokens (o200k), for a count the gateway answers itself. */
  inputTokens(): Promise<TokenCount>;
}

/** A generation whose body was parsed on this thread: every question answered from the parsed body. */
export class ParsedGeneration implements Generation {
  private decoded: CanonicalRequest | undefined;
  private traitsOfBody: RequestTraits | undefined;

  constructor(
    readonly ingress: Ingress,
    readonly operation: Operation,
    readonly request: RoutedRequest,
    readonly rawBody: Buffer,
    readonly rawModel: unknown,
    readonly bodyText: string,
  ) {}

  /**
   * The body decoded to the canonical request, on first need and once: routing traits, the window
   * check and every route target's translation read the same decode.
   */
  canonical(): CanonicalRequest {
    return (this.decoded ??= this.ingress.codec.decodeRequest(this.request.body));
  }

  get maxOutputTokens(): number | undefined {
    return this.ingress.maxOutputTokens(this.request.body);
  }

  get answersBilled(): number {
    return this.ingress.answersBilled(this.request.body, this.request.n);
  }

  get traits(): RequestTraits {
    return (this.traitsOfBody ??= traitsOf(() => this.canonical()));
  }

  checkWindow(provider: string, model: string): Promise<void> | undefined {
    return this.ingress.checkWindow({ provider, model, body: this.request.body, bodyBytes: this.rawBody.length, decoded: this });
  }

  encodeFor(spec: EncodeSpec): EncodedRequest {
    return encodeForTarget(this, spec);
  }

  inputTokens(): Promise<TokenCount> {
    return estimateInputTokens(this.canonical());
  }
}

export function parseJsonBody(raw: Buffer, text: string): unknown {
  if (raw.length === 0) throw invalidRequest('The request body is empty; send a JSON object');
  refuseUnsafeJson(raw);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalidRequest(`The request body is not valid JSON: ${(error as Error).message}`);
  }
}

/** A body in UTF-8: anything else cannot be JSON, and would be read with replacement characters. */
function decodeBodyText(raw: Buffer): string {
  // isUtf8 is a native scan; a fatal TextDecoder costs a copy and an exception path per request.
  if (!isUtf8(raw)) throw invalidRequest('The request body is not valid UTF-8; send JSON encoded as UTF-8');
  return raw.toString('utf8');
}

/** `application/json`, with any parameters; a missing header is taken as JSON (what many scripts send). */
function checkContentType(req: IncomingMessage): void {
  const type = req.headers['content-type'];
  // The header nearly every client sends, taken without splitting and lower-casing it.
  if (type === undefined || type === 'application/json') return;
  const essence = type.split(';', 1)[0].trim().toLowerCase();
  if (essence !== 'application/json') {
    throw new GatewayError(415, 'invalid_request_error', `Unsupported Content-Type '${type}': send the body as JSON with 'Content-Type: application/json'`, 'content-type', 'unsupported_media_type');
  }
}

/** A request body as read: its bytes, and the same bytes as UTF-8 text (what the log keeps). */
export interface RawBody {
  bytes: Buffer;
  text: string;
}

/** Reads a JSON body within the size cap, as UTF-8 text. */
export async function readRawBody(req: IncomingMessage, maxBodyBytes: number): Promise<RawBody> {
  const bytes = await readBody(req, maxBodyBytes);
  checkContentType(req);
  return { bytes, text: decodeBodyText(bytes) };
}

/** Parses and checks a generation request's body, the key's default model standing in for none. */
export function readGeneration(body: RawBody, route: GenerationRoute, caller: Caller): ParsedGeneration {
  return parseGeneration(body, route, defaultModelOf(caller));
}

/** The model a caller's key stands in for a body that names none. */
export function defaultModelOf(caller: Caller): string | undefined {
  return caller.kind === 'virtual-key' ? caller.defaultModel || undefined : undefined;
}

/** The same with the default model given: what a preparing thread runs, which has no caller. */
export function parseGeneration(body: RawBody, route: GenerationRoute, defaultModel: string | undefined): ParsedGeneration {
  const { ingress, operation } = route;
  let json = parseJsonBody(body.bytes, body.text);
  const rawModel = typeof json === 'object' && json !== null ? (json as { model?: unknown }).model : undefined;
  if (defaultModel && isPlainObject(json) && (json.model === undefined || json.model === null || json.model === '')) {
    // The key's default model stands in for a body that names none.
    json = { ...json, model: defaultModel };
  }
  return new ParsedGeneration(ingress, operation, ingress.readRequest(json, route.path), body.bytes, rawModel, body.text);
}

/**
 * The dialect step's one seam: the body's bytes in, the decoded generation out. A body under
 * OFF_THREAD_MIN_BYTES is read here (a thread hop costs more than it saves); a larger one is read, checked
 * and decoded by a preparing thread, which hands back the call's facts and later each target's encoded bytes.
 */
export type DecodeGeneration = (body: RawBody, route: GenerationRoute, caller: Caller, preparing?: PrepareContext) => Generation | Promise<Generation>;

export const decodeGeneration: DecodeGeneration = (body, route, caller, preparing) =>
  (body.bytes.length >= OFF_THREAD_MIN_BYTES && prepareGeneration(body, route, defaultModelOf(caller), preparing)) || readGeneration(body, route, caller);
