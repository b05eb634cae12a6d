// What the front door knows about each dialect: which body it takes, how little must be checked to route
// it, and how its errors look. The full decoding (codecs/) happens only when a request is translated.
import type { Dialect, DialectCodec } from '../../codecs/canonical.js';
import type { Operation } from '../../providers/types.js';
import type { GatewayError } from '../../core/errors.js';
import type { WindowCheck } from '../context-window.js';

/** What routing needs from a body, read without decoding it whole. */
export interface RoutedRequest {
  model: string;
  stream: boolean;
  /** Choices asked for (Chat and Completions' `n`); 1 elsewhere. */
  n: number;
  /** The body as the dialect codec's `decodeRequest` takes it (validated where the dialect has a schema). */
  body: unknown;
  /** Gemini's `streamGenerateContent` without `alt=sse`: the stream is one JSON array, not SSE. */
  streamFraming?: 'json-array';
}

/** What a dialect that puts part of its request in the URL says there (Gemini: `/v1beta/models/{model}:{method}`). */
export interface PathRequest {
  model: string;
  stream: boolean;
  streamFraming?: 'json-array';
}

export interface Ingress {
  readonly dialect: Dialect;
  /** The dialect's half of its codec: the request decoded to the canonical model, answers and streams encoded back. */
  readonly codec: DialectCodec;
  /**
   * The model is named in the URL, not the body: the body goes to a provider of the same format unchanged
   * even when the provider takes the model in its URL too, and `readRequest` is given the path's request.
   */
  readonly modelFromPath?: boolean;
  /** Checks the parsed JSON enough to route it; throws GatewayError (400 naming the field). */
  readRequest(json: unknown, path?: PathRequest): RoutedRequest;
  /** An error as this dialect's clients expect its JSON body. */
  errorBody(error: GatewayError): object;
  /** An error inside a stream that already began, as this dialect's SSE event. */
  streamErrorEvent(error: GatewayError): string;
  /** A token count the gateway makes itself, in this dialect's answer shape; without it, Anthropic's `{input_tokens}`. */
  tokenCountBody?(tokens: number): object;
  // What a dialect must say for limits and windows: required, so a new dialect does not compile without them.
  /**
   * The most output a request's body (`RoutedRequest.body`) asks for, a positive number, or the dialect's
   * own default when it names none (Completions' 16); undefined when there is neither.
   */
  maxOutputTokens(body: unknown): number | undefined;
  /** Answers a request generates and is billed for, given its `n`: more than `n` where the dialect asks for more (Completions' `best_of`). */
  answersBilled(body: unknown, n: number): number;
  /** Whether a generation's prompt and output fit the model's window: a 400 if not; a promise only when the prompt is counted. */
  checkWindow(call: WindowCheck): Promise<void> | undefined;
}

/** A generation (or token count) in one dialect: what a front-door path stands for. */
export interface GenerationRoute {
  ingress: Ingress;
  operation: Operation;
  /** What the path said, for a dialect whose ingress reads the model from it. */
  path?: PathRequest;
}
