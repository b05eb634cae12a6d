// The log's token counts come from what the client received: the top-level usage object of a JSON
// answer, or of a stream's last usage chunk — never a usage object nested elsewhere, nor the text.
import { describe, expect, it } from 'vitest';
import { readTokenCounts } from '../../../src-main/gateway/openai-usage.js';

const answer = (text: string, usage: unknown) =>
  JSON.stringify({ id: 'cmpl-1', object: 'text_completion', choices: [{ index: 0, text, finish_reason: 'stop' }], usage });

describe('token counts for the log', () => {
  it('reads the usage of a JSON answer, nested details included', () => {
    const body = answer('Hello', { prompt_tokens: 5, completion_tokens: 7, total_tokens: 12, prompt_tokens_details: { cached_tokens: 2 } });
    expect(readTokenCounts(body, false)).toEqual({ promptTokens: 5, completionTokens: 7 });
  });

  it('is not fooled by "usage" in the generated text, wherever the usage object sits', () => {
    const sneaky = 'Report: "usage": {"prompt_tokens": 999, "completion_tokens": 999}';
    expect(readTokenCounts(answer(sneaky, { prompt_tokens: 3, completion_tokens: 4 }), false)).toEqual({ promptTokens: 3, completionTokens: 4 });
    const usageFirst = JSON.stringify({ usage: { prompt_tokens: 3, completion_tokens: 4 }, choices: [{ index: 0, text: sneaky }] });
    expect(readTokenCounts(usageFirst, false)).toEqual({ promptTokens: 3, completionTokens: 4 });
    expect(readTokenCounts(answer('the word usage', null), false)).toEqual({ promptTokens: null, completionTokens: null });
  });

  it('takes the top-level usage, not one nested after it (Groq’s x_groq.usage) nor a string value', () => {
    const nested = JSON.stringify({ usage: { prompt_tokens: 3, completion_tokens: 4 }, choices: [], x_groq: { usage: { prompt_tokens: 999, completion_tokens: 999 } } });
    expect(readTokenCounts(nested, false)).toEqual({ promptTokens: 3, completionTokens: 4 });
    const stringValue = JSON.stringify({ usage: { prompt_tokens: 3, completion_tokens: 4 }, note: 'usage', choices: [{ text: 'see "usage": {}' }] });
    expect(readTokenCounts(stringValue, false)).toEqual({ promptTokens: 3, completionTokens: 4 });
    const streamed = `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 2 }, x_groq: { usage: { prompt_tokens: 1, completion_tokens: 1 } } })}\n\ndata: [DONE]\n\n`;
    expect(readTokenCounts(streamed, true)).toEqual({ promptTokens: 9, completionTokens: 2 });
  });

  it('counts nothing for an answer without usage, or one that is not JSON', () => {
    expect(readTokenCounts(JSON.stringify({ choices: [] }), false)).toEqual({ promptTokens: null, completionTokens: null });
    expect(readTokenCounts('<html>Bad gateway</html>', false)).toEqual({ promptTokens: null, completionTokens: null });
    expect(readTokenCounts('{"usage": {"prompt_tokens": 5', false)).toEqual({ promptTokens: null, completionTokens: null });
  });

  it('takes a stream usage chunk, skipping the usage: null of the others', () => {
    const chunk = (extra: object) => `data: ${JSON.stringify({ object: 'text_completion', choices: [{ index: 0, text: 'hi' }], ...extra })}\n\n`;
    const body = chunk({ usage: null }) + chunk({ usage: null }) + `data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 9, completion_tokens: 2 } })}\n\n` + 'data: [DONE]\n\n';
    expect(readTokenCounts(body, true)).toEqual({ promptTokens: 9, completionTokens: 2 });
    expect(readTokenCounts(chunk({}) + 'data: [DONE]\n\n', true)).toEqual({ promptTokens: null, completionTokens: null });
  });
});
