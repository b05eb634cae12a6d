// What the front door knows about each dialect: which body it takes, how little must be checked to route
// it, and how its errors look. The full decoding (codecs/) happens only when a request is translated.
import type { Dialect, DialectCodec } from '../../codecs/canonical.js';
import type { Operation } from '../../providers/types.js';
import type { GatewayError } from '../../core/errors.js';

/** What routing needs from a body, read without decoding it whole. */
export interface RoutedRequest {
  model: string;
  stream: boolean;
  /** Choices asked for (Chat and Completions' `n`); 1 elsewhere. */
  n: number;
  /** The body as the dialect codec's `decodeRequest` takes it (validated where the dialect has a schema). */
  body: unknown;
}

export interface Ingress {
  readonly dialect: Dialect;
  /** The dialect's half of its codec: the request decoded to the canonical model, answers and streams encoded back. */
  readonly codec: DialectCodec;
  /** Checks the parsed JSON enough to route it; throws GatewayError (400 naming the field). */
  readRequest(json: unknown): RoutedRequest;
  /** An error as this dialect's clients expect its JSON body. */
  errorBody(error: GatewayError): object;
  /** An error inside a stream that already began, as this dialect's SSE event. */
  streamErrorEvent(error: GatewayError): string;
}

/** A generation (or token count) in one dialect: what a front-door path stands for. */
export interface GenerationRoute {
  ingress: Ingress;
  operation: Operation;
}
