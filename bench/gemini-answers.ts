// The Gemini rows of the benchmark (issue 24): what a Gemini client sends and what the upstream double
// answers, in Gemini's wire format (the shapes of test/fakes/gemini.ts: candidates with a `model` content,
// finishReason, usageMetadata, modelVersion, responseId; streams as SSE fragments without a [DONE]), and
// the Chat Completions stream a translated streamed call turns into. Shared by the double (its answers)
// and the load side (which checks that passthrough hands those bytes back unchanged).

export const GEMINI_MODEL = 'gemini-2.5-flash';
/** As Gemini CLI and `@google/genai` send a turn: contents, and a generation config. */
export const GEMINI_REQUEST_BODY = JSON.stringify({
  contents: [{ role: 'user', parts: [{ text: 'Say this is a test' }] }],
  generationConfig: { temperature: 0, maxOutputTokens: 16 },
});
export const GEMINI_STREAM_FRAGMENTS = 10;

const TEXT = 'This is a test of the local gateway benchmark.';

export const GEMINI_RESPONSE = JSON.stringify({
  candidates: [{ content: { role: 'model', parts: [{ text: TEXT }] }, finishReason: 'STOP', index: 0 }],
  usageMetadata: { promptTokenCount: 5, candidatesTokenCount: 12, totalTokenCount: 17 },
  modelVersion: GEMINI_MODEL,
  responseId: 'gemini-bench',
});

/** `:streamGenerateContent?alt=sse`: one fragment per event, the last with finishReason and the whole usage. */
export function geminiStreamEvent(index: number): string {
  const last = index === GEMINI_STREAM_FRAGMENTS - 1;
  const fragment = {
    candidates: [{ content: { role: 'model', parts: [{ text: ` t${index}` }] }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }],
    usageMetadata: last ? { promptTokenCount: 5, candidatesTokenCount: GEMINI_STREAM_FRAGMENTS, totalTokenCount: 5 + GEMINI_STREAM_FRAGMENTS } : { promptTokenCount: 5, totalTokenCount: 5 },
    modelVersion: GEMINI_MODEL,
    responseId: 'gemini-bench',
  };
  return `data: ${JSON.stringify(fragment)}\r\n\r\n`;
}

/** Every byte of the double's Gemini stream, for the passthrough check. */
export const GEMINI_STREAM_BYTES = Array.from({ length: GEMINI_STREAM_FRAGMENTS }, (_value, index) => geminiStreamEvent(index)).join('');

/** A streamed Chat Completions answer (what a translated streamed call asks for), ending in a usage chunk and [DONE]. */
export function chatStreamEvent(index: number, total: number): string {
  const chunk = {
    id: 'chatcmpl-bench',
    object: 'chat.completion.chunk',
    created: 1700000000,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, delta: index === 0 ? { role: 'assistant', content: ` t${index}` } : { content: ` t${index}` }, finish_reason: index === total - 1 ? 'stop' : null }],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}
export const CHAT_STREAM_END =
  'data: {"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":10,"total_tokens":15}}\n\ndata: [DONE]\n\n';
