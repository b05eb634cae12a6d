// The Playground's Gemini mode: a GenerateContentRequest sent as Gemini CLI and @google/genai send it
// (POST /v1beta/models/{model}:generateContent, or :streamGenerateContent?alt=sse; the key as
// x-goog-api-key), and its answers (whole, or SSE fragments with no end marker) read into the same
// pieces the other modes show.
import type { CompletionPiece, Usage } from '../api/gateway-client';
import { count, record, type JsonObject as Json } from './json-fields';

/** The gateway path of a Gemini run: the model and the method are in it, the streaming switch in its query. */
export function geminiPath(model: string, stream: boolean): string {
  return `/v1beta/models/${encodeURIComponent(model.trim())}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
}

/** usageMetadata in the Playground's terms: the candidates and the thinking are both output. */
export function usageOfGemini(value: unknown): Usage | null {
  const usage = record(value);
  if (!usage) return null;
  const promptTokens = count(usage.promptTokenCount);
  const candidates = count(usage.candidatesTokenCount);
  const thoughts = count(usage.thoughtsTokenCount) ?? 0;
  const completionTokens = candidates === null ? null : candidates + thoughts;
  return { promptTokens, completionTokens, totalTokens: count(usage.totalTokenCount) };
}

/** The answer text of a candidate: its text parts, thoughts left out. */
function candidateText(candidate: Json): string {
  const parts = record(candidate.content)?.parts;
  if (!Array.isArray(parts)) return '';
  return parts.map((part) => record(part)).filter((part) => part && part.thought !== true && typeof part.text === 'string').map((part) => part!.text as string).join('');
}

/** Reads one GenerateContentResponse (a whole answer or one fragment of a stream), or Google's error body. */
export function readGeminiPiece(value: unknown): CompletionPiece {
  const object = record(value);
  if (!object) return { choices: [], usage: null, error: null };
  const error = record(object.error);
  if (error) return { choices: [], usage: null, error: typeof error.message === 'string' ? error.message : 'The request failed' };
  const candidates = Array.isArray(object.candidates) ? object.candidates : [];
  const choices = candidates.flatMap((value, position) => {
    const candidate = record(value);
    if (!candidate) return [];
    const index = typeof candidate.index === 'number' ? candidate.index : position;
    return [{ index, text: candidateText(candidate), finishReason: typeof candidate.finishReason === 'string' ? candidate.finishReason : null, tokens: [] }];
  });
  return { choices, usage: usageOfGemini(object.usageMetadata), error: null };
}
