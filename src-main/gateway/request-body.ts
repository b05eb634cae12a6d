// Reading a generation request's body: the bytes within the size cap, JSON in UTF-8 with nothing JSON.parse
// would silently accept, the key's default model standing in for none, and the dialect's check to route it.
import type { IncomingMessage } from 'node:http';
import { isUtf8 } from 'node:buffer';
import { GatewayError, invalidRequest } from '../core/errors.js';
import type { Caller } from '../core/keys.js';
import { readBody } from '../core/http-io.js';
import type { CanonicalRequest } from '../codecs/canonical.js';
import type { Operation } from '../providers/types.js';
import { refuseUnsafeJson } from '../core/json-scan.js';
import type { GenerationRoute, Ingress, RoutedRequest } from './ingress/types.js';
import { isPlainObject } from '../core/plain-object.js';

/** What one generation request brings to any target it may be sent to. */
export class Generation {
  private decoded: CanonicalRequest | undefined;

  constructor(
    readonly ingress: Ingress,
    readonly operation: Operation,
    readonly request: RoutedRequest,
    readonly rawBody: Buffer,
    /** The body's own `model` value (undefined when a default model stood in). */
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
export function readGeneration(body: RawBody, route: GenerationRoute, caller: Caller): Generation {
  const { ingress, operation } = route;
  let json = parseJsonBody(body.bytes, body.text);
  const rawModel = typeof json === 'object' && json !== null ? (json as { model?: unknown }).model : undefined;
  if (caller.kind === 'virtual-key' && caller.defaultModel && isPlainObject(json) && (json.model === undefined || json.model === null || json.model === '')) {
    // The key's default model stands in for a body that names none.
    json = { ...json, model: caller.defaultModel };
  }
  return new Generation(ingress, operation, ingress.readRequest(json, route.path), body.bytes, rawModel, body.text);
}

/**
 * The dialect step's one seam: the body's bytes in, the decoded generation out. Synchronous today; its type
 * allows a promise so that a preparation of very large bodies off the serving thread can take its place
 * without touching the steps around it.
 */
export type DecodeGeneration = (body: RawBody, route: GenerationRoute, caller: Caller) => Generation | Promise<Generation>;

export const decodeGeneration: DecodeGeneration = readGeneration;
