import { describe, expect, it } from 'vitest';
import {
  buildGenerateContentBody,
  createGenerateContentStreamTranslator,
  mapFinishReason,
  mapGenerateContentResponse,
  mapGoogleError,
  toOpenAIUsage,
} from '../../../src-main/gateway/providers/gemini-generate-content.js';
import { geminiModelPath, googleMethodUrl } from '../../../src-main/gateway/providers/google.js';
import { ProviderStreamError } from '../../../src-main/gateway/providers/types.js';
import { chatCall, completionCall } from './call.js';

const sse = (data: object) => ({ kind: 'sse' as const, data: JSON.stringify(data) });

describe('buildGenerateContentBody', () => {
  it('maps the sampling fields into generationConfig', () => {
    const body = buildGenerateContentBody(completionCall({ model: 'g', prompt: 'p', max_tokens: 5, temperature: 2, top_p: 0.5, stop: 'x', seed: -3, presence_penalty: 1, frequency_penalty: 2 }), 'google');
    expect(body.generationConfig).toEqual({ maxOutputTokens: 5, temperature: 2, topP: 0.5, stopSequences: ['x'], seed: -3, presencePenalty: 1, frequencyPenalty: 2 });
  });

  it('turns system and developer messages into systemInstruction parts and assistant into model', () => {
    const body = buildGenerateContentBody(
      chatCall({ model: 'g', messages: [{ role: 'developer', content: 'd' }, { role: 'user', content: 'u' }, { role: 'assistant', content: [{ type: 'text', text: 'a' }] }, { role: 'system', content: 's' }] }),
      'google',
    );
    expect(body).toEqual({
      contents: [
        { role: 'user', parts: [{ text: 'u' }] },
        { role: 'model', parts: [{ text: 'a' }] },
      ],
      systemInstruction: { parts: [{ text: 'd' }, { text: 's' }] },
    });
  });

  it('asks for log probabilities only when the client does, and refuses top_logprobs without logprobs', () => {
    expect(buildGenerateContentBody(chatCall({ model: 'g', messages: [{ role: 'user', content: 'x' }], logprobs: false }), 'google')).not.toHaveProperty('generationConfig');
    expect(buildGenerateContentBody(chatCall({ model: 'g', messages: [{ role: 'user', content: 'x' }], logprobs: true, top_logprobs: 3 }), 'google').generationConfig).toEqual({ responseLogprobs: true, logprobs: 3 });
    expect(() => buildGenerateContentBody(chatCall({ model: 'g', messages: [{ role: 'user', content: 'x' }], top_logprobs: 3 }), 'google')).toThrow(/'top_logprobs'/);
  });

  it('marks replayed function calls for Gemini 3 and later, whose signatures an OpenAI client cannot keep', () => {
    const messages = [
      { role: 'user', content: 'Weather?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'w', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'sunny' },
    ];
    const modelPart = (model: string) => buildGenerateContentBody(chatCall({ model, messages }), 'google').contents[1].parts[0];
    expect(modelPart('gemini-3-pro-preview')).toEqual({ functionCall: { name: 'w', args: {} }, thoughtSignature: 'skip_thought_signature_validator' });
    expect(modelPart('models/gemini-3.1-flash')).toHaveProperty('thoughtSignature');
    expect(modelPart('gemini-2.5-flash')).toEqual({ functionCall: { name: 'w', args: {} } });
  });

  it('refuses a seed beyond int32 and the user field', () => {
    expect(() => buildGenerateContentBody(completionCall({ model: 'g', prompt: 'p', seed: 2 ** 31 }), 'google')).toThrow(/'seed'/);
    expect(() => buildGenerateContentBody(completionCall({ model: 'g', prompt: 'p', user: 'u' }), 'google')).toThrow(/'user'/);
  });
});

describe('mapFinishReason', () => {
  it.each([
    ['STOP', 'stop'],
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content_filter'],
    ['RECITATION', 'content_filter'],
    ['BLOCKLIST', 'content_filter'],
    ['PROHIBITED_CONTENT', 'content_filter'],
    ['SPII', 'content_filter'],
    ['OTHER', 'stop'],
    ['MALFORMED_FUNCTION_CALL', 'stop'],
    [undefined, null],
  ])('maps %s to %s', (reason, expected) => {
    expect(mapFinishReason(reason)).toBe(expected);
  });
});

describe('usage', () => {
  it('takes promptTokenCount as is (cached tokens are inside it) and adds thinking tokens to completion tokens', () => {
    expect(toOpenAIUsage({ promptTokenCount: 100, cachedContentTokenCount: 60, candidatesTokenCount: 10, thoughtsTokenCount: 5 })).toEqual({
      prompt_tokens: 100,
      completion_tokens: 15,
      total_tokens: 115,
      prompt_tokens_details: { cached_tokens: 60 },
    });
  });
});

describe('mapGenerateContentResponse', () => {
  it('answers a chat.completion from the first candidate, without thought parts', () => {
    const answer = mapGenerateContentResponse(chatCall({ model: 'g', messages: [{ role: 'user', content: 'x' }] }), {
      candidates: [{ content: { role: 'model', parts: [{ text: 'plan', thought: true }, { text: 'Answer' }] }, finishReason: 'SAFETY' }],
      usageMetadata: { promptTokenCount: 2, candidatesTokenCount: 1 },
      responseId: 'rid',
      modelVersion: 'gemini-x-001',
    });
    expect(answer).toMatchObject({ id: 'rid', object: 'chat.completion', model: 'gemini-x-001', choices: [{ message: { content: 'Answer' }, finish_reason: 'content_filter' }] });
  });
});

describe('createGenerateContentStreamTranslator', () => {
  it('names the role once, in the first chat chunk, and puts finish_reason in its own chunk', () => {
    const translator = createGenerateContentStreamTranslator(chatCall({ model: 'g', messages: [{ role: 'user', content: 'x' }], stream: true }));
    const out = [
      ...translator.onEvent(sse({ candidates: [{ content: { parts: [{ text: 'A' }] } }], responseId: 'r' })),
      ...translator.onEvent(sse({ candidates: [{ content: { parts: [{ text: 'B' }] }, finishReason: 'STOP' }], responseId: 'r' })),
      ...translator.onEnd(),
    ] as { choices: { delta: object; finish_reason: string | null }[] }[];
    expect(out.map((chunk) => chunk.choices[0])).toEqual([
      { index: 0, delta: { role: 'assistant', content: 'A' }, logprobs: null, finish_reason: null },
      { index: 0, delta: { content: 'B' }, logprobs: null, finish_reason: null },
      { index: 0, delta: {}, logprobs: null, finish_reason: 'stop' },
    ]);
  });

  it('throws on an error object in the stream and on a stream without finishReason', () => {
    const failing = createGenerateContentStreamTranslator(completionCall({ model: 'g', prompt: 'p', stream: true }));
    expect(() => failing.onEvent(sse({ error: { code: 500, message: 'Internal error', status: 'INTERNAL' } }))).toThrow(expect.objectContaining({ message: 'Internal error', code: 'INTERNAL' }));
    const cut = createGenerateContentStreamTranslator(completionCall({ model: 'g', prompt: 'p', stream: true }));
    cut.onEvent(sse({ candidates: [{ content: { parts: [{ text: 'A' }] } }] }));
    expect(() => cut.onEnd()).toThrow(ProviderStreamError);
  });
});

describe('mapGoogleError', () => {
  it('reads the error object, also when wrapped in an array', () => {
    const error = { error: { code: 404, message: 'models/x is not found', status: 'NOT_FOUND' } };
    expect(mapGoogleError(404, JSON.stringify(error))).toEqual({ message: 'models/x is not found', type: 'not_found_error', code: 'NOT_FOUND' });
    expect(mapGoogleError(404, JSON.stringify([error]))).toEqual({ message: 'models/x is not found', type: 'not_found_error', code: 'NOT_FOUND' });
  });
});

describe('Gemini API URLs', () => {
  it('prefixes models/ unless the name is already a full resource name', () => {
    expect(geminiModelPath('gemini-2.0-flash')).toBe('models/gemini-2.0-flash');
    expect(geminiModelPath('models/gemini-2.0-flash')).toBe('models/gemini-2.0-flash');
    expect(geminiModelPath('tunedModels/my-model')).toBe('tunedModels/my-model');
    expect(geminiModelPath('evil?x=1')).toBe('models/evil%3Fx%3D1');
  });

  it('appends the method to a custom host with a path and adds alt=sse for streams', () => {
    expect(googleMethodUrl('http://proxy.local/gemini', '/v1beta/models/g', 'streamGenerateContent', true)).toBe('http://proxy.local/gemini/v1beta/models/g:streamGenerateContent?alt=sse');
    expect(googleMethodUrl('https://generativelanguage.googleapis.com', '/v1beta/models/g', 'generateContent', false)).toBe('https://generativelanguage.googleapis.com/v1beta/models/g:generateContent');
  });
});
