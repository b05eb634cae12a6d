import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { answerEvents, foldEvents, type CanonicalEvent, type CanonicalRequest, type EncodeTarget, type UpstreamEvent } from '../../../src-main/codecs/canonical.js';
import { geminiProvider, SKIP_THOUGHT_SIGNATURE } from '../../../src-main/codecs/gemini/index.js';
import { GatewayError } from '../../../src-main/core/errors.js';
import { ProviderStreamError } from '../../../src-main/core/provider-stream-error.js';
import { geminiRequestProblem } from '../../fakes/gemini.js';

const GOOGLE: EncodeTarget = { provider: 'google', modelInBody: false };

function request(fields: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    dialect: 'openai-chat',
    onUnsupported: 'refuse',
    model: 'gemini-2.5-flash',
    system: [],
    turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
    stream: false,
    extensions: {},
    ...fields,
  };
}

/** Encodes and checks the body against what the real API accepts. */
function encode(fields: Partial<CanonicalRequest> = {}, target = GOOGLE) {
  const encoded = geminiProvider.encodeRequest(request(fields), target);
  expect(geminiRequestProblem(encoded.body)).toBeUndefined();
  return encoded;
}

const refusal = (fields: Partial<CanonicalRequest>): GatewayError => {
  try {
    geminiProvider.encodeRequest(request(fields), GOOGLE);
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error('expected a refusal');
};

const sse = (data: object): UpstreamEvent => ({ kind: 'sse', data: JSON.stringify(data) });

const WEATHER = { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } };

describe('gemini: a canonical request becomes a generateContent body', () => {
  it.each<[string, Partial<CanonicalRequest>, object | undefined]>([
    ['the sampling fields', { maxOutputTokens: 5, temperature: 2, topP: 0.5, topK: 40, stop: ['x'], seed: -3, presencePenalty: 1, frequencyPenalty: 2 }, { maxOutputTokens: 5, temperature: 2, topP: 0.5, topK: 40, stopSequences: ['x'], seed: -3, presencePenalty: 1, frequencyPenalty: 2 }],
    ['no config at all when nothing is asked (no made-up token limit)', {}, undefined],
    ['penalties of 0 left out', { presencePenalty: 0, frequencyPenalty: 0 }, undefined],
    ['log probabilities with alternatives', { logprobs: { top: 3 } }, { responseLogprobs: true, logprobs: 3 }],
    ['log probabilities of the chosen token only', { logprobs: { top: 0 } }, { responseLogprobs: true }],
    ['JSON output', { responseFormat: { type: 'json_object' } }, { responseMimeType: 'application/json' }],
    ['JSON following a schema', { responseFormat: { type: 'json_schema', name: 'r', schema: { type: 'object' } } }, { responseMimeType: 'application/json', responseJsonSchema: { type: 'object' } }],
    ['plain text output (the default)', { responseFormat: { type: 'text' } }, undefined],
    ['a thinking budget', { reasoning: { enabled: true, budgetTokens: 2048 } }, { thinkingConfig: { thinkingBudget: 2048, includeThoughts: true } }],
    ['an effort as a budget on Gemini 2.5', { reasoning: { enabled: true, effort: 'low' } }, { thinkingConfig: { thinkingBudget: 1024, includeThoughts: true } }],
    ['an effort as a thinking level on Gemini 3', { model: 'gemini-3-flash-preview', reasoning: { enabled: true, effort: 'medium', budgetTokens: 9000 } }, { thinkingConfig: { thinkingLevel: 'MEDIUM', includeThoughts: true } }],
    ['an effort as one of the two levels of Gemini 3 Pro', { model: 'gemini-3-pro-preview', reasoning: { enabled: true, effort: 'medium' } }, { thinkingConfig: { thinkingLevel: 'HIGH', includeThoughts: true } }],
    ['a budget on Gemini 3 when no effort is named', { model: 'gemini-3-pro-preview', reasoning: { enabled: true, budgetTokens: 4096 } }, { thinkingConfig: { thinkingBudget: 4096, includeThoughts: true } }],
    ['dynamic thinking when reasoning is on without a size', { reasoning: { enabled: true } }, { thinkingConfig: { thinkingBudget: -1, includeThoughts: true } }],
    ['thinking turned off on Gemini 2.5', { reasoning: { enabled: false } }, { thinkingConfig: { thinkingBudget: 0 } }],
  ])('maps %s into generationConfig', (_name, fields, config) => {
    const { body } = encode(fields);
    if (config === undefined) expect(body).not.toHaveProperty('generationConfig');
    else expect(body.generationConfig).toEqual(config);
  });

  it('puts system text, developer text and mid-conversation system turns in systemInstruction, and the assistant as model', () => {
    const { body } = encode({
      system: [{ type: 'text', text: 'd' }],
      turns: [
        { role: 'user', parts: [{ type: 'text', text: 'u' }] },
        { role: 'assistant', parts: [{ type: 'text', text: 'a' }] },
        { role: 'system', parts: [{ type: 'text', text: 's' }] },
        { role: 'user', parts: [{ type: 'text', text: 'again' }] },
      ],
    });
    expect(body).toEqual({
      contents: [
        { role: 'user', parts: [{ text: 'u' }] },
        { role: 'model', parts: [{ text: 'a' }] },
        { role: 'user', parts: [{ text: 'again' }] },
      ],
      systemInstruction: { parts: [{ text: 'd' }, { text: 's' }] },
    });
  });

  it('sends the model in the body only when the target wants it there', () => {
    expect(encode()).not.toHaveProperty('body.model');
    expect(encode({}, { provider: 'x', modelInBody: true }).body.model).toBe('gemini-2.5-flash');
  });

  it('drops empty text, skips model turns left empty and merges consecutive turns of one role', () => {
    const { body } = encode({
      turns: [
        { role: 'user', parts: [{ type: 'text', text: 'one' }, { type: 'text', text: '' }] },
        { role: 'assistant', parts: [{ type: 'text', text: '' }] },
        { role: 'user', parts: [{ type: 'text', text: 'two' }] },
      ],
    });
    expect(body.contents).toEqual([{ role: 'user', parts: [{ text: 'one' }, { text: 'two' }] }]);
  });

  it('refuses a user turn left empty (Gemini refuses a content without parts), naming the message it came from', () => {
    const turns: CanonicalRequest['turns'] = [
      { role: 'user', parts: [{ type: 'text', text: 'one' }], source: 'messages[0]' },
      { role: 'user', parts: [{ type: 'text', text: '' }], source: 'messages[1]' },
    ];
    expect(() => encode({ turns })).toThrow(expect.objectContaining({ status: 400, param: 'messages[1].content', message: expect.stringMatching(/must not be empty: provider 'google'/) }));
  });

  it('sends a base64 image as inlineData', () => {
    const { body } = encode({ turns: [{ role: 'user', parts: [{ type: 'text', text: 'What is this?' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/4AAQ' } }] }] });
    expect(body.contents).toEqual([{ role: 'user', parts: [{ text: 'What is this?' }, { inlineData: { mimeType: 'image/jpeg', data: '/9j/4AAQ' } }] }]);
  });

  it('declares tools as functionDeclarations with their JSON Schema', () => {
    const { body } = encode({ tools: [WEATHER, { name: 'noop', parameters: { type: 'object' } }] });
    expect(body.tools).toEqual([{ functionDeclarations: [{ name: 'get_weather', description: 'Weather in a city', parametersJsonSchema: WEATHER.parameters }, { name: 'noop', parametersJsonSchema: { type: 'object' } }] }]);
    expect(body).not.toHaveProperty('toolConfig');
  });

  it.each<[CanonicalRequest['toolChoice'], object]>([
    [{ mode: 'auto' }, { mode: 'AUTO' }],
    [{ mode: 'none' }, { mode: 'NONE' }],
    [{ mode: 'required' }, { mode: 'ANY' }],
    [{ mode: 'tool', name: 'get_weather' }, { mode: 'ANY', allowedFunctionNames: ['get_weather'] }],
  ])('maps the tool choice %j to functionCallingConfig %j', (toolChoice, config) => {
    expect(encode({ tools: [WEATHER], toolChoice }).body.toolConfig).toEqual({ functionCallingConfig: config });
  });

  const toolTurn = (resultName?: string): CanonicalRequest['turns'] => [
    { role: 'user', parts: [{ type: 'text', text: 'Weather in Paris?' }] },
    { role: 'assistant', parts: [{ type: 'text', text: '' }, { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
    { role: 'user', parts: [{ type: 'tool_result', callId: 'call_1', ...(resultName ? { name: resultName } : {}), content: '{"celsius":18}' }] },
  ];

  it('sends a call and its result as functionCall and functionResponse, naming the tool from the call', () => {
    const { body } = encode({ tools: [WEATHER], turns: toolTurn() });
    expect(body.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { celsius: 18 } } }] },
    ]);
  });

  it('wraps a result that is not a JSON object, and a failed one under error', () => {
    const { body } = encode({
      turns: [
        { role: 'user', parts: [{ type: 'text', text: 'Go' }] },
        { role: 'assistant', parts: [{ type: 'tool_call', id: 'a', name: 'f', arguments: '' }, { type: 'tool_call', id: 'b', name: 'g', arguments: '{}' }] },
        { role: 'user', parts: [{ type: 'tool_result', callId: 'a', content: [{ type: 'text', text: 'sunny' }] }, { type: 'tool_result', callId: 'b', content: 'boom', isError: true }] },
        { role: 'user', parts: [{ type: 'text', text: 'and?' }] },
      ],
    });
    expect((body.contents as object[]).slice(1)).toEqual([
      { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }, { functionCall: { name: 'g', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'f', response: { content: 'sunny' } } }, { functionResponse: { name: 'g', response: { error: 'boom' } } }, { text: 'and?' }] },
    ]);
  });

  it('marks replayed function calls for Gemini 3 and later, unless the thought signature came back with them', () => {
    const modelTurn = (model: string, turns = toolTurn()) => (encode({ model, turns }).body.contents as { parts: object[] }[])[1].parts;
    expect(modelTurn('gemini-3-pro-preview')).toEqual([{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: SKIP_THOUGHT_SIGNATURE }]);
    expect(modelTurn('models/gemini-3.1-flash')[0]).toHaveProperty('thoughtSignature', SKIP_THOUGHT_SIGNATURE);
    expect(modelTurn('gemini-2.5-flash')).toEqual([{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }]);
    const signed = toolTurn();
    signed[1].parts.unshift({ type: 'reasoning', text: 'I should look it up', signature: 'sig-1' });
    expect(modelTurn('gemini-3-pro-preview', signed)).toEqual([{ functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'sig-1' }]);
  });

  it('gives a thought signature back on the part it came with, also when Gemini sent it on an empty last part', () => {
    const answer = geminiProvider.decodeResponse({ candidates: [{ content: { parts: [{ text: 'plan', thought: true }, { text: 'Answer' }, { text: '', thoughtSignature: 'sig-2' }] }, finishReason: 'STOP' }] }, request());
    const { body } = encode({ model: 'gemini-3-pro-preview', turns: [{ role: 'user', parts: [{ type: 'text', text: 'Q' }] }, { role: 'assistant', parts: answer.content }, { role: 'user', parts: [{ type: 'text', text: 'More' }] }] });
    expect((body.contents as object[])[1]).toEqual({ role: 'model', parts: [{ text: 'Answer', thoughtSignature: 'sig-2' }] });
  });

  it('puts function responses first when a tool result and user text share a turn', () => {
    const { body } = encode({ turns: [...toolTurn().slice(0, 2), { role: 'user', parts: [{ type: 'text', text: 'Also this' }] }, toolTurn()[2]] });
    expect((body.contents as object[])[2]).toEqual({ role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { celsius: 18 } } }, { text: 'Also this' }] });
  });

  it('leaves out what it cannot honour and lists it when the client asked to drop', () => {
    const encoded = encode({ onUnsupported: 'drop', dialect: 'anthropic-messages', user: 'u', parallelToolCalls: false, seed: 2 ** 40, extensions: { context_management: {} } });
    expect(encoded.dropped).toEqual(['metadata.user_id', 'tool_choice.disable_parallel_tool_use', 'context_management', 'seed']);
    expect(encoded.body).not.toHaveProperty('generationConfig');
  });

  it.each<[string, Partial<CanonicalRequest>, string, RegExp]>([
    ['a seed beyond int32', { seed: 2 ** 31 }, 'seed', /outside the 32-bit integer range/],
    ['more than 20 log probability alternatives', { dialect: 'openai-responses', logprobs: { top: 21 } }, 'top_logprobs', /more than 20/],
    ['the user field', { user: 'u' }, 'user', /'user' is not supported by provider 'google'/],
    ['parallel_tool_calls false', { tools: [WEATHER], parallelToolCalls: false }, 'parallel_tool_calls', /not supported/],
    ['a field of another dialect', { extensions: { logit_bias: { '1': 5 } } }, 'logit_bias', /not supported/],
    ['thinking turned off on Gemini 3', { model: 'gemini-3-flash', reasoning: { enabled: false } }, 'reasoning_effort', /always think/],
  ])('refuses %s with a 400 naming the field', (_name, fields, param, message) => {
    const error = refusal(fields);
    expect(error).toMatchObject({ status: 400, param, provider: 'google' });
    expect(error.message).toMatch(message);
  });

  it.each<[string, Partial<CanonicalRequest>, RegExp]>([
    ['an image given by web address', { onUnsupported: 'drop', turns: [{ role: 'user', parts: [{ type: 'image', source: { kind: 'url', url: 'https://example.com/cat.jpg' } }] }] }, /data: URL/],
    ['a tool result whose call is unknown', { onUnsupported: 'drop', turns: [{ role: 'user', parts: [{ type: 'tool_result', callId: 'nope', content: 'x' }] }] }, /nope/],
    ['a conversation of system messages only', { onUnsupported: 'drop', turns: [{ role: 'system', parts: [{ type: 'text', text: 'Be brief' }] }] }, /at least one user or assistant message/],
    ['tool call arguments that are not JSON', { turns: [{ role: 'user', parts: [{ type: 'text', text: 'x' }] }, { role: 'assistant', parts: [{ type: 'tool_call', id: 'c', name: 'f', arguments: '{oops' }] }] }, /not valid JSON/],
  ])('refuses %s whatever the policy, naming the messages field', (_name, fields, message) => {
    const error = refusal(fields);
    expect(error).toMatchObject({ status: 400, param: 'messages' });
    expect(error.message).toMatch(message);
  });
});

describe('gemini: an answer becomes canonical', () => {
  it('reads text, thought summaries as reasoning, usage and the model version', () => {
    const answer = geminiProvider.decodeResponse(
      {
        candidates: [{ content: { role: 'model', parts: [{ text: 'plan', thought: true }, { text: 'Answer', thoughtSignature: 'sig' }] }, finishReason: 'STOP' }],
        usageMetadata: { promptTokenCount: 100, cachedContentTokenCount: 60, candidatesTokenCount: 10, thoughtsTokenCount: 5 },
        responseId: 'rid',
        modelVersion: 'gemini-x-001',
      },
      request(),
    );
    expect(answer).toEqual({
      id: 'rid',
      model: 'gemini-x-001',
      content: [
        { type: 'reasoning', text: 'plan', signature: 'sig' },
        { type: 'text', text: 'Answer' },
      ],
      finishReason: 'stop',
      usage: { inputTokens: 100, outputTokens: 15, cacheReadTokens: 60, reasoningTokens: 5 },
    });
  });

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
  ])('maps the finishReason %s to %s', (finishReason, expected) => {
    const answer = geminiProvider.decodeResponse({ candidates: [{ content: { parts: [{ text: 'x' }] }, finishReason }] }, request());
    expect(answer.finishReason).toBe(expected);
  });

  it('answers a blocked prompt with content_filter and falls back to the requested model', () => {
    const answer = geminiProvider.decodeResponse({ promptFeedback: { blockReason: 'SAFETY' }, usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 } }, request());
    expect(answer).toMatchObject({ model: 'gemini-2.5-flash', content: [], finishReason: 'content_filter', usage: { inputTokens: 7, outputTokens: 0 } });
    expect(answer.id).toMatch(/^gen-/);
  });

  it('reads function calls as tool calls with ids made up when Gemini gives none, and finishes with tool_calls', () => {
    const answer = geminiProvider.decodeResponse(
      { candidates: [{ content: { parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }, { functionCall: { id: 'own', name: 'noop' } }] }, finishReason: 'STOP' }] },
      request(),
    );
    expect(answer.content).toEqual([
      { type: 'tool_call', id: expect.stringMatching(/^call_[0-9a-f]{24}$/), name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'tool_call', id: 'own', name: 'noop', arguments: '{}' },
    ]);
    expect(answer.finishReason).toBe('tool_calls');
  });

  it('reads log probabilities step by step with their alternatives', () => {
    const answer = geminiProvider.decodeResponse(
      {
        candidates: [
          {
            content: { parts: [{ text: 'Hi there' }] },
            finishReason: 'STOP',
            logprobsResult: { chosenCandidates: [{ token: 'Hi', logProbability: -0.5 }, { token: ' there', logProbability: -1 }], topCandidates: [{ candidates: [{ token: 'Hi', logProbability: -0.5 }, { token: '?', logProbability: -9 }] }] },
          },
        ],
      },
      request({ logprobs: { top: 2 } }),
    );
    expect(answer.logprobs).toEqual([
      { token: 'Hi', logprob: -0.5, top: [{ token: 'Hi', logprob: -0.5 }, { token: '?', logprob: -9 }] },
      { token: ' there', logprob: -1, top: [] },
    ]);
  });
});

describe('gemini: a stream becomes canonical events', () => {
  const replay = (events: UpstreamEvent[], fields: Partial<CanonicalRequest> = {}): CanonicalEvent[] => {
    const decoder = geminiProvider.createStreamDecoder(request({ stream: true, ...fields }));
    expect(decoder.framing).toBe('sse');
    return [...events.flatMap((event) => decoder.onEvent(event)), ...decoder.onEnd()];
  };

  it('replays a recorded stream with thinking, text, a function call and usage', () => {
    const fixture = readFileSync(new URL('./__fixtures__/gemini-stream.sse', import.meta.url), 'utf8');
    const events = replay(fixture.split('\n\n').filter((block) => block.startsWith('data: ')).map((block) => ({ kind: 'sse', data: block.slice('data: '.length) })));
    expect(events).toEqual([
      { type: 'start', id: 'resp-1', model: 'gemini-2.5-flash' },
      { type: 'reasoning', text: 'The user wants the weather.' },
      { type: 'usage', usage: { inputTokens: 12, outputTokens: 4, reasoningTokens: 4 } },
      { type: 'text', text: 'Let me check' },
      { type: 'usage', usage: { inputTokens: 12, outputTokens: 7, reasoningTokens: 4 } },
      { type: 'reasoning_signature', signature: 'c2lnbmF0dXJl' },
      { type: 'tool_call_start', index: 0, id: expect.stringMatching(/^call_/), name: 'get_weather' },
      { type: 'tool_call_delta', index: 0, arguments: '{"city":"Paris"}' },
      { type: 'tool_call_end', index: 0 },
      { type: 'usage', usage: { inputTokens: 12, outputTokens: 14, cacheReadTokens: 8, reasoningTokens: 4 } },
      { type: 'finish', reason: 'tool_calls' },
    ]);
    const answer = foldEvents(events, { id: 'x', model: 'y' });
    expect(answer.content.map((part) => part.type)).toEqual(['reasoning', 'text', 'reasoning', 'tool_call']);
    // Folded and unfolded again, the answer tells the same story.
    expect(foldEvents(answerEvents(answer), { id: 'x', model: 'y' })).toEqual(answer);
  });

  it('stops on MAX_TOKENS with finish length', () => {
    const events = replay([
      sse({ candidates: [{ content: { role: 'model', parts: [{ text: 'Once upon' }] }, index: 0 }], responseId: 'r2', modelVersion: 'gemini-2.0-flash' }),
      sse({ candidates: [{ content: { role: 'model', parts: [{ text: ' a time' }] }, index: 0, finishReason: 'MAX_TOKENS' }], usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 4 }, responseId: 'r2' }),
    ]);
    expect(events.filter((event) => event.type === 'text' || event.type === 'finish')).toEqual([
      { type: 'text', text: 'Once upon' },
      { type: 'text', text: ' a time' },
      { type: 'finish', reason: 'length' },
    ]);
  });

  it('streams log probabilities with each piece of text', () => {
    const events = replay([sse({ candidates: [{ content: { parts: [{ text: 'Hi' }] }, finishReason: 'STOP', logprobsResult: { chosenCandidates: [{ token: 'Hi', logProbability: -0.25 }], topCandidates: [] } }] })], { logprobs: { top: 0 } });
    expect(events).toContainEqual({ type: 'logprobs', tokens: [{ token: 'Hi', logprob: -0.25, top: [] }] });
  });

  it('throws the error object Gemini sends in the middle of a stream', () => {
    const decoder = geminiProvider.createStreamDecoder(request({ stream: true }));
    decoder.onEvent(sse({ candidates: [{ content: { parts: [{ text: 'partial' }] } }] }));
    expect(() => decoder.onEvent(sse({ error: { code: 500, message: 'Internal error', status: 'INTERNAL' } }))).toThrow(expect.objectContaining({ message: 'Internal error', code: 'INTERNAL', type: 'api_error' }));
    expect(() => decoder.onEvent(sse({ error: { code: 429, message: 'Slow down', status: 'RESOURCE_EXHAUSTED' } }))).toThrow(expect.objectContaining({ type: 'rate_limit_error' }));
  });

  it('throws stream_incomplete for a stream that ends before a finishReason', () => {
    const decoder = geminiProvider.createStreamDecoder(request({ stream: true }));
    decoder.onEvent(sse({ candidates: [{ content: { parts: [{ text: 'cut' }] } }] }));
    expect(() => decoder.onEnd()).toThrow(ProviderStreamError);
    expect(() => decoder.onEnd()).toThrow(expect.objectContaining({ code: 'stream_incomplete' }));
  });

  it('throws on an event that is not JSON', () => {
    const decoder = geminiProvider.createStreamDecoder(request({ stream: true }));
    expect(() => decoder.onEvent({ kind: 'sse', data: '{nope' })).toThrow(expect.objectContaining({ code: 'bad_provider_stream' }));
  });
});
