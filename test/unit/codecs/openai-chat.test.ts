import { readFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { answerEvents, cannotHonour, foldEvents, type CanonicalAnswer, type CanonicalEvent, type CanonicalRequest, type Turn } from '../../../src-main/codecs/canonical.js';
import { openaiChatDialect, openaiChatProvider } from '../../../src-main/codecs/openai-chat/index.js';
import { GatewayError } from '../../../src-main/core/errors.js';
import { ProviderStreamError } from '../../../src-main/core/provider-stream-error.js';
import { validateChat } from '../../../src-main/gateway/validate.js';
import { openaiChatRequestProblem } from '../../fakes/openai.js';

const decode = (body: Record<string, unknown>) => openaiChatDialect.decodeRequest(validateChat({ model: 'm', ...body }));
const user = (content: unknown) => ({ role: 'user', content });
const target = { provider: 'groq', modelInBody: true };

/** The 400 a function throws, as the client would get it. */
function refusal(run: () => unknown): { status: number; message: string; param: string | null; code: unknown; provider?: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    const gatewayError = error as GatewayError;
    return { status: gatewayError.status, ...gatewayError.toBody().error };
  }
  throw new Error('expected a refusal');
}

/** A request another dialect (say Messages) decoded, for the provider side. */
function canonical(overrides: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return { dialect: 'anthropic-messages', onUnsupported: 'drop', model: 'llama3', system: [], turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }], stream: false, extensions: {}, ...overrides };
}

const sseEvents = (file: string) =>
  readFileSync(new URL(`./__fixtures__/${file}`, import.meta.url), 'utf8')
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => ({ kind: 'sse' as const, data: block.replace(/^data: /, '') }));

const sse = (data: unknown) => ({ kind: 'sse' as const, data: typeof data === 'string' ? data : JSON.stringify(data) });

function replay(request: CanonicalRequest, events: { kind: 'sse'; data: string }[]): CanonicalEvent[] {
  const decoder = openaiChatProvider.createStreamDecoder(request);
  return [...events.flatMap((event) => decoder.onEvent(event)), ...decoder.onEnd()];
}

/** The SSE text a client gets, as its `data:` payloads (JSON parsed, `[DONE]` kept as text). */
const dataLines = (text: string): unknown[] =>
  text
    .split('\n\n')
    .filter((block) => block !== '')
    .map((block) => {
      expect(block.startsWith('data: ')).toBe(true);
      const payload = block.slice('data: '.length);
      return payload === '[DONE]' ? payload : JSON.parse(payload);
    });

describe('openai-chat decodeRequest: a Chat Completions body becomes the canonical request', () => {
  it('puts leading system and developer messages in the system text and later ones in a system turn in place', () => {
    const request = decode({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'developer', content: [{ type: 'text', text: 'Use French.' }] },
        user('Hello'),
        { role: 'system', content: 'Now be verbose.' },
        { role: 'assistant', content: 'Bonjour' },
      ],
    });
    expect(request).toMatchObject({ dialect: 'openai-chat', onUnsupported: 'refuse', model: 'm', stream: false, extensions: {} });
    expect(request.system).toEqual([
      { type: 'text', text: 'Be brief.' },
      { type: 'text', text: 'Use French.' },
    ]);
    expect(request.turns).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'Hello' }], source: 'messages[2]' },
      { role: 'system', parts: [{ type: 'text', text: 'Now be verbose.' }], source: 'messages[3]' },
      { role: 'assistant', parts: [{ type: 'text', text: 'Bonjour' }], source: 'messages[4]' },
    ]);
  });

  it('reads images from data: URLs and web addresses, and refuses anything else with a 400 naming the part', () => {
    const request = decode({
      messages: [
        user([
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0K' } },
          { type: 'image_url', image_url: { url: 'https://example.com/cat.jpg', detail: 'low' } },
          { type: 'text', text: '' },
        ]),
      ],
    });
    expect(request.turns[0].parts).toEqual([
      { type: 'text', text: 'What is this?' },
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0K' } },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.jpg' } },
    ]);
    expect(refusal(() => decode({ messages: [user([{ type: 'image_url', image_url: { url: 'ftp://x/y.png' } }])] }))).toMatchObject({
      status: 400,
      message: "'messages[0].content[0].image_url.url' must be an http(s) URL or a base64 data: URL",
      param: 'messages',
    });
  });

  it('keeps tool calls as text arguments and groups consecutive tool messages into one user turn with the tools’ names', () => {
    const request = decode({
      messages: [
        user('Weather in Paris and Rome?'),
        {
          role: 'assistant',
          content: '',
          tool_calls: [
            { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
            { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_a', content: 'Sunny' },
        { role: 'tool', tool_call_id: 'call_b', content: [{ type: 'text', text: '12:' }, { type: 'text', text: '00' }] },
        user('Thanks'),
      ],
    });
    expect(request.turns).toEqual<Turn[]>([
      { role: 'user', parts: [{ type: 'text', text: 'Weather in Paris and Rome?' }], source: 'messages[0]' },
      {
        role: 'assistant',
        parts: [
          { type: 'tool_call', id: 'call_a', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'tool_call', id: 'call_b', name: 'get_time', arguments: '{}' },
        ],
        source: 'messages[1]',
      },
      {
        role: 'user',
        parts: [
          { type: 'tool_result', callId: 'call_a', name: 'get_weather', content: 'Sunny' },
          { type: 'tool_result', callId: 'call_b', name: 'get_time', content: '12:00' },
        ],
        // The first of the tool messages it gathers.
        source: 'messages[2]',
      },
      { role: 'user', parts: [{ type: 'text', text: 'Thanks' }], source: 'messages[4]' },
    ]);
  });

  it.each([
    ['a tool message for a call nobody made', [user('x'), { role: 'tool', tool_call_id: 'nope', content: 'r' }], "'messages[1].tool_call_id' must name a tool call of an earlier assistant message"],
    ['a tool call without an id', [{ role: 'assistant', tool_calls: [{ type: 'function', function: { name: 'f', arguments: '{}' } }] }], "'messages[0].tool_calls[0]' needs an id and a function name"],
    ['tool call arguments that are not JSON', [{ role: 'assistant', tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{oops' } }] }], "'messages[0].tool_calls[0].function.arguments' is not valid JSON"],
    ['tool_calls that are not an array', [{ role: 'assistant', tool_calls: {} }], "'messages[0].tool_calls' must be an array"],
  ])('answers %s with the same 400 as before', (_, messages, message) => {
    expect(refusal(() => decode({ messages }))).toMatchObject({ status: 400, message, param: 'messages' });
  });

  it.each([
    ['a message name', { messages: [{ role: 'user', content: 'x', name: 'bob' }] }, 'messages[0].name', "'messages[0].name' is not supported by provider 'groq'"],
    ['a function_call', { messages: [user('x'), { role: 'assistant', content: 'y', function_call: { name: 'f', arguments: '{}' } }] }, 'messages[1].function_call', "'messages[1].function_call' is not supported by provider 'groq'"],
    ['the function role', { messages: [user('x'), { role: 'function', content: 'r' }] }, 'messages[1].role', "'messages[1].role' 'function' is not supported by provider 'groq'"],
    ['an image in an assistant message', { messages: [user('x'), { role: 'assistant', content: [{ type: 'image_url', image_url: { url: 'https://e.com/a.png' } }] }] }, 'messages[1].content[0]', "'messages[1].content[0]' of type 'image_url' is not supported by provider 'groq'"],
    ['an audio part', { messages: [user([{ type: 'input_audio', input_audio: { data: 'AAA', format: 'wav' } }])] }, 'messages[0].content[0]', "'messages[0].content[0]' of type 'input_audio' is not supported by provider 'groq'"],
    ['a tool of another type', { messages: [user('x')], tools: [{ type: 'web_search' }] }, 'tools[0]', "'tools[0]' of type 'web_search' is not supported by provider 'groq'"],
    ['an unknown tool choice', { messages: [user('x')], tools: [{ type: 'function', function: { name: 'f' } }], tool_choice: { type: 'allowed_tools' } }, 'tool_choice', `'tool_choice' {"type":"allowed_tools"} is not supported by provider 'groq'`],
    ['best_of', { messages: [user('x')], best_of: 3 }, 'best_of', "'best_of' greater than 1 is not supported by provider 'groq'"],
    ['echo', { messages: [user('x')], echo: true }, 'echo', "'echo' is not supported by provider 'groq'"],
    ['top_logprobs without logprobs', { messages: [user('x')], top_logprobs: 0 }, 'top_logprobs', "'top_logprobs' is not supported (the provider returns no log probabilities) by provider 'groq'"],
  ])('keeps %s as an extension that a provider of another format refuses, naming the field and the provider', (_, body, field, message) => {
    const request = decode(body);
    expect(Object.keys(request.extensions)).toEqual([field]);
    // What every other encoder does with an extension of a dialect not its own.
    expect(refusal(() => cannotHonour(request, target, [], field))).toEqual({ status: 400, message, type: 'invalid_request_error', param: field, code: 'unsupported_parameter', provider: 'groq' });
  });

  it('maps the sampling fields, and words refusals in the field names the client used', () => {
    const request = decode({
      messages: [user('x')],
      max_completion_tokens: 300,
      max_tokens: 100,
      temperature: 0.2,
      top_p: 0.9,
      top_k: 40,
      stop: 'END',
      seed: 7,
      presence_penalty: 0.5,
      frequency_penalty: -0.5,
      user: 'u-1',
      n: 2,
      reasoning_effort: 'high',
      logprobs: true,
      top_logprobs: 3,
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(request).toMatchObject({
      maxOutputTokens: 300,
      temperature: 0.2,
      topP: 0.9,
      topK: 40,
      stop: ['END'],
      seed: 7,
      presencePenalty: 0.5,
      frequencyPenalty: -0.5,
      user: 'u-1',
      n: 2,
      reasoning: { enabled: true, effort: 'high' },
      logprobs: { top: 3 },
      stream: true,
      includeUsage: true,
      extensions: {},
    });
    expect(refusal(() => cannotHonour(request, target, [], 'maxOutputTokens')).param).toBe('max_completion_tokens');
    expect(refusal(() => cannotHonour(request, target, [], 'logprobs')).message).toBe("'logprobs' is not supported (the provider returns no log probabilities) by provider 'groq'");
    expect(decode({ messages: [user('x')], max_tokens: 100 }).maxOutputTokens).toBe(100);
    expect(refusal(() => cannotHonour(decode({ messages: [user('x')], max_tokens: 100 }), target, [], 'maxOutputTokens')).param).toBe('max_tokens');
    expect(decode({ messages: [user('x')], stop: ['a', 'b'], reasoning_effort: 'none' })).toMatchObject({ stop: ['a', 'b'], reasoning: { enabled: false } });
  });

  it.each([
    [{ top_k: -1 }, "'top_k' must be an integer of at least 0", 'top_k'],
    [{ top_k: 1.5 }, "'top_k' must be an integer of at least 0", 'top_k'],
    [{ reasoning_effort: 'max' }, "'reasoning_effort' must be one of 'none', 'minimal', 'low', 'medium', 'high' or 'xhigh'", 'reasoning_effort'],
    [{ tool_choice: 'required' }, "'tool_choice' needs 'tools'", 'tool_choice'],
    [{ tools: { type: 'function' } }, "'tools' must be an array", 'tools'],
    [{ tools: [{ type: 'function', function: {} }] }, "'tools[0].function.name' is required", 'tools'],
    [{ response_format: { type: 'json_schema', json_schema: { name: 'x' } } }, "'response_format.json_schema.schema' must be a JSON Schema object", 'response_format'],
  ])('refuses bad input %j with a 400 naming the field', (fields, message, param) => {
    expect(refusal(() => decode({ messages: [user('x')], ...fields }))).toMatchObject({ status: 400, message, param });
  });

  it('reads tools, tool choice, parallel_tool_calls and response formats', () => {
    const parameters = { type: 'object', properties: { city: { type: 'string' } } };
    const request = decode({
      messages: [user('x')],
      tools: [
        { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters, strict: true } },
        { type: 'function', function: { name: 'ping' } },
      ],
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: false,
      response_format: { type: 'json_schema', json_schema: { name: 'reply', schema: parameters, strict: true } },
    });
    expect(request.tools).toEqual([
      { name: 'get_weather', description: 'Weather', parameters, strict: true },
      { name: 'ping', parameters: { type: 'object', properties: {} } },
    ]);
    expect(request.toolChoice).toEqual({ mode: 'tool', name: 'get_weather' });
    expect(request.parallelToolCalls).toBe(false);
    expect(request.responseFormat).toEqual({ type: 'json_schema', name: 'reply', schema: parameters, strict: true });
    expect(decode({ messages: [user('x')], response_format: { type: 'json_object' }, tool_choice: 'none' })).toMatchObject({ responseFormat: { type: 'json_object' }, toolChoice: { mode: 'none' } });
  });

  it('leaves out fields at their default value, and keeps every other unread field as an extension', () => {
    const atDefaults = decode({
      messages: [user('x')],
      echo: false,
      logprobs: false,
      store: false,
      parallel_tool_calls: true,
      best_of: 1,
      presence_penalty: 0,
      frequency_penalty: 0,
      logit_bias: {},
      metadata: {},
      suffix: '',
      response_format: { type: 'text' },
    });
    expect(atDefaults.extensions).toEqual({});
    expect(atDefaults).not.toHaveProperty('presencePenalty');
    expect(atDefaults).not.toHaveProperty('parallelToolCalls');
    expect(atDefaults).not.toHaveProperty('responseFormat');
    expect(atDefaults).not.toHaveProperty('logprobs');
    const others = decode({ messages: [user('x')], logit_bias: { '50256': -100 }, store: true, metadata: { run: '1' }, service_tier: 'flex' });
    expect(others.extensions).toEqual({ logit_bias: { '50256': -100 }, store: true, metadata: { run: '1' }, service_tier: 'flex' });
  });
});

describe('openai-chat encodeRequest: a canonical request becomes a Chat Completions body', () => {
  it('writes system text, system turns, images, tool calls and tool results the way a Chat server accepts', () => {
    const request = canonical({
      system: [
        { type: 'text', text: 'You are Claude Code.', cacheControl: { type: 'ephemeral' } },
        { type: 'text', text: 'Be brief.' },
      ],
      turns: [
        { role: 'user', parts: [{ type: 'text', text: 'Look' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' } }] },
        {
          role: 'assistant',
          parts: [
            { type: 'reasoning', text: 'Let me check.', signature: 'sig' },
            { type: 'text', text: '' },
            { type: 'tool_call', id: 'toolu_1', name: 'read', arguments: '{"path":"a.png"}' },
            { type: 'tool_call', id: 'toolu_2', name: 'ls', arguments: '{}' },
          ],
        },
        {
          role: 'user',
          parts: [
            { type: 'tool_result', callId: 'toolu_1', content: [{ type: 'text', text: 'the file:' }, { type: 'image', source: { kind: 'url', url: 'https://e.com/a.png' } }] },
            { type: 'tool_result', callId: 'toolu_2', content: 'a.png', isError: false },
            { type: 'text', text: 'Describe it.' },
          ],
        },
        { role: 'system', parts: [{ type: 'text', text: 'Reminder: be kind.' }] },
        { role: 'assistant', parts: [{ type: 'text', text: 'A cat.' }] },
        { role: 'user', parts: [{ type: 'text', text: 'Thanks' }] },
      ],
    });
    const { body, dropped } = openaiChatProvider.encodeRequest(request, target);
    expect(dropped).toEqual([]);
    expect(body).toEqual({
      model: 'llama3',
      messages: [
        { role: 'system', content: 'You are Claude Code.\n\nBe brief.' },
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
          ],
        },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'toolu_1', type: 'function', function: { name: 'read', arguments: '{"path":"a.png"}' } },
            { id: 'toolu_2', type: 'function', function: { name: 'ls', arguments: '{}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'the file:' },
        { role: 'tool', tool_call_id: 'toolu_2', content: 'a.png' },
        {
          role: 'user',
          content: [
            { type: 'image_url', image_url: { url: 'https://e.com/a.png' } },
            { type: 'text', text: 'Describe it.' },
          ],
        },
        { role: 'system', content: 'Reminder: be kind.' },
        { role: 'assistant', content: 'A cat.' },
        { role: 'user', content: 'Thanks' },
      ],
    });
    expect(openaiChatRequestProblem(body)).toBeUndefined();
  });

  it('writes tools, tool choice, sampling, reasoning effort, response format, log probabilities and streaming', () => {
    const parameters = { type: 'object', properties: {} };
    const request = canonical({
      tools: [{ name: 'f', description: 'does f', parameters, strict: true }, { name: 'g', parameters }],
      toolChoice: { mode: 'tool', name: 'f' },
      parallelToolCalls: false,
      maxOutputTokens: 1024,
      temperature: 0.5,
      topP: 0.8,
      topK: 20,
      stop: ['###'],
      seed: 3,
      presencePenalty: 0.1,
      frequencyPenalty: 0.2,
      user: 'u',
      reasoning: { enabled: true, effort: 'low' },
      responseFormat: { type: 'json_schema', name: 'out', schema: parameters, strict: true },
      logprobs: { top: 2 },
      stream: true,
    });
    const { body } = openaiChatProvider.encodeRequest(request, { provider: 'ollama', modelInBody: false });
    expect(body).toEqual({
      messages: [{ role: 'user', content: 'Hi' }],
      tools: [
        { type: 'function', function: { name: 'f', description: 'does f', parameters, strict: true } },
        { type: 'function', function: { name: 'g', parameters } },
      ],
      tool_choice: { type: 'function', function: { name: 'f' } },
      parallel_tool_calls: false,
      max_tokens: 1024,
      temperature: 0.5,
      top_p: 0.8,
      top_k: 20,
      stop: ['###'],
      seed: 3,
      presence_penalty: 0.1,
      frequency_penalty: 0.2,
      user: 'u',
      reasoning_effort: 'low',
      response_format: { type: 'json_schema', json_schema: { name: 'out', schema: parameters, strict: true } },
      logprobs: true,
      top_logprobs: 2,
      stream: true,
      stream_options: { include_usage: true },
    });
  });

  it.each([
    [{ mode: 'auto' }, 'auto'],
    [{ mode: 'none' }, 'none'],
    [{ mode: 'required' }, 'required'],
    [{ mode: 'tool', name: 'f' }, { type: 'function', function: { name: 'f' } }],
  ] as const)('writes tool choice %j as %j', (toolChoice, expected) => {
    expect(openaiChatProvider.encodeRequest(canonical({ tools: [{ name: 'f', parameters: {} }], toolChoice }), target).body.tool_choice).toEqual(expected);
  });

  it('sends no tool_choice or parallel_tool_calls without tools, which OpenAI refuses', () => {
    const { body } = openaiChatProvider.encodeRequest(canonical({ toolChoice: { mode: 'none' }, parallelToolCalls: true }), target);
    expect(body).not.toHaveProperty('tool_choice');
    expect(body).not.toHaveProperty('parallel_tool_calls');
  });

  it('turns a thinking budget into an effort level, and sends nothing when reasoning is off', () => {
    const effort = (reasoning: CanonicalRequest['reasoning']) => openaiChatProvider.encodeRequest(canonical({ reasoning }), target).body.reasoning_effort;
    expect(effort({ enabled: true, budgetTokens: 1024 })).toBe('low');
    expect(effort({ enabled: true, budgetTokens: 8000 })).toBe('medium');
    expect(effort({ enabled: true, budgetTokens: 32000 })).toBe('high');
    expect(effort({ enabled: false })).toBeUndefined();
  });

  it('drops the extensions of another dialect when the client asks for dropping, and refuses them when it asks for refusal', () => {
    const extensions = { context_management: { edits: [] }, 'metadata.user_id': 'x' };
    expect(openaiChatProvider.encodeRequest(canonical({ extensions }), target)).toMatchObject({ dropped: ['context_management', 'metadata.user_id'] });
    expect(openaiChatProvider.encodeRequest(canonical({ extensions }), target).body).not.toHaveProperty('context_management');
    expect(refusal(() => openaiChatProvider.encodeRequest(canonical({ extensions, onUnsupported: 'refuse' }), target))).toMatchObject({ status: 400, param: 'context_management', provider: 'groq' });
  });

  it('sends a chat client’s own extra fields on to a Chat provider, but refuses what it recorded against a message', () => {
    const request = decode({ messages: [user('x')], logit_bias: { '1': 2 }, store: true });
    expect(openaiChatProvider.encodeRequest(request, target).body).toMatchObject({ logit_bias: { '1': 2 }, store: true });
    expect(refusal(() => openaiChatProvider.encodeRequest(decode({ messages: [{ role: 'user', content: 'x', name: 'bob' }] }), target)).param).toBe('messages[0].name');
  });

  it.each([
    ['a system-only conversation', canonical({ system: [{ type: 'text', text: 'sys' }], turns: [] }), "'messages' must hold a user or assistant message besides the system text"],
    [
      'a tool result whose call the assistant turn before did not make',
      canonical({ turns: [{ role: 'user', parts: [{ type: 'text', text: 'x' }] }, { role: 'user', parts: [{ type: 'tool_result', callId: 'ghost', content: 'r' }] }] }),
      "'messages' holds a tool result for call 'ghost', which the assistant turn before did not make",
    ],
    [
      'an image in an assistant turn',
      canonical({ turns: [{ role: 'user', parts: [{ type: 'text', text: 'x' }] }, { role: 'assistant', parts: [{ type: 'image', source: { kind: 'url', url: 'https://e.com/i.png' } }] }] }),
      "'messages' with an image in an assistant turn is not supported by provider 'groq'",
    ],
  ])('refuses %s with a 400 naming the messages field, whatever the policy', (_, request, message) => {
    expect(refusal(() => openaiChatProvider.encodeRequest(request, target))).toMatchObject({ status: 400, message, param: 'messages' });
  });

  it('names the field in the client’s own words: input for a Responses client', () => {
    const request = canonical({ dialect: 'openai-responses', turns: [] });
    expect(refusal(() => openaiChatProvider.encodeRequest(request, target)).param).toBe('input');
  });
});

describe('openai-chat decodeResponse: a chat.completion becomes the canonical answer', () => {
  it('reads reasoning, text, tool calls, log probabilities, the finish reason and usage with cached and reasoning tokens', () => {
    const answer = openaiChatProvider.decodeResponse(
      {
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'qwen3:8b',
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: 'Checking.',
              reasoning_content: 'Need the weather.',
              tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
            },
            logprobs: { content: [{ token: 'Check', logprob: -0.1, bytes: [67], top_logprobs: [{ token: 'Check', logprob: -0.1 }] }] },
            finish_reason: 'tool_calls',
          },
        ],
        usage: { prompt_tokens: 50, completion_tokens: 20, total_tokens: 70, prompt_tokens_details: { cached_tokens: 32 }, completion_tokens_details: { reasoning_tokens: 8 } },
      },
      canonical(),
    );
    expect(answer).toEqual<CanonicalAnswer>({
      id: 'chatcmpl-1',
      model: 'qwen3:8b',
      content: [
        { type: 'reasoning', text: 'Need the weather.' },
        { type: 'text', text: 'Checking.' },
        { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      ],
      finishReason: 'tool_calls',
      usage: { inputTokens: 50, outputTokens: 20, cacheReadTokens: 32, reasoningTokens: 8 },
      logprobs: [{ token: 'Check', logprob: -0.1, top: [{ token: 'Check', logprob: -0.1 }] }],
    });
  });

  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['tool_calls', 'tool_calls'],
    ['function_call', 'tool_calls'],
    ['content_filter', 'content_filter'],
    ['eos', 'stop'],
    [null, null],
  ])('maps finish_reason %j to %j', (finishReason, expected) => {
    const answer = openaiChatProvider.decodeResponse({ id: 'x', model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'hi' }, finish_reason: finishReason }] }, canonical());
    expect(answer.finishReason).toBe(expected);
  });

  it('reads Ollama’s `reasoning` field, and an error object in a 200 answer as a provider error', () => {
    const answer = openaiChatProvider.decodeResponse({ choices: [{ index: 0, message: { role: 'assistant', content: 'ok', reasoning: 'hmm' }, finish_reason: 'stop' }] }, canonical());
    expect(answer).toMatchObject({ model: 'llama3', content: [{ type: 'reasoning', text: 'hmm' }, { type: 'text', text: 'ok' }], finishReason: 'stop' });
    expect(answer.id).toMatch(/^chatcmpl-/);
    expect(() => openaiChatProvider.decodeResponse({ error: { message: 'upstream overloaded', code: 503 } }, canonical())).toThrow(ProviderStreamError);
  });
});

describe('openai-chat stream decoder: chat.completion.chunk events become canonical events', () => {
  it('replays a recorded OpenAI stream with two tool calls whose arguments arrive in pieces', () => {
    const events = replay(canonical(), sseEvents('openai-chat-tool-calls.sse'));
    expect(events).toEqual<CanonicalEvent[]>([
      { type: 'start', id: 'chatcmpl-BxQ7p2', model: 'gpt-4o-2024-08-06' },
      { type: 'tool_call_start', index: 0, id: 'call_paris', name: 'get_weather' },
      { type: 'tool_call_delta', index: 0, arguments: '{"ci' },
      { type: 'tool_call_delta', index: 0, arguments: 'ty": "Pa' },
      { type: 'tool_call_delta', index: 0, arguments: 'ris"}' },
      { type: 'tool_call_start', index: 1, id: 'call_rome', name: 'get_weather' },
      { type: 'tool_call_delta', index: 1, arguments: '{"city": ' },
      { type: 'tool_call_delta', index: 1, arguments: '"Rome"}' },
      { type: 'tool_call_end', index: 0 },
      { type: 'tool_call_end', index: 1 },
      { type: 'finish', reason: 'tool_calls' },
      { type: 'usage', usage: { inputTokens: 82, outputTokens: 44, cacheReadTokens: 64, reasoningTokens: 0 } },
    ]);
    expect(foldEvents(events, { id: 'x', model: 'y' }).content).toEqual([
      { type: 'tool_call', id: 'call_paris', name: 'get_weather', arguments: '{"city": "Paris"}' },
      { type: 'tool_call', id: 'call_rome', name: 'get_weather', arguments: '{"city": "Rome"}' },
    ]);
  });

  it('replays a DeepSeek stream whose reasoning arrives as reasoning_content, with usage beside the finish reason', () => {
    expect(replay(canonical(), sseEvents('deepseek-reasoning.sse'))).toEqual<CanonicalEvent[]>([
      { type: 'start', id: 'b1f6', model: 'deepseek-reasoner' },
      { type: 'reasoning', text: 'The user greets; ' },
      { type: 'reasoning', text: 'answer briefly.' },
      { type: 'text', text: 'Hello' },
      { type: 'text', text: '!' },
      { type: 'usage', usage: { inputTokens: 10, outputTokens: 12, cacheReadTokens: 0, reasoningTokens: 9 } },
      { type: 'finish', reason: 'stop' },
    ]);
  });

  it('tells unnumbered tool calls apart by their id, and makes up the ids a server leaves out', () => {
    const chunk = (toolCall: object, finish: string | null = null) => sse({ id: 'o', model: 'llama3', choices: [{ index: 0, delta: { tool_calls: [toolCall] }, finish_reason: finish }] });
    const unnumbered = replay(canonical(), [
      chunk({ id: 'a', function: { name: 'f', arguments: '{"x":' } }),
      // Neither index nor id: the next piece of the call before.
      chunk({ function: { arguments: '1}' } }),
      chunk({ id: 'b', function: { name: 'g', arguments: '{}' } }, 'tool_calls'),
      sse('[DONE]'),
    ]);
    expect(foldEvents(unnumbered, { id: 'x', model: 'y' }).content).toEqual([
      { type: 'tool_call', id: 'a', name: 'f', arguments: '{"x":1}' },
      { type: 'tool_call', id: 'b', name: 'g', arguments: '{}' },
    ]);
    const numbered = replay(canonical(), [chunk({ index: 0, function: { name: 'f', arguments: '{}' } }), chunk({ index: 1, function: { name: 'g', arguments: '{}' } }, 'tool_calls')]);
    const starts = numbered.flatMap((event) => (event.type === 'tool_call_start' ? [event] : []));
    expect(starts.map((event) => event.index)).toEqual([0, 1]);
    for (const start of starts) expect(start.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(numbered.slice(-3)).toEqual([{ type: 'tool_call_end', index: 0 }, { type: 'tool_call_end', index: 1 }, { type: 'finish', reason: 'tool_calls' }]);
  });

  it('ends a stream that brought [DONE] but no finish reason as a plain stop', () => {
    const events = replay(canonical(), [sse({ id: 'o', model: 'm', choices: [{ index: 0, delta: { content: 'hi' }, finish_reason: null }] }), sse('[DONE]')]);
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'stop' });
  });

  it('reads only choice 0 and one finish reason', () => {
    const events = replay(canonical(), [
      sse({ id: 'o', choices: [{ index: 1, delta: { content: 'other' }, finish_reason: null }, { index: 0, delta: { content: 'mine' }, finish_reason: null }] }),
      sse({ id: 'o', choices: [{ index: 0, delta: {}, finish_reason: 'length' }] }),
      sse({ id: 'o', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }),
    ]);
    expect(events).toEqual([{ type: 'start', id: 'o' }, { type: 'text', text: 'mine' }, { type: 'finish', reason: 'length' }]);
  });

  it('throws a provider stream error for an error object inside the stream', () => {
    const decoder = openaiChatProvider.createStreamDecoder(canonical());
    decoder.onEvent(sse({ id: 'o', choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }] }));
    try {
      decoder.onEvent(sse({ error: { message: 'Rate limit reached', type: 'rate_limit_error', code: 'rate_limit_exceeded' } }));
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(ProviderStreamError);
      expect(error).toMatchObject({ message: 'Rate limit reached', type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    }
    expect(() => decoder.onEvent(sse('{not json'))).toThrow(/not JSON/);
  });

  it('throws stream_incomplete when the stream ends without [DONE] and without a finish reason', () => {
    const decoder = openaiChatProvider.createStreamDecoder(canonical());
    decoder.onEvent(sse({ id: 'o', choices: [{ index: 0, delta: { content: 'a' }, finish_reason: null }] }));
    expect(() => decoder.onEnd()).toThrow(expect.objectContaining({ code: 'stream_incomplete', type: 'api_error' }));
  });
});

describe('openai-chat encodeResponse: a canonical answer becomes the chat.completion OpenAI sends', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-11-24T00:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());
  const created = Date.parse('2026-11-24T00:00:00Z') / 1000;
  const chat = decode({ messages: [user('x')] });

  it('writes text, finish reason and usage with cached and reasoning tokens', () => {
    const answer: CanonicalAnswer = {
      id: 'msg_01',
      model: 'claude-sonnet-4-5',
      content: [
        { type: 'reasoning', text: 'thinking…', signature: 's' },
        { type: 'text', text: 'Hello ' },
        { type: 'text', text: 'world' },
      ],
      finishReason: 'stop_sequence',
      usage: { inputTokens: 18, outputTokens: 4, cacheReadTokens: 5, reasoningTokens: 2 },
    };
    expect(openaiChatDialect.encodeResponse(answer, chat)).toEqual({
      id: 'msg_01',
      object: 'chat.completion',
      created,
      model: 'claude-sonnet-4-5',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello world', refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 18, completion_tokens: 4, total_tokens: 22, prompt_tokens_details: { cached_tokens: 5 }, completion_tokens_details: { reasoning_tokens: 2 } },
    });
  });

  it('leaves content null when the assistant only calls tools, and leaves usage out when there is none', () => {
    const answer: CanonicalAnswer = {
      id: 'msg_02',
      model: 'm',
      content: [{ type: 'tool_call', id: 'toolu_a', name: 'get_weather', arguments: '{"city":"Paris"}' }],
      finishReason: 'tool_calls',
    };
    expect(openaiChatDialect.encodeResponse(answer, chat)).toEqual({
      id: 'msg_02',
      object: 'chat.completion',
      created,
      model: 'm',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: null, refusal: null, tool_calls: [{ id: 'toolu_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
    });
  });

  it('writes log probabilities in choice.logprobs.content with UTF-8 bytes, as the Gemini translator did', () => {
    const answer: CanonicalAnswer = { id: 'g', model: 'gemini', content: [{ type: 'text', text: 'Gé' }], finishReason: 'stop', logprobs: [{ token: 'Gé', logprob: -0.5, top: [{ token: 'Gé', logprob: -0.5 }] }] };
    expect((openaiChatDialect.encodeResponse(answer, chat) as { choices: { logprobs: unknown }[] }).choices[0].logprobs).toEqual({
      content: [{ token: 'Gé', logprob: -0.5, bytes: [71, 195, 169], top_logprobs: [{ token: 'Gé', logprob: -0.5, bytes: [71, 195, 169] }] }],
      refusal: null,
    });
  });

  it.each([
    ['stop', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause', 'stop'],
    ['length', 'length'],
    ['tool_calls', 'tool_calls'],
    ['content_filter', 'content_filter'],
    [null, null],
  ] as const)('writes finish reason %j as %j', (finishReason, expected) => {
    const answer: CanonicalAnswer = { id: 'a', model: 'm', content: [], finishReason };
    expect((openaiChatDialect.encodeResponse(answer, chat) as { choices: { finish_reason: unknown }[] }).choices[0].finish_reason).toBe(expected);
  });

  it('answers errors in the contract’s shape', () => {
    expect(openaiChatDialect.errorBody(new GatewayError(429, 'rate_limit_error', 'Slow down', null, 'rate_limited', 'anthropic'))).toEqual({
      error: { message: 'Slow down', type: 'rate_limit_error', param: null, code: 'rate_limited', provider: 'anthropic' },
    });
  });
});

describe('openai-chat stream encoder: canonical events become chat.completion.chunk events', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    vi.setSystemTime(new Date('2026-11-24T00:00:00Z'));
  });
  afterEach(() => vi.useRealTimers());
  const created = Date.parse('2026-11-24T00:00:00Z') / 1000;
  const frame = { id: 'msg_01', object: 'chat.completion.chunk', created, model: 'claude-x' };
  const events: CanonicalEvent[] = [
    { type: 'start', id: 'msg_01', model: 'claude-x' },
    { type: 'reasoning', text: 'hidden' },
    { type: 'text', text: 'Let me look.' },
    { type: 'tool_call_start', index: 0, id: 'toolu_a', name: 'get_weather' },
    { type: 'tool_call_delta', index: 0, arguments: '{"city":' },
    { type: 'tool_call_delta', index: 0, arguments: '"Paris"}' },
    { type: 'tool_call_end', index: 0 },
    { type: 'usage', usage: { inputTokens: 18, outputTokens: 4, cacheReadTokens: 5 } },
    { type: 'finish', reason: 'tool_calls' },
  ];
  const encode = (request: CanonicalRequest, fanOut?: { index: number; of: number }, list = events) => {
    const encoder = openaiChatDialect.createStreamEncoder(request, fanOut);
    return list.map((event) => encoder.onEvent(event)).join('') + encoder.onEnd();
  };
  const choice = (delta: object, finish: string | null = null, index = 0) => ({ index, delta, logprobs: null, finish_reason: finish });

  it('opens with the role, then text, tool-call pieces, the finish reason, usage: null on every chunk, the usage chunk and [DONE]', () => {
    const request = decode({ messages: [user('x')], stream: true, stream_options: { include_usage: true } });
    expect(dataLines(encode(request))).toEqual([
      { ...frame, choices: [choice({ role: 'assistant', content: '' })], usage: null },
      { ...frame, choices: [choice({ content: 'Let me look.' })], usage: null },
      { ...frame, choices: [choice({ tool_calls: [{ index: 0, id: 'toolu_a', type: 'function', function: { name: 'get_weather', arguments: '' } }] })], usage: null },
      { ...frame, choices: [choice({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] })], usage: null },
      { ...frame, choices: [choice({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] })], usage: null },
      { ...frame, choices: [choice({}, 'tool_calls')], usage: null },
      { ...frame, choices: [], usage: { prompt_tokens: 18, completion_tokens: 4, total_tokens: 22, prompt_tokens_details: { cached_tokens: 5 } } },
      '[DONE]',
    ]);
  });

  it('sends no usage key and no usage chunk when the client did not ask for usage', () => {
    const lines = dataLines(encode(decode({ messages: [user('x')], stream: true })));
    expect(lines.at(-1)).toBe('[DONE]');
    expect(lines.slice(0, -1).every((line) => !('usage' in (line as object)) && (line as { choices: unknown[] }).choices.length === 1)).toBe(true);
  });

  it('writes a held answer as the same stream through answerEvents, each whole tool call in one chunk', () => {
    const request = decode({ messages: [user('x')], stream: true });
    const answer = foldEvents(events, { id: 'x', model: 'y' });
    expect(dataLines(encode(request, undefined, answerEvents(answer))).map((line) => (line === '[DONE]' ? line : (line as { choices: unknown[] }).choices))).toEqual([
      [choice({ role: 'assistant', content: '' })],
      [choice({ content: 'Let me look.' })],
      [choice({ tool_calls: [{ index: 0, id: 'toolu_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] })],
      [choice({}, 'tool_calls')],
      '[DONE]',
    ]);
  });

  it('sends a call that arrives whole (start, one piece, end: Gemini) as one chunk, and a streamed call as its pieces', () => {
    const request = decode({ messages: [user('x')], stream: true });
    const toolCalls = (list: CanonicalEvent[]) =>
      dataLines(encode(request, undefined, list)).flatMap((line) => (line === '[DONE]' ? [] : (line as { choices: { delta: { tool_calls?: unknown[] } }[] }).choices.flatMap((c) => c.delta.tool_calls ?? [])));
    const whole: CanonicalEvent[] = [
      { type: 'tool_call_start', index: 0, id: 'call_a', name: 'f' },
      { type: 'tool_call_delta', index: 0, arguments: '{"a":1}' },
      { type: 'tool_call_end', index: 0 },
      { type: 'tool_call_start', index: 1, id: 'call_b', name: 'g' },
      { type: 'tool_call_end', index: 1 },
      { type: 'finish', reason: 'tool_calls' },
    ];
    expect(toolCalls(whole)).toEqual([
      { index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '{"a":1}' } },
      { index: 1, id: 'call_b', type: 'function', function: { name: 'g', arguments: '' } },
    ]);
    // A stream that ends (or fails) while a call is held still sends what it had.
    expect(toolCalls(whole.slice(0, 2))).toEqual([{ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '' } }, { index: 0, function: { arguments: '{"a":1}' } }]);
  });

  it('names the role on the first chunk even when the provider sent no start', () => {
    const request = decode({ messages: [user('x')], stream: true });
    const lines = dataLines(encode(request, undefined, [{ type: 'text', text: 'A' }, { type: 'finish', reason: 'stop' }])) as { id: string; model: string; choices: unknown[] }[];
    expect(lines[0].choices).toEqual([choice({ role: 'assistant', content: 'A' })]);
    expect(lines[0].model).toBe('m');
    expect(lines[0].id).toMatch(/^chatcmpl-/);
  });

  it('writes a fanned-out part on its own choice index, leaving usage and [DONE] to the tail, which sums the usage', () => {
    const request = decode({ messages: [user('x')], stream: true, n: 2, stream_options: { include_usage: true } });
    const part = dataLines(encode(request, { index: 1, of: 2 })) as { choices: { index: number }[]; usage: unknown }[];
    expect(part).toHaveLength(6);
    expect(part.every((line) => line.choices.length === 1 && line.choices[0].index === 1 && line.usage === null)).toBe(true);
    const tail = dataLines(openaiChatDialect.fanOutTail!(request, { inputTokens: 36, outputTokens: 8 }));
    expect(tail).toEqual([{ id: '', object: 'chat.completion.chunk', created, model: 'm', choices: [], usage: { prompt_tokens: 36, completion_tokens: 8, total_tokens: 44 } }, '[DONE]']);
    expect(openaiChatDialect.fanOutTail!(decode({ messages: [user('x')], stream: true, n: 2 }), { inputTokens: 1, outputTokens: 1 })).toBe('data: [DONE]\n\n');
  });

  it('writes log probabilities as a chunk of their own in the content shape', () => {
    const request = decode({ messages: [user('x')], stream: true, logprobs: true });
    const lines = dataLines(encode(request, undefined, [{ type: 'start', id: 'g', model: 'gemini' }, { type: 'text', text: 'Hi' }, { type: 'logprobs', tokens: [{ token: 'Hi', logprob: -1 }] }])) as { choices: unknown[] }[];
    expect(lines[2].choices).toEqual([{ index: 0, delta: {}, logprobs: { content: [{ token: 'Hi', logprob: -1, bytes: [72, 105], top_logprobs: [] }], refusal: null }, finish_reason: null }]);
  });

  it('ends a failed stream with the contract’s error event and no [DONE]', () => {
    const encoder = openaiChatDialect.createStreamEncoder(decode({ messages: [user('x')], stream: true }));
    encoder.onEvent({ type: 'start', id: 'a', model: 'b' });
    const text = encoder.onError(new GatewayError(502, 'overloaded_error', 'Overloaded', null, 'overloaded_error', 'anthropic'));
    expect(text).toBe('data: {"error":{"message":"Overloaded","type":"overloaded_error","param":null,"code":"overloaded_error","provider":"anthropic"}}\n\n');
  });
});
