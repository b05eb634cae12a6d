// What the serving thread asks a preparing thread, and what comes back: plain data only (structured clone),
// never the parsed body. The body travels as a SharedArrayBuffer written once per request, so a second
// question about the same body (a target's window, its encoded bytes) costs no copy here.
import { GatewayError } from '../../core/errors.js';
import type { ModelOverride } from '../../core/model-overrides.js';
import type { CanonicalRequest } from '../../codecs/canonical.js';
import type { EmbeddingRequest } from '../../codecs/embeddings/canonical.js';
import type { Operation } from '../../providers/types.js';
import type { EmbeddingsIngressRef } from '../embeddings/embeddings-ingress.js';
import type { Ingress, PathRequest } from '../ingress/types.js';
import type { CallRequest, EncodeSpec } from '../request-body.js';
import { anthropicCountTokensIngress, anthropicMessagesIngress } from '../ingress/anthropic-messages.js';
import { geminiCountTokensIngress, geminiIngress } from '../ingress/gemini.js';
import { openaiChatIngress, openaiCompletionsIngress } from '../ingress/openai.js';
import { openaiResponsesIngress } from '../ingress/openai-responses.js';

/** Every generation front door by a name both threads know; a front door not listed is read on the serving thread. */
export const INGRESSES = {
  'openai-chat': openaiChatIngress,
  'openai-completions': openaiCompletionsIngress,
  'anthropic-messages': anthropicMessagesIngress,
  'anthropic-count-tokens': anthropicCountTokensIngress,
  'openai-responses': openaiResponsesIngress,
  gemini: geminiIngress,
  'gemini-count-tokens': geminiCountTokensIngress,
} as const satisfies Record<string, Ingress>;

export type IngressName = keyof typeof INGRESSES;

export function ingressName(ingress: Ingress): IngressName | undefined {
  return (Object.keys(INGRESSES) as IngressName[]).find((name) => INGRESSES[name] === ingress);
}

/** A generation route as data. */
export interface RouteRef {
  ingress: IngressName;
  operation: Operation;
  path?: PathRequest;
}

/** What is asked of a generation body: its facts, one target's window, one target's encoded request, or its prompt's tokens. */
export type GenerationAsk =
  | { facts: true }
  | { window: { provider: string; model: string; overrides: ModelOverride[] } }
  | { encode: EncodeSpec }
  | { inputTokens: true };

export type PrepareJob =
  | { kind: 'generation'; bytes: SharedArrayBuffer; route: RouteRef; defaultModel: string | undefined; ask: GenerationAsk }
  | { kind: 'embeddings'; bytes: SharedArrayBuffer; ingress: EmbeddingsIngressRef; defaultModel: string | undefined }
  | { kind: 'json'; bytes: SharedArrayBuffer };

/** What a generation's body says, as every step after the dialect step reads it. */
export interface GenerationFacts {
  request: CallRequest;
  rawModel: unknown;
  maxOutputTokens: number | undefined;
  answersBilled: number;
  /** Route conditions' view of the body, or the failure decoding it met (thrown only when a condition asks). */
  traits: { promptTokens: number; thinking: boolean; tools: boolean } | { failure: FailureData };
}

/** A target's encoded request: the bytes (transferred, not copied) and the request head the relay reads. */
export interface EncodedReply {
  body: Uint8Array;
  dropped: string[];
  copies: number;
  request: CanonicalRequest;
}

export interface EmbeddingsReply {
  request: EmbeddingRequest;
  rawModel: unknown;
}

/** A failure the preparing thread met, as data: a GatewayError's fields, or the text of anything else. */
export type FailureData = { gateway: { status: number; type: string; message: string; param: string | null; code: string | number | null; provider?: string } } | { syntax: string } | { unexpected: string };

export function failureData(error: unknown): FailureData {
  if (error instanceof GatewayError) return { gateway: { status: error.status, type: error.type, message: error.message, param: error.param, code: error.code, provider: error.provider } };
  if (error instanceof SyntaxError) return { syntax: error.message };
  return { unexpected: error instanceof Error ? error.message : String(error) };
}

/** The same failure, thrown on the serving thread as it would have been thrown there. */
export function failureError(data: FailureData): Error {
  if ('gateway' in data) {
    const { status, type, message, param, code, provider } = data.gateway;
    return new GatewayError(status, type, message, param, code, provider);
  }
  if ('syntax' in data) return new SyntaxError(data.syntax);
  return new Error(`while preparing the request: ${data.unexpected}`);
}
