import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bedrockConverseProvider } from '../../../src-main/codecs/bedrock-converse/index.js';
import { answerEvents, foldEvents, type CanonicalEvent, type CanonicalRequest, type EncodeTarget, type Turn, type UpstreamEvent } from '../../../src-main/codecs/canonical.js';
import { GatewayError } from '../../../src-main/core/errors.js';
import { ProviderStreamError } from '../../../src-main/core/provider-stream-error.js';
import { converseRequestProblem } from '../../fakes/bedrock.js';

const BEDROCK: EncodeTarget = { provider: 'bedrock', modelInBody: false };
const CLAUDE = 'anthropic.claude-sonnet-4-5-20250929-v1:0';

function request(fields: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    dialect: 'openai-chat',
    onUnsupported: 'refuse',
    model: 'amazon.nova-lite-v1:0',
    system: [],
    turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }],
    stream: false,
    extensions: {},
    ...fields,
  };
}

/** Encodes and checks the body against what the real API accepts. */
function encode(fields: Partial<CanonicalRequest> = {}) {
  const encoded = bedrockConverseProvider.encodeRequest(request(fields), BEDROCK);
  expect(converseRequestProblem(encoded.body)).toBeUndefined();
  return encoded;
}

const refusal = (fields: Partial<CanonicalRequest>): GatewayError => {
  try {
    bedrockConverseProvider.encodeRequest(request(fields), BEDROCK);
  } catch (error) {
    return error as GatewayError;
  }
  throw new Error('expected a refusal');
};

const frame = (eventType: string, body: object): UpstreamEvent => ({
  kind: 'frame',
  headers: { ':event-type': eventType, ':content-type': 'application/json', ':message-type': 'event' },
  payload: Buffer.from(JSON.stringify(body)),
});

const WEATHER = { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } };

const toolRound: Turn[] = [
  { role: 'user', parts: [{ type: 'text', text: 'Weather in Paris?' }] },
  { role: 'assistant', parts: [{ type: 'text', text: '' }, { type: 'tool_call', id: 'tooluse_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
  { role: 'user', parts: [{ type: 'tool_result', callId: 'tooluse_1', content: '{"celsius":18}' }] },
];

describe('bedrock-converse: a canonical request becomes a Converse body', () => {
  it('maps the sampling fields into inferenceConfig and top_k into additionalModelRequestFields', () => {
    const { body } = encode({ maxOutputTokens: 5, temperature: 0.5, topP: 0.9, stop: ['x'], topK: 40 });
    expect(body).toEqual({
      messages: [{ role: 'user', content: [{ text: 'Hi' }] }],
      inferenceConfig: { maxTokens: 5, temperature: 0.5, topP: 0.9, stopSequences: ['x'] },
      additionalModelRequestFields: { top_k: 40 },
    });
  });

  it.each<[string, Partial<CanonicalRequest>, object | undefined]>([
    ['a chat without max_tokens has no limit of its own', {}, undefined],
    ['a legacy completion without max_tokens means 16', { dialect: 'openai-completions' }, { maxTokens: 16 }],
    ['an empty stop list is left out', { stop: [] }, undefined],
  ])('%s', (_name, fields, inferenceConfig) => {
    const { body } = encode(fields);
    if (inferenceConfig === undefined) expect(body).not.toHaveProperty('inferenceConfig');
    else expect(body.inferenceConfig).toEqual(inferenceConfig);
  });

  it('puts the system text and mid-conversation system turns in system blocks, and the model in the URL only', () => {
    const { body } = encode({
      system: [{ type: 'text', text: 'Be brief.', cacheControl: { type: 'ephemeral' } }, { type: 'text', text: '  ' }],
      turns: [
        { role: 'user', parts: [{ type: 'text', text: 'Hello' }] },
        { role: 'system', parts: [{ type: 'text', text: 'Now in French.' }] },
        { role: 'assistant', parts: [{ type: 'text', text: 'Salut' }] },
      ],
    });
    expect(body).toEqual({
      messages: [
        { role: 'user', content: [{ text: 'Hello' }] },
        { role: 'assistant', content: [{ text: 'Salut' }] },
      ],
      system: [{ text: 'Be brief.' }, { text: 'Now in French.' }],
    });
  });

  it('drops blank text, skips turns left empty and merges consecutive turns of one role', () => {
    const { body } = encode({
      turns: [
        { role: 'user', parts: [{ type: 'text', text: 'one' }] },
        { role: 'assistant', parts: [{ type: 'text', text: ' \n' }] },
        { role: 'user', parts: [{ type: 'text', text: 'two' }] },
      ],
    });
    expect(body.messages).toEqual([{ role: 'user', content: [{ text: 'one' }, { text: 'two' }] }]);
  });

  it('sends a base64 image as an image block with its format', () => {
    const { body } = encode({ turns: [{ role: 'user', parts: [{ type: 'text', text: 'What is this?' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/jpeg', data: '/9j/4AAQ' } }] }] });
    expect(body.messages).toEqual([{ role: 'user', content: [{ text: 'What is this?' }, { image: { format: 'jpeg', source: { bytes: '/9j/4AAQ' } } }] }]);
  });

  it('declares tools as toolSpecs and sends a call and its result as toolUse and toolResult blocks', () => {
    const { body } = encode({ tools: [WEATHER], turns: toolRound });
    expect(body.toolConfig).toEqual({ tools: [{ toolSpec: { name: 'get_weather', description: 'Weather in a city', inputSchema: { json: WEATHER.parameters } } }] });
    expect(body.messages).toEqual([
      { role: 'user', content: [{ text: 'Weather in Paris?' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_1', content: [{ text: '{"celsius":18}' }] } }] },
    ]);
  });

  it('puts tool results first in their user turn, marks failures and keeps images of a result', () => {
    const { body } = encode({
      tools: [WEATHER],
      turns: [
        toolRound[0],
        { role: 'assistant', parts: [{ type: 'tool_call', id: 'a', name: 'get_weather', arguments: '' }, { type: 'tool_call', id: 'b', name: 'get_weather', arguments: '{}' }] },
        { role: 'user', parts: [{ type: 'tool_result', callId: 'a', content: [{ type: 'text', text: 'sunny' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBOR' } }] }] },
        { role: 'user', parts: [{ type: 'text', text: 'and?' }, { type: 'tool_result', callId: 'b', content: '', isError: true }] },
      ],
    });
    expect((body.messages as object[])[2]).toEqual({
      role: 'user',
      content: [
        { toolResult: { toolUseId: 'a', content: [{ text: 'sunny' }, { image: { format: 'png', source: { bytes: 'iVBOR' } } }] } },
        { toolResult: { toolUseId: 'b', content: [{ text: 'error' }], status: 'error' } },
        { text: 'and?' },
      ],
    });
  });

  it('declares tools from the conversation when the request declares none, since Converse needs a toolConfig for tool blocks', () => {
    const { body } = encode({ turns: toolRound });
    expect(body.toolConfig).toEqual({ tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object' } } } }] });
  });

  it.each<[CanonicalRequest['toolChoice'], object | undefined]>([
    [{ mode: 'auto' }, { auto: {} }],
    [{ mode: 'required' }, { any: {} }],
    [{ mode: 'tool', name: 'get_weather' }, { tool: { name: 'get_weather' } }],
    [undefined, undefined],
  ])('maps the tool choice %j to %j', (toolChoice, expected) => {
    const { body } = encode({ tools: [WEATHER], toolChoice });
    expect(asToolConfig(body).toolChoice).toEqual(expected);
  });

  it('honours tool choice none by leaving the tools out of a conversation without tool calls', () => {
    expect(encode({ tools: [WEATHER], toolChoice: { mode: 'none' } }).body).not.toHaveProperty('toolConfig');
    expect(encode({ tools: [WEATHER], toolChoice: { mode: 'none' }, turns: toolRound, onUnsupported: 'drop' }).dropped).toEqual(['tool_choice']);
  });

  it('sends signed and redacted thinking back as reasoningContent, and asks Claude to think within a budget', () => {
    const { body } = encode({
      model: CLAUDE,
      reasoning: { enabled: true, effort: 'low' },
      tools: [WEATHER],
      turns: [
        toolRound[0],
        {
          role: 'assistant',
          parts: [
            { type: 'reasoning', text: 'Look it up.', signature: 'sig' },
            { type: 'reasoning', text: '', encrypted: 'cmVkYWN0ZWQ=' },
            { type: 'reasoning', text: 'unsigned thoughts go nowhere' },
            { type: 'tool_call', id: 'tooluse_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          ],
        },
        toolRound[2],
      ],
    });
    expect((body.messages as { content: object[] }[])[1].content.slice(0, 2)).toEqual([{ reasoningContent: { reasoningText: { text: 'Look it up.', signature: 'sig' } } }, { reasoningContent: { redactedContent: 'cmVkYWN0ZWQ=' } }]);
    expect((body.messages as { content: object[] }[])[1].content).toHaveLength(3);
    expect(body.additionalModelRequestFields).toEqual({ thinking: { type: 'enabled', budget_tokens: 2048 } });
  });

  it('keeps an end-user id that fits requestMetadata', () => {
    expect(encode({ user: 'user-1@example.com' }).body.requestMetadata).toEqual({ user: 'user-1@example.com' });
  });

  it('leaves out what it cannot honour and lists it when the client asked to drop', () => {
    const encoded = encode({
      dialect: 'anthropic-messages',
      onUnsupported: 'drop',
      user: '{"device_id":"abc"}',
      parallelToolCalls: false,
      reasoning: { enabled: true, effort: 'high' },
      extensions: { context_management: { edits: [] } },
    });
    expect(encoded.dropped).toEqual(['tool_choice.disable_parallel_tool_use', 'thinking', 'metadata.user_id', 'context_management']);
    expect(encoded.body).toEqual({ messages: [{ role: 'user', content: [{ text: 'Hi' }] }] });
  });

  it.each<[string, Partial<CanonicalRequest>, string, RegExp]>([
    ['a user id outside the request metadata pattern', { user: 'a\u0000b' }, 'user', /request metadata pattern/],
    ['a seed', { seed: 1 }, 'seed', /not supported by provider 'bedrock'/],
    ['a presence penalty', { presencePenalty: 1 }, 'presence_penalty', /not supported/],
    ['log probabilities', { logprobs: { top: 0 } }, 'logprobs', /no log probabilities/],
    ['JSON output', { responseFormat: { type: 'json_object' } }, 'response_format', /json_object/],
    ['parallel_tool_calls false', { tools: [WEATHER], parallelToolCalls: false }, 'parallel_tool_calls', /not supported/],
    ['a field of another dialect', { extensions: { logit_bias: {} } }, 'logit_bias', /not supported/],
  ])('refuses %s with a 400 naming the field', (_name, fields, param, message) => {
    const error = refusal(fields);
    expect(error).toMatchObject({ status: 400, param, provider: 'bedrock' });
    expect(error.message).toMatch(message);
  });

  it.each<[string, Turn[], RegExp]>([
    ['an image given by web address', [{ role: 'user', parts: [{ type: 'image', source: { kind: 'url', url: 'https://example.com/cat.jpg' } }] }], /data: URL/],
    ['an image Converse cannot read', [{ role: 'user', parts: [{ type: 'image', source: { kind: 'base64', mediaType: 'image/tiff', data: 'AAAA' } }] }], /image\/tiff/],
    ['a conversation of system messages only', [{ role: 'system', parts: [{ type: 'text', text: 'Be brief' }] }], /at least one user or assistant message/],
    ['a conversation that starts with the assistant', [{ role: 'assistant', parts: [{ type: 'text', text: 'Hello' }] }, { role: 'user', parts: [{ type: 'text', text: 'Hi' }] }], /start with a user message/],
    ['a tool result whose call is unknown', [toolRound[0], toolRound[1], { role: 'user', parts: [{ type: 'tool_result', callId: 'other', content: 'x' }] }], /'other'/],
    ['a tool call left without its result', [toolRound[0], toolRound[1], { role: 'user', parts: [{ type: 'text', text: 'never mind' }] }], /'tooluse_1' .* has no result/],
    ['tool call arguments that are not JSON', [toolRound[0], { role: 'assistant', parts: [{ type: 'tool_call', id: 'c', name: 'f', arguments: '{oops' }] }, { role: 'user', parts: [{ type: 'tool_result', callId: 'c', content: 'x' }] }], /not valid JSON/],
  ])('refuses %s whatever the policy, naming the messages field', (_name, turns, message) => {
    const error = refusal({ turns, onUnsupported: 'drop' });
    expect(error).toMatchObject({ status: 400, param: 'messages' });
    expect(error.message).toMatch(message);
  });
});

const asToolConfig = (body: Record<string, unknown>) => body.toolConfig as { toolChoice?: unknown };

describe('bedrock-converse: an answer becomes canonical', () => {
  it('reads text, reasoning, tool uses, the stop reason and usage with cached tokens counted as input', () => {
    const answer = bedrockConverseProvider.decodeResponse(
      {
        output: {
          message: {
            role: 'assistant',
            content: [
              { reasoningContent: { reasoningText: { text: 'Think.', signature: 'sig' } } },
              { reasoningContent: { redactedContent: 'cmVk' } },
              { text: 'Checking' },
              { text: ' now.' },
              { toolUse: { toolUseId: 'tooluse_1', name: 'get_weather', input: { city: 'Paris' } } },
            ],
          },
        },
        stopReason: 'tool_use',
        usage: { inputTokens: 7, outputTokens: 5, totalTokens: 15, cacheReadInputTokens: 2, cacheWriteInputTokens: 1 },
        metrics: { latencyMs: 12 },
      },
      request({ model: CLAUDE }),
    );
    expect(answer).toEqual({
      id: expect.stringMatching(/^bedrock-/),
      model: CLAUDE,
      content: [
        { type: 'reasoning', text: 'Think.', signature: 'sig' },
        { type: 'reasoning', text: '', encrypted: 'cmVk' },
        { type: 'text', text: 'Checking now.' },
        { type: 'tool_call', id: 'tooluse_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      ],
      finishReason: 'tool_calls',
      usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 2, cacheWriteTokens: 1 },
    });
  });

  it.each([
    ['end_turn', 'stop'],
    ['tool_use', 'tool_calls'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['stop_sequence', 'stop_sequence'],
    ['guardrail_intervened', 'content_filter'],
    ['content_filtered', 'content_filter'],
    ['something_new', 'stop'],
  ])('maps the stopReason %s to %s', (stopReason, expected) => {
    expect(bedrockConverseProvider.decodeResponse({ output: { message: { content: [{ text: 'x' }] } }, stopReason }, request()).finishReason).toBe(expected);
  });
});

describe('bedrock-converse: a ConverseStream becomes canonical events', () => {
  const replay = (frames: UpstreamEvent[]): CanonicalEvent[] => {
    const decoder = bedrockConverseProvider.createStreamDecoder(request({ stream: true, model: CLAUDE }));
    expect(decoder.framing).toBe('aws-eventstream');
    return [...frames.flatMap((event) => decoder.onEvent(event)), ...decoder.onEnd()];
  };

  it('replays a recorded stream with thinking, text, a tool use and usage', () => {
    const fixture = JSON.parse(readFileSync(new URL('./__fixtures__/bedrock-converse-stream.json', import.meta.url), 'utf8')) as { event: string; body: object }[];
    const events = replay(fixture.map(({ event, body }) => frame(event, body)));
    expect(events).toEqual([
      { type: 'start', id: expect.stringMatching(/^bedrock-/), model: CLAUDE },
      { type: 'reasoning', text: 'The user wants ' },
      { type: 'reasoning', text: 'the weather.' },
      { type: 'reasoning_signature', signature: 'EqQBCkYIARgC' },
      { type: 'text', text: 'Let me' },
      { type: 'text', text: ' check.' },
      { type: 'tool_call_start', index: 0, id: 'tooluse_abc123', name: 'get_weather' },
      { type: 'tool_call_delta', index: 0, arguments: '{"city":' },
      { type: 'tool_call_delta', index: 0, arguments: '"Paris"}' },
      { type: 'tool_call_end', index: 0 },
      { type: 'usage', usage: { inputTokens: 10, outputTokens: 5, cacheReadTokens: 2, cacheWriteTokens: 1 } },
      { type: 'finish', reason: 'tool_calls' },
    ]);
    const answer = foldEvents(events, { id: 'x', model: 'y' });
    expect(answer.content).toEqual([
      { type: 'reasoning', text: 'The user wants the weather.', signature: 'EqQBCkYIARgC' },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_call', id: 'tooluse_abc123', name: 'get_weather', arguments: '{"city":"Paris"}' },
    ]);
    expect(foldEvents(answerEvents(answer), { id: 'x', model: 'y' })).toEqual(answer);
  });

  it('reads redacted thinking as encrypted reasoning', () => {
    const events = replay([frame('messageStart', { role: 'assistant' }), frame('contentBlockDelta', { contentBlockIndex: 0, delta: { reasoningContent: { redactedContent: 'cmVk' } } }), frame('messageStop', { stopReason: 'end_turn' })]);
    expect(events.slice(1)).toEqual([
      { type: 'reasoning_encrypted', data: 'cmVk' },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('throws the exception Bedrock sends in the middle of a stream, typed by its name', () => {
    const decoder = bedrockConverseProvider.createStreamDecoder(request({ stream: true }));
    decoder.onEvent(frame('messageStart', { role: 'assistant' }));
    const exception = (type: string, message: string): UpstreamEvent => ({ kind: 'frame', headers: { ':exception-type': type, ':content-type': 'application/json', ':message-type': 'exception' }, payload: Buffer.from(JSON.stringify({ message })) });
    expect(() => decoder.onEvent(exception('throttlingException', 'Too many requests'))).toThrow(expect.objectContaining({ message: 'Too many requests', type: 'rate_limit_error', code: 'throttlingException' }));
    expect(() => decoder.onEvent(exception('modelStreamErrorException', 'Model failed'))).toThrow(ProviderStreamError);
    expect(() => decoder.onEvent({ kind: 'frame', headers: { ':message-type': 'error', ':error-code': 'InternalFailure', ':error-message': 'Boom' }, payload: new Uint8Array() })).toThrow(expect.objectContaining({ message: 'Boom', code: 'InternalFailure' }));
  });

  it('throws stream_incomplete for a stream that ends before messageStop', () => {
    const decoder = bedrockConverseProvider.createStreamDecoder(request({ stream: true }));
    decoder.onEvent(frame('messageStart', { role: 'assistant' }));
    decoder.onEvent(frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'cut' } }));
    expect(() => decoder.onEnd()).toThrow(expect.objectContaining({ code: 'stream_incomplete' }));
  });

  it('finishes at the end when no metadata frame follows messageStop', () => {
    const events = replay([frame('messageStart', { role: 'assistant' }), frame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'cut' } }), frame('messageStop', { stopReason: 'max_tokens' })]);
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'length' });
  });

  it('throws on a frame whose payload is not JSON', () => {
    const decoder = bedrockConverseProvider.createStreamDecoder(request({ stream: true }));
    expect(() => decoder.onEvent({ kind: 'frame', headers: { ':message-type': 'event', ':event-type': 'messageStart' }, payload: Buffer.from('{nope') })).toThrow(expect.objectContaining({ code: 'bad_provider_response' }));
  });
});
