// What the embeddings core needs from a front door, whichever dialect it speaks: the request decoded to
// the canonical one, the client's own bytes when a provider can take them unchanged, how the answer and
// errors are written back. `/v1/embeddings` (OpenAI's shape) is one; Gemini's `:embedContent` and
// `:batchEmbedContents` are another, made per request (the model and method come from the path).
import type { GatewayError } from '../../core/errors.js';
import type { EmbeddingAnswer, EmbeddingFormat, EmbeddingRequest } from '../../codecs/embeddings/canonical.js';
import { decodeOpenAIEmbeddingsRequest, encodeOpenAIEmbeddingsAnswer } from '../../codecs/embeddings/openai.js';
import { decodeGeminiEmbeddingsRequest, encodeGeminiEmbeddingsAnswer } from '../../codecs/embeddings/gemini.js';
import { geminiErrorBody } from '../../codecs/gemini/index.js';

/** One embeddings request as it came in. */
export interface EmbeddingsInbound {
  request: EmbeddingRequest;
  /**
   * The format the client's body is already in (OpenAI's for /v1/embeddings): a provider that takes it
   * gets the bytes unchanged and its answer goes back unchanged. Absent: always translated.
   */
  passthroughFormat?: EmbeddingFormat;
  /** The body as the client sent it, and its `model` value (the passthrough rewrites only that when another model is sent). */
  rawBody: Buffer;
  bodyText: string;
  rawModel: unknown;
  /** The answer in the client's dialect, with the input tokens it reports. */
  encodeAnswer(answer: EmbeddingAnswer, inputTokens: number): object;
}

/** Plain data that names a front door, so a thread reading the body on the gateway's behalf can make the same one. */
export type EmbeddingsIngressRef = { kind: 'openai' } | { kind: 'gemini'; model: string; method: 'embedContent' | 'batchEmbedContents' };

/** A front door for embeddings: its dialect's name (for the log), how it reads a body, how its errors look. */
export interface EmbeddingsIngress {
  readonly dialect: string;
  readonly ref: EmbeddingsIngressRef;
  /** The parsed JSON (a key's default model already in it) → the canonical request; throws a 400 naming the field. */
  decode(json: unknown): EmbeddingRequest;
  /** The inbound request, from the decoded request and the body as the client sent it. */
  inbound(request: EmbeddingRequest, rawBody: Buffer, bodyText: string, rawModel: unknown): EmbeddingsInbound;
  errorBody(error: GatewayError): object;
}

export const openaiEmbeddingsIngress: EmbeddingsIngress = {
  dialect: 'openai-embeddings',
  ref: { kind: 'openai' },
  decode: decodeOpenAIEmbeddingsRequest,
  inbound(request, rawBody, bodyText, rawModel) {
    return {
      request,
      passthroughFormat: 'openai-embeddings',
      rawBody,
      bodyText,
      rawModel,
      encodeAnswer: (answer, inputTokens) => encodeOpenAIEmbeddingsAnswer(answer, request.encoding, inputTokens),
    };
  },
  errorBody: (error) => error.toBody(),
};

/**
 * Gemini's `:embedContent` and `:batchEmbedContents` for the model in the path. A batch body is Google's
 * own format: it goes to a Gemini provider unchanged when no route or model map sends another model.
 */
export function geminiEmbeddingsIngress(model: string, method: 'embedContent' | 'batchEmbedContents'): EmbeddingsIngress {
  return {
    dialect: 'gemini',
    ref: { kind: 'gemini', model, method },
    decode: (json) => decodeGeminiEmbeddingsRequest(json, model, method),
    inbound(request, rawBody, bodyText) {
      return {
        request,
        passthroughFormat: method === 'batchEmbedContents' ? 'gemini-embeddings' : undefined,
        rawBody,
        bodyText,
        rawModel: model,
        encodeAnswer: (answer) => encodeGeminiEmbeddingsAnswer(answer, method),
      };
    },
    errorBody: geminiErrorBody,
  };
}

/** The front door a ref names. */
export function embeddingsIngressOf(ref: EmbeddingsIngressRef): EmbeddingsIngress {
  return ref.kind === 'openai' ? openaiEmbeddingsIngress : geminiEmbeddingsIngress(ref.model, ref.method);
}
