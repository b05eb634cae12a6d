// Canonical answer → GenerateContentResponse JSON, for Gemini clients; the parts and finish reasons the
// stream encoder writes too.
import { isPlainObject } from '../../core/plain-object.js';
import type { CanonicalAnswer, CanonicalRequest, FinishReason, TokenLogprob } from '../canonical.js';
import { usageMetadataOf } from './usage.js';

type Json = Record<string, unknown>;

export const GEMINI_FINISH: Record<FinishReason, string> = { stop: 'STOP', stop_sequence: 'STOP', tool_calls: 'STOP', pause: 'STOP', length: 'MAX_TOKENS', content_filter: 'SAFETY', error: 'OTHER' };

/** A tool call's arguments as the object Gemini's `args` is; text that is not a JSON object is kept under `arguments`. */
export function argsOf(text: string): Json {
  if (text.trim() === '') return {};
  try {
    const parsed: unknown = JSON.parse(text);
    if (isPlainObject(parsed)) return parsed;
  } catch {
    // Kept as text below.
  }
  return { arguments: text };
}

export function logprobsResultOf(tokens: TokenLogprob[]): Json {
  return {
    chosenCandidates: tokens.map((token) => ({ token: token.token, logProbability: token.logprob })),
    topCandidates: tokens.map((token) => ({ candidates: (token.top ?? []).map((top) => ({ token: top.token, logProbability: top.logprob })) })),
  };
}

function answerParts(answer: CanonicalAnswer): Json[] {
  return answer.content.flatMap((part): Json[] => {
    if (part.type === 'text') return [{ text: part.text }];
    if (part.type === 'reasoning') {
      // Encrypted reasoning (Responses, redacted thinking) has no place in a Gemini part.
      if (!part.text && !part.signature) return [];
      return [{ ...(part.text ? { text: part.text } : {}), thought: true, ...(part.signature ? { thoughtSignature: part.signature } : {}) }];
    }
    return [{ functionCall: { id: part.id, name: part.name, args: argsOf(part.arguments) } }];
  });
}

export function encodeResponse(answer: CanonicalAnswer, _request: CanonicalRequest): object {
  const candidate: Json = {
    content: { role: 'model', parts: answerParts(answer) },
    finishReason: GEMINI_FINISH[answer.finishReason ?? 'stop'],
    index: 0,
  };
  if (answer.logprobs?.length) candidate.logprobsResult = logprobsResultOf(answer.logprobs);
  return {
    candidates: [candidate],
    ...(answer.usage ? { usageMetadata: usageMetadataOf(answer.usage) } : {}),
    modelVersion: answer.model,
    responseId: answer.id,
  };
}


/** `:countTokens`' answer. */
export const geminiTokenCount = (tokens: number): object => ({ totalTokens: tokens });
