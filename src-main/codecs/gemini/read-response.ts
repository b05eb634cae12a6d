// GenerateContentResponse → canonical events, shared by the answer and the stream decoders: a whole answer
// is one response; a stream is many, each with the next parts and the last with finishReason and usage.
import { newToolCallId } from '../openai-chat/index.js';
import type { CanonicalEvent, FinishReason, TokenLogprob } from '../canonical.js';
import { providerError } from './errors.js';
import type { GeminiAnswerPart, GeminiCandidate, GenerateContentResponse } from './schema.js';
import { usageOf } from './usage.js';

const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION']);

export function mapFinishReason(finishReason: string | undefined): FinishReason | null {
  if (finishReason === undefined || finishReason === '') return null;
  if (finishReason === 'MAX_TOKENS') return 'length';
  if (FILTERED.has(finishReason)) return 'content_filter';
  // STOP, and LANGUAGE, OTHER, MALFORMED_FUNCTION_CALL, FINISH_REASON_UNSPECIFIED and later values.
  return 'stop';
}

const tokenLogprob = (candidate: { token?: string; logProbability?: number }): { token: string; logprob: number } => ({
  token: candidate.token ?? '',
  logprob: candidate.logProbability ?? 0,
});

/** `logprobsResult.chosenCandidates[i]` with `topCandidates[i].candidates`, step by step; undefined when absent. */
function readLogprobs(candidate: GeminiCandidate): TokenLogprob[] | undefined {
  const result = candidate.logprobsResult;
  if (!result?.chosenCandidates) return undefined;
  const tops = result.topCandidates ?? [];
  return result.chosenCandidates.map((chosen, index) => ({ ...tokenLogprob(chosen), top: (tops[index]?.candidates ?? []).map(tokenLogprob) }));
}

/** Reads the responses of one answer in order; `finished` once one carried a finishReason (or a blocked prompt). */
export class ResponseReader {
  private started = false;
  private toolCalls = 0;
  finished = false;

  read(response: GenerateContentResponse): CanonicalEvent[] {
    if (response.error !== undefined) throw providerError(response.error);
    const events: CanonicalEvent[] = [];
    if (!this.started) {
      this.started = true;
      events.push({ type: 'start', ...(response.responseId ? { id: response.responseId } : {}), ...(response.modelVersion ? { model: response.modelVersion } : {}) });
    }
    const candidate = response.candidates?.[0];
    let finish: FinishReason | null = null;
    if (candidate) {
      for (const part of candidate.content?.parts ?? []) this.partEvents(part, events);
      const logprobs = readLogprobs(candidate);
      if (logprobs?.length) events.push({ type: 'logprobs', tokens: logprobs });
      finish = mapFinishReason(candidate.finishReason);
      // Gemini ends a turn that calls functions with STOP.
      if (finish === 'stop' && this.toolCalls > 0) finish = 'tool_calls';
    } else if (response.promptFeedback?.blockReason !== undefined) {
      // A prompt Gemini blocked comes back with no candidates.
      finish = 'content_filter';
    }
    if (response.usageMetadata !== undefined) events.push({ type: 'usage', usage: usageOf(response.usageMetadata) });
    if (finish && !this.finished) {
      this.finished = true;
      events.push({ type: 'finish', reason: finish });
    }
    return events;
  }

  private partEvents(part: GeminiAnswerPart, events: CanonicalEvent[]): void {
    const signature = part.thoughtSignature;
    const text = part.text;
    if (part.thought === true) {
      if (text) events.push({ type: 'reasoning', text });
      if (signature) events.push({ type: 'reasoning_signature', signature });
      return;
    }
    // A signature on an answer part belongs to the thinking before it: it travels as that reasoning's signature.
    if (signature) events.push({ type: 'reasoning_signature', signature });
    if (text) events.push({ type: 'text', text });
    if (part.functionCall !== undefined) {
      const call = part.functionCall;
      const index = this.toolCalls++;
      // Tool calls the provider made without an id of its own (Gemini usually does) get one, as OpenAI's always have.
      events.push({ type: 'tool_call_start', index, id: call.id || newToolCallId(), name: call.name });
      events.push({ type: 'tool_call_delta', index, arguments: JSON.stringify(call.args ?? {}) });
      events.push({ type: 'tool_call_end', index });
    }
  }
}
