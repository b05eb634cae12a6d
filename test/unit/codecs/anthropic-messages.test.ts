import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  anthropicErrorType,
  anthropicMessagesDialect,
  anthropicMessagesProvider,
  createMessagesStreamEncoder,
} from '../../../src-main/codecs/anthropic-messages/index.js';
import { answerEvents, foldEvents, type CanonicalEvent, type CanonicalRequest, type EncodeTarget, type UpstreamEvent } from '../../../src-main/codecs/canonical.js';
import { GatewayError } from '../../../src-main/core/errors.js';
import { ProviderStreamError } from '../../../src-main/core/provider-stream-error.js';
import { decodeChatRequest } from '../../../src-main/codecs/openai-chat/index.js';
import { decodeCompletionRequest } from '../../../src-main/codecs/openai-completions/index.js';
import { decodeResponsesRequest } from '../../../src-main/codecs/openai-responses/index.js';
import { anthropicRequestProblem } from '../../fakes/anthropic.js';

const ANTHROPIC: EncodeTarget = { provider: 'anthropic', modelInBody: true };
const VERTEX: EncodeTarget = { provider: 'vertex-ai', modelInBody: false };

/** A canonical request as the Chat decoder makes one: refuse what cannot be honoured. */
function chat(fields: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    dialect: 'openai-chat',
    onUnsupported: 'refuse',
    model: 'claude-sonnet-4-5',
    system: [],
    turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hello' }] }],
    stream: false,
    extensions: {},
    ...fields,
  };
}

const encode = (request: CanonicalRequest, target = ANTHROPIC) => anthropicMessagesProvider.encodeRequest(request, target);

/** Encodes and checks the body is one the real Messages API accepts. */
function encodeAccepted(request: CanonicalRequest, target = ANTHROPIC) {
  const encoded = encode(request, target);
  expect(anthropicRequestProblem(encoded.body, { modelInBody: target.modelInBody })).toBeUndefined();
  return encoded;
}

function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error('expected a refusal');
}

/** A body as Claude Code 2.1 sends it (see dialects.md). */
const CLAUDE_CODE_BODY = {
  model: 'claude-sonnet-4-5',
  max_tokens: 32000,
  stream: true,
  system: [
    { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: { type: 'ephemeral' } },
    { type: 'text', text: 'Work in /repo.' },
  ],
  messages: [
    { role: 'user', content: [{ type: 'text', text: 'What is the weather in Paris?', cache_control: { type: 'ephemeral' } }] },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'I need the weather tool.', signature: 'sig-1' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
      ],
    },
    { role: 'system', content: 'The user is in a hurry.' },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '18C and sunny' }, { type: 'text', text: 'Thanks, and tomorrow?' }] },
  ],
  tools: [
    { name: 'get_weather', description: 'Weather in a city', input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
    { name: 'Read', description: 'Read a file', input_schema: { type: 'object', properties: {} }, defer_loading: true },
    { type: 'web_search_20250305', name: 'web_search', max_uses: 5 },
  ],
  tool_choice: { type: 'auto', disable_parallel_tool_use: true },
  metadata: { user_id: '{"device_id":"abc","session_id":"s1"}' },
  thinking: { type: 'adaptive', display: 'omitted' },
  context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] },
  output_config: { effort: 'medium' },
};

describe('decodeRequest: a Messages body as Claude Code sends it', () => {
  const request = anthropicMessagesDialect.decodeRequest(CLAUDE_CODE_BODY);

  it('reads the sampling fields, the user and the dialect, and drops rather than refuses what a target lacks', () => {
    expect(request).toMatchObject({
      dialect: 'anthropic-messages',
      onUnsupported: 'drop',
      model: 'claude-sonnet-4-5',
      maxOutputTokens: 32000,
      stream: true,
      user: '{"device_id":"abc","session_id":"s1"}',
      toolChoice: { mode: 'auto' },
      parallelToolCalls: false,
      reasoning: { enabled: true, effort: 'medium' },
    });
  });

  it('keeps system blocks with their cache_control', () => {
    expect(request.system).toEqual([
      { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude.", cacheControl: { type: 'ephemeral' } },
      { type: 'text', text: 'Work in /repo.' },
    ]);
  });

  it('reads thinking, tool_use, mid-conversation system messages and tool results into turns', () => {
    expect(request.turns).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'What is the weather in Paris?', cacheControl: { type: 'ephemeral' } }], source: 'messages[0]' },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'I need the weather tool.', signature: 'sig-1' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        ],
        source: 'messages[1]',
      },
      { role: 'system', parts: [{ type: 'text', text: 'The user is in a hurry.' }], source: 'messages[2]' },
      { role: 'user', parts: [{ type: 'tool_result', callId: 'toolu_1', content: '18C and sunny' }, { type: 'text', text: 'Thanks, and tomorrow?' }], source: 'messages[3]' },
    ]);
  });

  it('reads custom tools and keeps server tools, tool fields and unknown top-level fields as extensions by name', () => {
    expect(request.tools).toEqual([
      { name: 'get_weather', description: 'Weather in a city', parameters: CLAUDE_CODE_BODY.tools[0].input_schema },
      { name: 'Read', description: 'Read a file', parameters: { type: 'object', properties: {} } },
    ]);
    expect(request.extensions).toEqual({
      'tools[1].defer_loading': true,
      'tools[2]': { type: 'web_search_20250305', name: 'web_search', max_uses: 5 },
      'thinking.display': 'omitted',
      context_management: CLAUDE_CODE_BODY.context_management,
    });
  });

  it.each([
    [{ thinking: { type: 'enabled', budget_tokens: 2048 } }, { enabled: true, budgetTokens: 2048 }],
    [{ thinking: { type: 'disabled' } }, { enabled: false }],
    [{ thinking: { type: 'adaptive' } }, { enabled: true }],
    [{ output_config: { effort: 'max' } }, { enabled: true, effort: 'xhigh' }],
  ])('reads %j as reasoning %j', (fields, reasoning) => {
    expect(anthropicMessagesDialect.decodeRequest({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }], ...fields }).reasoning).toEqual(reasoning);
  });

  it.each([
    [{ type: 'auto' }, { mode: 'auto' }],
    [{ type: 'any' }, { mode: 'required' }],
    [{ type: 'none' }, { mode: 'none' }],
    [{ type: 'tool', name: 'get_weather' }, { mode: 'tool', name: 'get_weather' }],
  ])('reads tool_choice %j as %j', (choice, expected) => {
    expect(anthropicMessagesDialect.decodeRequest({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }], tool_choice: choice }).toolChoice).toEqual(expected);
  });

  it('reads images, redacted thinking, error tool results with blocks, and keeps a document block as an extension at its path', () => {
    const decoded = anthropicMessagesDialect.decodeRequest({
      model: 'm',
      max_tokens: 10,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'A memo' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
          ],
        },
        { role: 'assistant', content: [{ type: 'redacted_thinking', data: 'opaque' }, { type: 'tool_use', id: 't1', name: 'f', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', is_error: true, content: [{ type: 'text', text: 'boom' }] }] },
      ],
    });
    expect(decoded.turns[0].parts).toEqual([
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
    expect(decoded.extensions['messages[0].content[1]']).toEqual({ type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'A memo' } });
    expect(decoded.turns[1].parts[0]).toEqual({ type: 'reasoning', text: '', encrypted: 'opaque' });
    expect(decoded.turns[2].parts).toEqual([{ type: 'tool_result', callId: 't1', isError: true, content: [{ type: 'text', text: 'boom' }] }]);
  });

  const valid = { model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] };
  it.each([
    [{ model: '' }, 'model'],
    [{ model: undefined }, 'model'],
    [{ max_tokens: undefined }, 'max_tokens'],
    [{ max_tokens: 0 }, 'max_tokens'],
    [{ max_tokens: 1.5 }, 'max_tokens'],
    [{ messages: [] }, 'messages'],
    [{ messages: 'hi' }, 'messages'],
    [{ messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].role'],
    [{ messages: [{ role: 'user', content: 5 }] }, 'messages[0].content'],
    [{ messages: [{ role: 'user', content: [{ type: 'text' }] }] }, 'messages[0].content[0].text'],
    [{ messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file' } }] }] }, 'messages[0].content[0].source.type'],
    [{ messages: [{ role: 'user', content: [{ type: 'tool_use', id: 'a', name: 'f', input: {} }] }] }, 'messages[0].content[0]'],
    [{ messages: [{ role: 'user', content: [{ type: 'tool_result' }] }] }, 'messages[0].content[0].tool_use_id'],
    [{ messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'f', input: [] }] }] }, 'messages[0].content[0].input'],
    [{ system: 5 }, 'system'],
    [{ system: [{ type: 'image' }] }, 'system[0].type'],
    [{ tools: [{ name: 'f' }] }, 'tools[0].input_schema'],
    [{ tools: {} }, 'tools'],
    [{ tool_choice: { type: 'tool' } }, 'tool_choice.name'],
    [{ tool_choice: { type: 'sometimes' } }, 'tool_choice.type'],
    [{ temperature: 'hot' }, 'temperature'],
    [{ top_k: -1 }, 'top_k'],
    [{ stop_sequences: [1] }, 'stop_sequences[0]'],
    [{ stream: 'yes' }, 'stream'],
    [{ metadata: { user_id: 7 } }, 'metadata.user_id'],
    [{ thinking: { type: 'enabled' } }, 'thinking.budget_tokens'],
    [{ thinking: { type: 'always' } }, 'thinking.type'],
    [{ output_config: { effort: 'extreme' } }, 'output_config.effort'],
  ])('refuses %j with a 400 naming %s', (fields, param) => {
    const error = refusal(() => anthropicMessagesDialect.decodeRequest({ ...valid, ...fields }));
    expect(error.status).toBe(400);
    expect(error.param).toBe(param);
    expect(error.message).toContain(param);
  });

  it('refuses a body that is not an object', () => {
    expect(refusal(() => anthropicMessagesDialect.decodeRequest([])).status).toBe(400);
  });
});

describe('encodeRequest: a Chat or completion request to an Anthropic-format provider', () => {
  it('asks for 4096 tokens for a chat and 16 for a completion when the client names no limit, and keeps an explicit one', () => {
    expect(encodeAccepted(chat()).body.max_tokens).toBe(4096);
    expect(encodeAccepted(chat({ dialect: 'openai-completions' })).body.max_tokens).toBe(16);
    expect(encodeAccepted(chat({ maxOutputTokens: 77 })).body.max_tokens).toBe(77);
  });

  it('moves system text to the top-level system, keeps a single text a plain string, and maps sampling, stop and user', () => {
    const { body, dropped } = encodeAccepted(
      chat({
        system: [{ type: 'text', text: 'Be brief.' }, { type: 'text', text: 'Answer in English.' }],
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'Hello' }] },
          { role: 'assistant', parts: [{ type: 'text', text: 'Hi there' }] },
          { role: 'user', parts: [{ type: 'text', text: 'What is ' }, { type: 'text', text: '2+2?' }] },
        ],
        stop: ['END'],
        temperature: 0.5,
        topP: 0.9,
        topK: 40,
        user: 'user-42',
        stream: true,
      }),
    );
    expect(body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      system: 'Be brief.\n\nAnswer in English.',
      messages: [
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi there' },
        { role: 'user', content: [{ type: 'text', text: 'What is ' }, { type: 'text', text: '2+2?' }] },
      ],
      stop_sequences: ['END'],
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
      metadata: { user_id: 'user-42' },
      stream: true,
    });
    expect(dropped).toEqual([]);
  });

  it('sends images from base64 and from a web address as image blocks', () => {
    const { body } = encodeAccepted(
      chat({
        turns: [
          {
            role: 'user',
            parts: [
              { type: 'text', text: 'Compare' },
              { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' } },
              { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.jpg' } },
            ],
          },
        ],
      }),
    );
    expect(body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
        ],
      },
    ]);
  });

  const WEATHER = { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } };
  it.each([
    [{}, undefined],
    [{ parallelToolCalls: false }, { type: 'auto', disable_parallel_tool_use: true }],
    [{ toolChoice: { mode: 'auto' } }, { type: 'auto' }],
    [{ toolChoice: { mode: 'required' }, parallelToolCalls: false }, { type: 'any', disable_parallel_tool_use: true }],
    [{ toolChoice: { mode: 'none' }, parallelToolCalls: false }, { type: 'none' }],
    [{ toolChoice: { mode: 'tool', name: 'get_weather' } }, { type: 'tool', name: 'get_weather' }],
  ] as [Partial<CanonicalRequest>, unknown][])('declares the tools and maps %j to tool_choice %j', (fields, toolChoice) => {
    const { body } = encodeAccepted(chat({ tools: [WEATHER], ...fields }));
    expect(body.tools).toEqual([{ name: 'get_weather', description: 'Weather in a city', input_schema: WEATHER.parameters }]);
    expect(body.tool_choice).toEqual(toolChoice);
  });

  it('sends a whole tool round trip as tool_use and tool_result blocks, without the empty text beside the calls', () => {
    const { body } = encodeAccepted(
      chat({
        tools: [WEATHER],
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
          {
            role: 'assistant',
            parts: [
              { type: 'text', text: '' },
              { type: 'tool_call', id: 'toolu_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
              { type: 'tool_call', id: 'toolu_b', name: 'get_weather', arguments: '{"city":"Rome"}' },
            ],
          },
          {
            role: 'user',
            parts: [
              { type: 'tool_result', callId: 'toolu_a', content: '18C' },
              { type: 'tool_result', callId: 'toolu_b', content: [{ type: 'text', text: '24C' }], isError: true },
            ],
          },
        ],
      }),
    );
    expect(body.messages).toEqual([
      { role: 'user', content: 'Weather in Paris and Rome?' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: { city: 'Paris' } },
          { type: 'tool_use', id: 'toolu_b', name: 'get_weather', input: { city: 'Rome' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_a', content: '18C' },
          { type: 'tool_result', tool_use_id: 'toolu_b', content: '24C', is_error: true },
        ],
      },
    ]);
  });

  it('sends an empty tool result without content, and tool ids Messages would refuse mapped alike in call and result', () => {
    const { body } = encodeAccepted(
      chat({
        tools: [WEATHER],
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
          { role: 'assistant', parts: [{ type: 'tool_call', id: 'functions.get_weather:0', name: 'get_weather', arguments: '{}' }] },
          { role: 'user', parts: [{ type: 'tool_result', callId: 'functions.get_weather:0', content: '' }] },
        ],
      }),
    );
    expect((body.messages as { content: unknown }[]).slice(1).map((message) => message.content)).toEqual([
      [{ type: 'tool_use', id: 'functions_get_weather_0', name: 'get_weather', input: {} }],
      [{ type: 'tool_result', tool_use_id: 'functions_get_weather_0' }],
    ]);
  });

  it('merges consecutive same-role turns, puts tool results first, and moves a mid-conversation system turn to system', () => {
    const { body } = encodeAccepted(
      chat({
        system: [{ type: 'text', text: 'Be brief.' }],
        tools: [WEATHER],
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'Hi' }] },
          { role: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
          { role: 'assistant', parts: [{ type: 'tool_call', id: 't1', name: 'get_weather', arguments: '' }] },
          { role: 'system', parts: [{ type: 'text', text: 'Use Celsius.' }] },
          { role: 'user', parts: [{ type: 'text', text: 'Here:' }] },
          { role: 'user', parts: [{ type: 'tool_result', callId: 't1', content: '18C' }] },
        ],
      }),
    );
    expect(body.system).toBe('Be brief.\n\nUse Celsius.');
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Hi' }, { type: 'text', text: 'Weather?' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'get_weather', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: '18C' }, { type: 'text', text: 'Here:' }] },
    ]);
  });

  it('drops blank text and an assistant turn left empty, and cuts the trailing whitespace of a final assistant prefill', () => {
    const { body } = encodeAccepted(
      chat({
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'One' }, { type: 'text', text: '  ' }] },
          { role: 'assistant', parts: [{ type: 'text', text: '' }] },
          { role: 'user', parts: [{ type: 'text', text: 'Two' }] },
          { role: 'assistant', parts: [{ type: 'text', text: 'The answer is ' }] },
        ],
      }),
    );
    expect(body.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'One' }, { type: 'text', text: 'Two' }] },
      { role: 'assistant', content: 'The answer is' },
    ]);
  });

  it.each([
    ['a system-only conversation', chat({ system: [{ type: 'text', text: 'x' }], turns: [] }), 'messages', /at least one user or assistant message/],
    ['an assistant-first conversation', chat({ turns: [{ role: 'assistant', parts: [{ type: 'text', text: 'Hi' }] }] }), 'messages', /start with a user message/],
    ['a blank prompt', chat({ dialect: 'openai-completions', turns: [{ role: 'user', parts: [{ type: 'text', text: ' ' }] }] }), 'prompt', /'prompt' must not be empty/],
    [
      'a tool result whose call is unknown',
      chat({ turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }, { role: 'assistant', parts: [{ type: 'text', text: 'Ok' }] }, { role: 'user', parts: [{ type: 'tool_result', callId: 'nope', content: 'x' }] }] }),
      'messages',
      /'nope'/,
    ],
    [
      'a tool call left without its result',
      chat({ turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }, { role: 'assistant', parts: [{ type: 'tool_call', id: 't1', name: 'f', arguments: '{}' }] }, { role: 'user', parts: [{ type: 'text', text: 'Go on' }] }] }),
      'messages',
      /t1/,
    ],
    ['an image in an assistant turn', chat({ turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }, { role: 'assistant', parts: [{ type: 'image', source: { kind: 'url', url: 'https://x/y.png' } }] }] }), 'messages[1].content[0]', /image/],
  ])('refuses %s with a 400 naming the field, whatever the policy', (_name, request, param, message) => {
    for (const onUnsupported of ['refuse', 'drop'] as const) {
      const error = refusal(() => encode({ ...request, onUnsupported }));
      expect(error.status).toBe(400);
      expect(error.param).toBe(param);
      expect(error.message).toMatch(message);
    }
  });

  it.each([
    [{ presencePenalty: 0.5 }, 'presence_penalty', "'presence_penalty' is not supported by provider 'anthropic'"],
    [{ frequencyPenalty: -1 }, 'frequency_penalty', "'frequency_penalty' is not supported by provider 'anthropic'"],
    [{ seed: 7 }, 'seed', "'seed' is not supported by provider 'anthropic'"],
    [{ logprobs: { top: 0 } }, 'logprobs', "'logprobs' is not supported (the provider returns no log probabilities) by provider 'anthropic'"],
    [{ responseFormat: { type: 'json_object' } }, 'response_format', "'response_format' is not supported by provider 'anthropic'"],
    [{ extensions: { logit_bias: { '50256': -100 } } }, 'logit_bias', "'logit_bias' is not supported by provider 'anthropic'"],
    [{ extensions: { best_of: 3 } }, 'best_of', "'best_of' greater than 1 is not supported by provider 'anthropic'"],
    [{ temperature: 1.01 }, 'temperature', "'temperature' above 1 is not supported (the provider accepts 0 to 1) by provider 'anthropic'"],
  ] as [Partial<CanonicalRequest>, string, string][])('refuses %j for a Chat client with the old message', (fields, param, message) => {
    const error = refusal(() => encode(chat(fields)));
    expect(error.toBody().error).toMatchObject({ type: 'invalid_request_error', param, code: 'unsupported_parameter', provider: 'anthropic', message });
  });

  it('accepts fields at their defaults: penalties 0, the text response format, echo false, best_of 1, an empty logit_bias', () => {
    const { dropped } = encodeAccepted(chat({ presencePenalty: 0, frequencyPenalty: 0, responseFormat: { type: 'text' }, extensions: { echo: false, best_of: 1, logit_bias: {} } }));
    expect(dropped).toEqual([]);
  });

  it('uses the decoder’s own wording for an extension it explained', () => {
    const error = refusal(() => encode(chat({ extensions: { 'messages[0].content[1]': { type: 'input_audio' } }, unsupportedWhy: { 'messages[0].content[1]': "of type 'input_audio' is not supported" } })));
    expect(error.message).toBe("'messages[0].content[1]' of type 'input_audio' is not supported by provider 'anthropic'");
  });

  it('drops and lists what it cannot honour for a Responses client instead of refusing', () => {
    const { body, dropped } = encodeAccepted(
      chat({ dialect: 'openai-responses', onUnsupported: 'drop', temperature: 1.5, seed: 3, extensions: { include: ['reasoning.encrypted_content'], prompt_cache_key: 'k' } }),
    );
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('include');
    expect(dropped).toEqual(['seed', 'include', 'prompt_cache_key', 'temperature']);
  });

  it.each([
    ['low', 2048, 4096 + 2048],
    ['medium', 8192, 4096 + 8192],
    ['high', 16384, 4096 + 16384],
  ] as const)('turns reasoning effort %s into a thinking budget of %i, leaving the usual room for the answer', (effort, budget, maxTokens) => {
    const { body } = encodeAccepted(chat({ reasoning: { enabled: true, effort } }));
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: budget });
    expect(body.max_tokens).toBe(maxTokens);
  });

  it('keeps the thinking budget below an explicit max_tokens, and turns reasoning off sends no thinking', () => {
    expect(encodeAccepted(chat({ maxOutputTokens: 3000, reasoning: { enabled: true, effort: 'high' } })).body.thinking).toEqual({ type: 'enabled', budget_tokens: 2999 });
    expect(encodeAccepted(chat({ reasoning: { enabled: false } })).body).not.toHaveProperty('thinking');
  });

  it('refuses reasoning where Messages cannot think: a small max_tokens, a forced tool, or a temperature other than 1', () => {
    expect(refusal(() => encode(chat({ maxOutputTokens: 500, reasoning: { enabled: true, effort: 'low' } }))).param).toBe('reasoning_effort');
    expect(refusal(() => encode(chat({ tools: [WEATHER], toolChoice: { mode: 'required' }, reasoning: { enabled: true, effort: 'low' } }))).param).toBe('reasoning_effort');
    expect(refusal(() => encode(chat({ temperature: 0.2, reasoning: { enabled: true, effort: 'low' } }))).param).toBe('temperature');
  });

  const toolLoop = (assistantParts: CanonicalRequest['turns'][number]['parts']): CanonicalRequest['turns'] => [
    { role: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
    { role: 'assistant', parts: assistantParts },
    { role: 'user', parts: [{ type: 'tool_result', callId: 't1', content: '18C' }] },
  ];
  const CALL = { type: 'tool_call', id: 't1', name: 'get_weather', arguments: '{"city":"Paris"}' } as const;

  it('keeps thinking on in a tool loop whose last assistant message starts with signed thinking', () => {
    const { body, dropped } = encodeAccepted(chat({ tools: [WEATHER], reasoning: { enabled: true, effort: 'low' }, turns: toolLoop([{ type: 'reasoning', text: 'hmm', signature: 'sig' }, CALL]) }));
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    expect(dropped).toEqual([]);
  });

  it('cannot think on a tool loop whose calls came without signed thinking, or after a prefill: refused for Chat, dropped for Responses', () => {
    const unsigned = chat({ tools: [WEATHER], reasoning: { enabled: true, effort: 'low' }, turns: toolLoop([CALL]) });
    expect(refusal(() => encode(unsigned)).message).toMatch(/'reasoning_effort' is not supported on a turn that answers tool calls/);
    const { body, dropped } = encodeAccepted({ ...unsigned, dialect: 'openai-responses', onUnsupported: 'drop' });
    expect(body).not.toHaveProperty('thinking');
    expect(dropped).toEqual(['reasoning']);
    const prefill = chat({ reasoning: { enabled: true }, turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }, { role: 'assistant', parts: [{ type: 'text', text: 'Well' }] }] });
    expect(refusal(() => encode(prefill)).message).toMatch(/prefilled assistant message/);
  });

  it('leaves thinking out of a final assistant message when thinking is off', () => {
    const { body } = encodeAccepted(
      chat({ turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }, { role: 'assistant', parts: [{ type: 'reasoning', text: 'hmm', signature: 'sig' }, { type: 'text', text: 'Well' }] }] }),
    );
    expect(body.messages).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Well' },
    ]);
  });

  it('sends signed reasoning back as thinking blocks and leaves out reasoning without a signature', () => {
    const { body } = encodeAccepted(
      chat({
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'Hi' }] },
          { role: 'assistant', parts: [{ type: 'reasoning', text: 'hmm', signature: 'sig' }, { type: 'reasoning', text: 'unsigned' }, { type: 'text', text: 'Hello' }] },
          { role: 'user', parts: [{ type: 'text', text: 'Again' }] },
        ],
      }),
    );
    expect((body.messages as unknown[])[1]).toEqual({ role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 'sig' }, { type: 'text', text: 'Hello' }] });
  });

  it('leaves the model out for a host that takes it in the URL, and adds nothing of that host (Vertex’s version is its prepareBody: providers/vertex-ai.test.ts)', () => {
    const { body } = encodeAccepted(chat(), VERTEX);
    expect(body).not.toHaveProperty('model');
    expect(body).not.toHaveProperty('anthropic_version');
  });
});

describe('Chat and completion bodies through their own decoders, as the old translator sent them', () => {
  const WEATHER_TOOL = {
    type: 'function',
    function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  };

  it('a completion: the prompt as one user message, stop, sampling and user mapped', () => {
    const { body } = encodeAccepted(decodeCompletionRequest({ model: 'claude-sonnet-4-5', prompt: 'Say hi', max_tokens: 20, stop: 'END', temperature: 0.5, top_p: 0.9, user: 'user-42' }));
    expect(body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 20,
      messages: [{ role: 'user', content: 'Say hi' }],
      stop_sequences: ['END'],
      temperature: 0.5,
      top_p: 0.9,
      metadata: { user_id: 'user-42' },
    });
    expect(encodeAccepted(decodeCompletionRequest({ model: 'm', prompt: 'Hi', top_k: 40 })).body).toMatchObject({ max_tokens: 16, top_k: 40 });
  });

  it.each([
    [{ logprobs: 2 }, 'logprobs', /no log probabilities/],
    [{ best_of: 3 }, 'best_of', /greater than 1/],
    [{ echo: true }, 'echo', /is not supported/],
    [{ suffix: 'after' }, 'suffix', /is not supported/],
    [{ logit_bias: { '50256': -100 } }, 'logit_bias', /is not supported/],
    [{ seed: 7 }, 'seed', /is not supported/],
    [{ presence_penalty: 0.5 }, 'presence_penalty', /is not supported/],
    [{ temperature: 1.5 }, 'temperature', /above 1/],
    [{ prompt: [1, 2, 3] }, 'prompt', /token IDs/],
    [{ prompt: ['one', 'two'] }, 'prompt', /several prompts/],
  ])('a completion with %j is refused naming %s and the provider', (fields, param, message) => {
    const error = refusal(() => encode(decodeCompletionRequest({ model: 'm', prompt: 'Hi', ...fields })));
    expect(error.toBody().error).toMatchObject({ type: 'invalid_request_error', param, provider: 'anthropic' });
    expect(error.message).toMatch(message);
    expect(error.message).toContain("'anthropic'");
  });

  it('a chat: system and developer messages joined into system, turns kept', () => {
    const { body } = encodeAccepted(
      decodeChatRequest({
        model: 'claude-sonnet-4-5',
        messages: [
          { role: 'system', content: 'Be brief.' },
          { role: 'developer', content: 'Answer in English.' },
          { role: 'user', content: 'Hello' },
          { role: 'assistant', content: 'Hi there' },
          { role: 'user', content: [{ type: 'text', text: 'What is ' }, { type: 'text', text: '2+2?' }] },
        ],
      }),
    );
    expect(body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      system: 'Be brief.\n\nAnswer in English.',
      messages: [
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: 'Hi there' },
        { role: 'user', content: [{ type: 'text', text: 'What is ' }, { type: 'text', text: '2+2?' }] },
      ],
    });
  });

  it('a chat tool round trip: tools, required choice without parallel calls, tool_use and tool_result blocks', () => {
    const { body } = encodeAccepted(
      decodeChatRequest({
        model: 'm',
        tools: [WEATHER_TOOL],
        tool_choice: 'required',
        parallel_tool_calls: false,
        max_completion_tokens: 77,
        messages: [
          { role: 'user', content: 'Weather in Paris and Rome?' },
          {
            role: 'assistant',
            content: '',
            tool_calls: [
              { id: 'toolu_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
              { id: 'toolu_b', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Rome"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'toolu_a', content: '18C' },
          { role: 'tool', tool_call_id: 'toolu_b', content: '24C' },
        ],
      }),
    );
    expect(body).toMatchObject({
      max_tokens: 77,
      tools: [{ name: 'get_weather', description: 'Weather in a city', input_schema: WEATHER_TOOL.function.parameters }],
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      messages: [
        { role: 'user', content: 'Weather in Paris and Rome?' },
        {
          role: 'assistant',
          content: [
            { type: 'tool_use', id: 'toolu_a', name: 'get_weather', input: { city: 'Paris' } },
            { type: 'tool_use', id: 'toolu_b', name: 'get_weather', input: { city: 'Rome' } },
          ],
        },
        {
          role: 'user',
          content: [
            { type: 'tool_result', tool_use_id: 'toolu_a', content: '18C' },
            { type: 'tool_result', tool_use_id: 'toolu_b', content: '24C' },
          ],
        },
      ],
    });
  });

  it.each([
    [{ messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'x', format: 'wav' } }] }] }, 'messages[0].content[0]'],
    [{ messages: [{ role: 'system', content: [{ type: 'image_url', image_url: { url: 'https://x/y.png' } }] }, { role: 'user', content: 'Hi' }] }, 'messages[0].content[0]'],
    [{ messages: [{ role: 'user', content: 'x', name: 'bob' }] }, 'messages[0].name'],
    [{ messages: [{ role: 'user', content: 'Hi' }], tools: [{ type: 'custom', custom: { name: 'x' } }] }, 'tools[0]'],
    [{ messages: [{ role: 'user', content: 'Hi' }], response_format: { type: 'json_object' } }, 'response_format'],
    [{ messages: [{ role: 'user', content: 'Hi' }], logprobs: true, top_logprobs: 2 }, 'logprobs'],
  ])('a chat with %j is refused naming %s', (fields, param) => {
    const error = refusal(() => encode(decodeChatRequest({ model: 'm', ...fields })));
    expect(error.toBody().error).toMatchObject({ type: 'invalid_request_error', param, provider: 'anthropic' });
  });

  it('a chat with reasoning_effort asks Messages for thinking', () => {
    const { body } = encodeAccepted(decodeChatRequest({ model: 'm', reasoning_effort: 'low', messages: [{ role: 'user', content: 'Hi' }] }));
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
  });
});

describe('a Codex-like Responses body through its decoder to Messages', () => {
  it('is accepted, keeps the tool turn, and lists what Messages cannot take instead of refusing', () => {
    const request = decodeResponsesRequest({
      model: 'claude-sonnet-4-5',
      stream: true,
      store: false,
      instructions: 'Be a coder',
      tool_choice: 'auto',
      parallel_tool_calls: true,
      reasoning: { effort: 'medium', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'abc',
      tools: [{ type: 'function', name: 'shell', description: 'Run', parameters: { type: 'object', properties: { cmd: { type: 'string' } } }, strict: false }, { type: 'web_search' }],
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Sandbox: none' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List files' }] },
        { type: 'reasoning', summary: [], encrypted_content: 'gAAAA' },
        { type: 'function_call', call_id: 'call_1', name: 'shell', arguments: '{"cmd":"ls"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'a.txt' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Thanks' }] },
      ],
    });
    const { body, dropped } = encodeAccepted(request);
    expect(body).toEqual({
      model: 'claude-sonnet-4-5',
      max_tokens: 4096,
      system: 'Be a coder\n\nSandbox: none',
      messages: [
        { role: 'user', content: 'List files' },
        // OpenAI's encrypted reasoning means nothing to Anthropic: left out.
        { role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'shell', input: { cmd: 'ls' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'a.txt' }, { type: 'text', text: 'Thanks' }] },
      ],
      tools: [{ name: 'shell', description: 'Run', input_schema: { type: 'object', properties: { cmd: { type: 'string' } } } }],
      tool_choice: { type: 'auto' },
      stream: true,
    });
    // Reasoning cannot go on a tool loop whose calls came without Anthropic's signed thinking.
    expect(dropped).toEqual(expect.arrayContaining(['tools[1]', 'include', 'prompt_cache_key', 'reasoning']));
  });
});

describe('round trip: a Claude Code body decoded and encoded again', () => {
  it('is accepted by the Messages API and keeps what Claude Code sent', () => {
    const request = anthropicMessagesDialect.decodeRequest(CLAUDE_CODE_BODY);
    const { body, dropped } = encodeAccepted(request);
    expect(dropped).toEqual([]);
    expect(body).toEqual({
      ...CLAUDE_CODE_BODY,
      messages: CLAUDE_CODE_BODY.messages.map((message, index) => (index === 2 ? { role: 'system', content: 'The user is in a hurry.' } : message)),
    });
  });

  it('puts a document block back where the client had it', () => {
    const messages = [{ role: 'user', content: [{ type: 'text', text: 'Summarise' }, { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'memo' } }, { type: 'text', text: 'briefly' }] }];
    const { body } = encodeAccepted(anthropicMessagesDialect.decodeRequest({ model: 'm', max_tokens: 100, messages }));
    expect(body.messages).toEqual(messages);
  });

  it('to Vertex, moves the model out of the body', () => {
    const { body } = encodeAccepted(anthropicMessagesDialect.decodeRequest(CLAUDE_CODE_BODY), VERTEX);
    expect(body).not.toHaveProperty('model');
  });
});

const sse = (data: Record<string, unknown>): UpstreamEvent => ({ kind: 'sse', event: String(data.type), data: JSON.stringify(data) });

function readFixture(name: string): UpstreamEvent[] {
  const text = readFileSync(new URL(`./__fixtures__/${name}`, import.meta.url), 'utf8');
  return text
    .split(/\n\n+/)
    .filter((block) => block.trim())
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((line) => line.startsWith('event: '))?.slice(7);
      const data = lines.find((line) => line.startsWith('data: '))!.slice(6);
      return { kind: 'sse', event, data };
    });
}

describe('createStreamDecoder: a Messages stream to canonical events', () => {
  const request = chat({ stream: true });

  it('replays a whole stream with thinking, text and a tool call split across deltas', () => {
    const decoder = anthropicMessagesProvider.createStreamDecoder(request);
    const events = [...readFixture('anthropic-messages-stream.sse').flatMap((event) => decoder.onEvent(event)), ...decoder.onEnd()];
    expect(events).toEqual([
      { type: 'start', id: 'msg_01Fixture', model: 'claude-sonnet-4-5-20250929' },
      { type: 'usage', usage: { inputTokens: 2112, outputTokens: 1, cacheReadTokens: 2000, cacheWriteTokens: 100 } },
      { type: 'reasoning', text: 'The user wants the weather. ' },
      { type: 'reasoning', text: 'I should call get_weather.' },
      { type: 'reasoning_signature', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h' },
      { type: 'text', text: 'Let me check ' },
      { type: 'text', text: 'the weather.' },
      { type: 'tool_call_start', index: 0, id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather' },
      { type: 'tool_call_delta', index: 0, arguments: '{"city": "Pa' },
      { type: 'tool_call_delta', index: 0, arguments: 'ris", "unit"' },
      { type: 'tool_call_delta', index: 0, arguments: ': "celsius"}' },
      { type: 'tool_call_end', index: 0 },
      { type: 'finish', reason: 'tool_calls' },
      { type: 'usage', usage: { inputTokens: 2112, outputTokens: 89, cacheReadTokens: 2000, cacheWriteTokens: 100 } },
    ]);
    expect(foldEvents(events, { id: 'x', model: 'y' })).toEqual({
      id: 'msg_01Fixture',
      model: 'claude-sonnet-4-5-20250929',
      content: [
        { type: 'reasoning', text: 'The user wants the weather. I should call get_weather.', signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3h' },
        { type: 'text', text: 'Let me check the weather.' },
        { type: 'tool_call', id: 'toolu_01A09q90qw90lq917835lq9', name: 'get_weather', arguments: '{"city": "Paris", "unit": "celsius"}' },
      ],
      finishReason: 'tool_calls',
      usage: { inputTokens: 2112, outputTokens: 89, cacheReadTokens: 2000, cacheWriteTokens: 100 },
    });
  });

  it('reads redacted thinking as encrypted reasoning and a stop sequence with the sequence', () => {
    const decoder = anthropicMessagesProvider.createStreamDecoder(request);
    const events = [
      sse({ type: 'message_start', message: { id: 'msg_1', model: 'c', usage: { input_tokens: 3, output_tokens: 0 } } }),
      sse({ type: 'content_block_start', index: 0, content_block: { type: 'redacted_thinking', data: 'opaque' } }),
      sse({ type: 'content_block_stop', index: 0 }),
      sse({ type: 'message_delta', delta: { stop_reason: 'stop_sequence', stop_sequence: 'END' }, usage: { output_tokens: 2 } }),
      sse({ type: 'message_stop' }),
    ].flatMap((event) => decoder.onEvent(event));
    expect(events).toContainEqual({ type: 'reasoning_encrypted', data: 'opaque' });
    expect(events).toContainEqual({ type: 'finish', reason: 'stop_sequence', stopSequence: 'END' });
  });

  it('throws a ProviderStreamError for an error event, keeping the message and Anthropic’s type as the code', () => {
    const decoder = anthropicMessagesProvider.createStreamDecoder(request);
    decoder.onEvent(sse({ type: 'message_start', message: { id: 'msg_1' } }));
    expect(() => decoder.onEvent(sse({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }))).toThrow(
      expect.objectContaining({ message: 'Overloaded', type: 'api_error', code: 'overloaded_error' }),
    );
    expect(() => decoder.onEvent(sse({ type: 'error', error: { type: 'rate_limit_error', message: 'Slow down' } }))).toThrow(expect.objectContaining({ type: 'rate_limit_error' }));
  });

  it('reports a stream that ended before message_stop, and one that is not JSON', () => {
    const decoder = anthropicMessagesProvider.createStreamDecoder(request);
    decoder.onEvent(sse({ type: 'message_start', message: { id: 'msg_1' } }));
    expect(() => decoder.onEnd()).toThrow(expect.objectContaining({ code: 'stream_incomplete' }));
    expect(() => decoder.onEvent({ kind: 'sse', data: 'not json' })).toThrow(ProviderStreamError);
  });
});

describe('decodeResponse: a Messages answer to canonical', () => {
  it('keeps text, thinking, redacted thinking and tool calls in order, and counts cached tokens as input', () => {
    const answer = anthropicMessagesProvider.decodeResponse(
      {
        id: 'msg_1',
        model: 'claude-real',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 'sig' },
          { type: 'redacted_thinking', data: 'opaque' },
          { type: 'text', text: 'Hello' },
          { type: 'text', text: ' world' },
          { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } },
        ],
        stop_reason: 'tool_use',
        usage: { input_tokens: 3, cache_creation_input_tokens: 10, cache_read_input_tokens: 20, output_tokens: 7 },
      },
      chat(),
    );
    expect(answer).toEqual({
      id: 'msg_1',
      model: 'claude-real',
      content: [
        { type: 'reasoning', text: 'hmm', signature: 'sig' },
        { type: 'reasoning', text: '', encrypted: 'opaque' },
        { type: 'text', text: 'Hello world' },
        { type: 'tool_call', id: 'toolu_1', name: 'f', arguments: '{"a":1}' },
      ],
      finishReason: 'tool_calls',
      usage: { inputTokens: 33, outputTokens: 7, cacheReadTokens: 20, cacheWriteTokens: 10 },
    });
  });

  it.each([
    ['end_turn', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['stop_sequence', 'stop_sequence'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    ['pause_turn', 'pause'],
    ['something_new', 'stop'],
    [null, null],
  ])('maps stop_reason %s to %s', (stopReason, finishReason) => {
    expect(anthropicMessagesProvider.decodeResponse({ id: 'm', content: [], stop_reason: stopReason, stop_sequence: 'X' }, chat()).finishReason).toBe(finishReason);
  });
});

describe('encodeResponse: a canonical answer to a Messages client', () => {
  it('writes a real Messages answer with Anthropic’s usage fields', () => {
    const body = anthropicMessagesDialect.encodeResponse(
      {
        id: 'chatcmpl-1',
        model: 'qwen3',
        content: [
          { type: 'reasoning', text: 'hmm' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        ],
        finishReason: 'tool_calls',
        usage: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 60, cacheWriteTokens: 10 },
      },
      chat({ dialect: 'anthropic-messages' }),
    );
    expect(body).toEqual({
      id: 'msg_chatcmpl-1',
      type: 'message',
      role: 'assistant',
      model: 'qwen3',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: '' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 30, output_tokens: 20, cache_read_input_tokens: 60, cache_creation_input_tokens: 10 },
    });
  });

  it.each([
    ['stop', 'end_turn'],
    ['length', 'max_tokens'],
    ['tool_calls', 'tool_use'],
    ['content_filter', 'refusal'],
    ['stop_sequence', 'stop_sequence'],
    ['pause', 'pause_turn'],
  ] as const)('maps finish %s to stop_reason %s', (reason, stopReason) => {
    const body = anthropicMessagesDialect.encodeResponse({ id: 'msg_1', model: 'm', content: [], finishReason: reason, ...(reason === 'stop_sequence' ? { stopSequence: 'END' } : {}) }, chat()) as Record<string, unknown>;
    expect(body.stop_reason).toBe(stopReason);
    expect(body.stop_sequence).toBe(reason === 'stop_sequence' ? 'END' : null);
  });
});

/** The SSE text split into [event name, data] pairs, checking each event's framing on the way. */
function parseSse(text: string): [string, Record<string, unknown>][] {
  expect(text.endsWith('\n\n')).toBe(true);
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const [eventLine, dataLine, ...rest] = block.split('\n');
      expect(rest).toEqual([]);
      const data = JSON.parse(dataLine.replace(/^data: /, '')) as Record<string, unknown>;
      expect(eventLine).toBe(`event: ${String(data.type)}`);
      return [String(data.type), data];
    });
}

describe('createStreamEncoder: canonical events to a Messages SSE stream', () => {
  it('writes message_start, one block per kind, tool calls as their own blocks, message_delta and message_stop', () => {
    const encoder = anthropicMessagesDialect.createStreamEncoder(chat({ dialect: 'anthropic-messages', stream: true }));
    const events: CanonicalEvent[] = [
      { type: 'start', id: 'chatcmpl-9', model: 'qwen3' },
      { type: 'reasoning', text: 'Think' },
      { type: 'reasoning', text: 'ing' },
      { type: 'reasoning_signature', signature: 'sig' },
      { type: 'text', text: 'Let me ' },
      { type: 'text', text: 'check.' },
      { type: 'tool_call_start', index: 0, id: 'call_a', name: 'get_weather' },
      { type: 'tool_call_delta', index: 0, arguments: '{"city":' },
      { type: 'tool_call_delta', index: 0, arguments: '"Paris"}' },
      { type: 'tool_call_start', index: 1, id: 'call_b', name: 'get_time' },
      { type: 'tool_call_delta', index: 1, arguments: '{}' },
      { type: 'tool_call_end', index: 0 },
      { type: 'tool_call_end', index: 1 },
      { type: 'finish', reason: 'tool_calls' },
      { type: 'usage', usage: { inputTokens: 50, outputTokens: 12, cacheReadTokens: 20 } },
    ];
    const text = events.map((event) => encoder.onEvent(event)).join('') + encoder.onEnd();
    expect(parseSse(text)).toEqual([
      [
        'message_start',
        {
          type: 'message_start',
          message: {
            id: 'msg_chatcmpl-9',
            type: 'message',
            role: 'assistant',
            model: 'qwen3',
            content: [],
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 0, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
          },
        },
      ],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'Think' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'ing' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Let me ' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'check.' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 1 }],
      ['content_block_start', { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'call_a', name: 'get_weather', input: {} } }],
      ['content_block_delta', { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"city":' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 2 }],
      ['content_block_start', { type: 'content_block_start', index: 3, content_block: { type: 'tool_use', id: 'call_b', name: 'get_time', input: {} } }],
      ['content_block_delta', { type: 'content_block_delta', index: 3, delta: { type: 'input_json_delta', partial_json: '{}' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 3 }],
      [
        'message_delta',
        {
          type: 'message_delta',
          delta: { stop_reason: 'tool_use', stop_sequence: null },
          usage: { output_tokens: 12, input_tokens: 30, cache_creation_input_tokens: 0, cache_read_input_tokens: 20 },
        },
      ],
      ['message_stop', { type: 'message_stop' }],
    ]);
  });

  it('sends each event as soon as it arrives', () => {
    const encoder = createMessagesStreamEncoder(chat());
    expect(encoder.onEvent({ type: 'start', id: 'msg_1', model: 'm' })).toContain('event: message_start');
    expect(encoder.onEvent({ type: 'text', text: 'Hi' })).toMatch(/content_block_start[\s\S]*text_delta/);
    expect(encoder.onEvent({ type: 'text', text: '!' })).toMatch(/^event: content_block_delta\n/);
  });

  it('writes a held answer as the same stream (answerEvents), with the stop sequence and the input tokens known from the start', () => {
    const encoder = createMessagesStreamEncoder(chat());
    const events = answerEvents({ id: 'msg_1', model: 'm', content: [{ type: 'text', text: 'Hi' }], finishReason: 'stop_sequence', stopSequence: 'END', usage: { inputTokens: 9, outputTokens: 2 } });
    const parsed = parseSse(events.map((event) => encoder.onEvent(event)).join('') + encoder.onEnd());
    expect(parsed.map(([type]) => type)).toEqual(['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
    expect(parsed[4][1]).toEqual({ type: 'message_delta', delta: { stop_reason: 'stop_sequence', stop_sequence: 'END' }, usage: { output_tokens: 2, input_tokens: 9, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 } });
  });

  it('starts a stream whose provider sent no start, and ends it with end_turn when no finish came', () => {
    const encoder = createMessagesStreamEncoder(chat({ model: 'fallback-model' }));
    const parsed = parseSse(encoder.onEvent({ type: 'text', text: 'Hi' }) + encoder.onEnd());
    expect(parsed[0][1]).toMatchObject({ message: { model: 'fallback-model', id: expect.stringMatching(/^msg_/) } });
    expect(parsed.at(-2)![1]).toMatchObject({ delta: { stop_reason: 'end_turn' } });
  });

  it('writes a mid-stream failure as an error event', () => {
    const encoder = createMessagesStreamEncoder(chat());
    encoder.onEvent({ type: 'text', text: 'Partial' });
    expect(encoder.onError(new GatewayError(529, 'api_error', 'Overloaded', null, 'overloaded_error'))).toBe(
      'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n',
    );
  });
});

describe('errors in Anthropic’s shape', () => {
  it.each([
    [400, 'invalid_request_error', 'invalid_request_error'],
    [401, 'authentication_error', 'authentication_error'],
    [403, 'permission_error', 'permission_error'],
    [404, 'not_found_error', 'not_found_error'],
    [413, 'invalid_request_error', 'invalid_request_error'],
    [413, 'api_error', 'request_too_large'],
    [429, 'rate_limit_error', 'rate_limit_error'],
    [529, 'api_error', 'overloaded_error'],
    [503, 'api_error', 'overloaded_error'],
    [502, 'gateway_error', 'api_error'],
    [504, 'gateway_error', 'api_error'],
    [500, 'api_error', 'api_error'],
    [422, 'something', 'invalid_request_error'],
  ])('status %i with type %s is %s', (status, type, expected) => {
    expect(anthropicErrorType(status, type)).toBe(expected);
  });

  it('writes {type:"error", error:{type, message}}', () => {
    expect(anthropicMessagesDialect.errorBody(new GatewayError(401, 'authentication_error', 'Invalid API key'))).toEqual({
      type: 'error',
      error: { type: 'authentication_error', message: 'Invalid API key' },
    });
    expect(anthropicMessagesDialect.errorBody(new GatewayError(504, 'gateway_error', 'Timed out', null, 'timeout', 'anthropic'))).toEqual({
      type: 'error',
      error: { type: 'api_error', message: 'Timed out' },
    });
  });
});
