import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerEvents, foldEvents, type CanonicalAnswer, type CanonicalEvent, type CanonicalRequest, type UpstreamEvent } from '../../../src-main/codecs/canonical.js';
import { openaiResponsesDialect, openaiResponsesProvider, refusesStatefulFields } from '../../../src-main/codecs/openai-responses/index.js';
import { GatewayError } from '../../../src-main/core/errors.js';
import { ProviderStreamError } from '../../../src-main/core/provider-stream-error.js';

const decode = (body: object) => openaiResponsesDialect.decodeRequest(body);
const target = { provider: 'openai', modelInBody: true };

function canonical(overrides: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return { dialect: 'openai-chat', onUnsupported: 'refuse', model: 'gpt-5', system: [], turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }], stream: false, extensions: {}, ...overrides };
}

/** SSE text → the events it carries, as `{event, data}` with the data parsed. */
function parseSse(text: string): { event: string; data: Record<string, unknown> }[] {
  return text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? '';
      const data = frame
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      return { event, data: JSON.parse(data) as Record<string, unknown> };
    });
}

/** SSE text → upstream events with their data exactly as written. */
const sseEvents = (text: string): UpstreamEvent[] =>
  text
    .split('\n\n')
    .filter((frame) => frame.trim() !== '')
    .map((frame): UpstreamEvent => ({ kind: 'sse', event: /^event: (.*)$/m.exec(frame)?.[1], data: /^data: (.*)$/m.exec(frame)?.[1] ?? '' }));

function replay(events: UpstreamEvent[], request = decode({ model: 'gpt-5', input: 'Hi' })): CanonicalEvent[] {
  const decoder = openaiResponsesProvider.createStreamDecoder(request);
  return [...events.flatMap((event) => decoder.onEvent(event)), ...decoder.onEnd()];
}

function sse(type: string, payload: Record<string, unknown> = {}): UpstreamEvent {
  return { kind: 'sse', event: type, data: JSON.stringify({ type, ...payload }) };
}

function errorOf(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

describe('a Responses request read into the canonical model', () => {
  it('reads a string input as one user turn, with the defaults a Responses client expects', () => {
    expect(decode({ model: 'gpt-5', input: 'Say hi' })).toEqual({
      dialect: 'openai-responses',
      onUnsupported: 'drop',
      model: 'gpt-5',
      system: [],
      turns: [{ role: 'user', parts: [{ type: 'text', text: 'Say hi' }] }],
      stream: false,
      extensions: {},
    });
  });

  it('puts instructions and leading system / developer messages in the system, and later ones in system turns', () => {
    const request = decode({
      model: 'gpt-5',
      instructions: 'Be brief.',
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are Codex.' }] },
        { role: 'system', content: 'Use tools.' },
        { role: 'user', content: [{ type: 'input_text', text: 'Hi' }] },
        { type: 'message', role: 'developer', content: 'The user switched to plan mode.' },
        { role: 'user', content: 'Go on' },
      ],
    });
    expect(request.system).toEqual([
      { type: 'text', text: 'Be brief.' },
      { type: 'text', text: 'You are Codex.' },
      { type: 'text', text: 'Use tools.' },
    ]);
    expect(request.turns).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'Hi' }] },
      { role: 'system', parts: [{ type: 'text', text: 'The user switched to plan mode.' }] },
      { role: 'user', parts: [{ type: 'text', text: 'Go on' }] },
    ]);
  });

  it('joins assistant text, reasoning and consecutive function calls in one assistant turn, and their outputs in one user turn', () => {
    const request = decode({
      model: 'gpt-5',
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'Weather in Paris and Rome?' }] },
        { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Two cities.' }, { type: 'summary_text', text: 'Two calls.' }], encrypted_content: 'gAAA==' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Checking.' }] },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call', call_id: 'call_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
        { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'rain' }] },
        { role: 'user', content: 'Thanks' },
      ],
    });
    expect(request.turns).toEqual([
      { role: 'user', parts: [{ type: 'text', text: 'Weather in Paris and Rome?' }] },
      {
        role: 'assistant',
        parts: [
          { type: 'reasoning', text: 'Two cities.\n\nTwo calls.', encrypted: 'gAAA==' },
          { type: 'text', text: 'Checking.' },
          { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
          { type: 'tool_call', id: 'call_2', name: 'get_weather', arguments: '{"city":"Rome"}' },
        ],
      },
      {
        role: 'user',
        parts: [
          { type: 'tool_result', callId: 'call_1', name: 'get_weather', content: 'sunny' },
          { type: 'tool_result', callId: 'call_2', name: 'get_weather', content: [{ type: 'text', text: 'rain' }] },
        ],
      },
      { role: 'user', parts: [{ type: 'text', text: 'Thanks' }] },
    ]);
  });

  it.each([
    ['an image URL', 'https://example.com/cat.png', { kind: 'url', url: 'https://example.com/cat.png' }],
    ['a base64 data URL', 'data:image/png;base64,iVBORw0KGgo=', { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0KGgo=' }],
  ])('reads %s in a user message as an image', (_name, url, source) => {
    const request = decode({ model: 'gpt-5', input: [{ role: 'user', content: [{ type: 'input_text', text: 'What is it?' }, { type: 'input_image', image_url: url, detail: 'auto' }] }] });
    expect(request.turns[0].parts[1]).toEqual({ type: 'image', source });
  });

  it('flattens namespace tools to <namespace>__<tool> and keeps the parts, as for calls in the history', () => {
    const request = decode({
      model: 'gpt-5',
      input: [
        { role: 'user', content: 'Look up order 7' },
        { type: 'function_call', namespace: 'mcp__shop', name: 'lookup', call_id: 'call_1', arguments: '{"id":7}' },
      ],
      tools: [
        { type: 'function', name: 'shell', description: 'Run a command', parameters: { type: 'object', properties: { command: { type: 'string' } } }, strict: false },
        { type: 'namespace', name: 'mcp__shop', description: 'Shop tools', tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object', properties: {} } }, { type: 'custom', name: 'raw' }] },
        { type: 'web_search' },
        { type: 'custom', name: 'apply_patch', format: { type: 'grammar' } },
      ],
    });
    expect(request.tools).toEqual([
      { name: 'shell', description: 'Run a command', parameters: { type: 'object', properties: { command: { type: 'string' } } }, strict: false },
      { name: 'mcp__shop__lookup', parameters: { type: 'object', properties: {} }, namespace: { namespace: 'mcp__shop', name: 'lookup', description: 'Shop tools' } },
    ]);
    expect(request.turns[1].parts[0]).toMatchObject({ type: 'tool_call', name: 'mcp__shop__lookup' });
    expect(Object.keys(request.extensions)).toEqual(['tools[1].tools[1]', 'tools[2]', 'tools[3]']);
  });

  it("reads the tools of Codex's additional_tools item, which does not end the leading developer messages", () => {
    const request = decode({
      model: 'gpt-5',
      input: [
        { type: 'additional_tools', role: 'developer', tools: [{ type: 'function', name: 'exec', parameters: { type: 'object' } }] },
        { role: 'developer', content: 'You are Codex.' },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(request.tools).toEqual([{ name: 'exec', parameters: { type: 'object' } }]);
    expect(request.system).toEqual([{ type: 'text', text: 'You are Codex.' }]);
  });

  it('keeps input items other formats have no place for as extensions named by their position', () => {
    const request = decode({
      model: 'gpt-5',
      input: [
        { role: 'user', content: 'hi' },
        { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
        { type: 'custom_tool_call', call_id: 'c', name: 'apply_patch', input: '*** Begin Patch' },
        { type: 'custom_tool_call_output', call_id: 'c', output: 'done' },
      ],
    });
    expect(Object.keys(request.extensions)).toEqual(['input[1]', 'input[2]', 'input[3]']);
    expect(request.turns).toHaveLength(1);
  });

  it('maps the sampling, tool, reasoning and format fields, and keeps the rest as extensions', () => {
    const request = decode({
      model: 'gpt-5',
      input: 'x',
      tool_choice: { type: 'function', name: 'shell' },
      parallel_tool_calls: false,
      max_output_tokens: 500,
      temperature: 0.2,
      top_p: 0.9,
      reasoning: { effort: 'high', summary: 'auto' },
      text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true }, verbosity: 'low' },
      stream: true,
      user: 'u-1',
      safety_identifier: 'hash-1',
      include: ['reasoning.encrypted_content', 'message.output_text.logprobs'],
      top_logprobs: 3,
      store: false,
      prompt_cache_key: 'session-1',
      client_metadata: { a: 1 },
      service_tier: 'auto',
    });
    expect(request).toMatchObject({
      toolChoice: { mode: 'tool', name: 'shell' },
      parallelToolCalls: false,
      maxOutputTokens: 500,
      temperature: 0.2,
      topP: 0.9,
      reasoning: { enabled: true, effort: 'high' },
      responseFormat: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true },
      stream: true,
      user: 'u-1',
      logprobs: { top: 3 },
    });
    expect(request.extensions).toEqual({
      'reasoning.summary': 'auto',
      'text.verbosity': 'low',
      safety_identifier: 'hash-1',
      include: ['reasoning.encrypted_content'],
      store: false,
      prompt_cache_key: 'session-1',
      client_metadata: { a: 1 },
      service_tier: 'auto',
    });
  });

  it.each([
    ['"auto"', 'auto', { mode: 'auto' }],
    ['"none"', 'none', { mode: 'none' }],
    ['"required"', 'required', { mode: 'required' }],
  ])('reads tool_choice %s', (_name, value, expected) => {
    expect(decode({ model: 'm', input: 'x', tool_choice: value }).toolChoice).toEqual(expected);
  });

  it('reads reasoning effort "none" as reasoning turned off', () => {
    expect(decode({ model: 'm', input: 'x', reasoning: { effort: 'none' } }).reasoning).toEqual({ enabled: false });
  });

  it('reads a Codex request as Codex sends it', () => {
    const request = decode({
      model: 'gpt-5-codex',
      instructions: 'You are Codex, based on GPT-5.',
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: '<permissions instructions>…' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>cwd: /repo</environment_context>' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'list the files' }] },
        { type: 'reasoning', summary: [], encrypted_content: 'gAAAAB' },
        { type: 'function_call', name: 'shell_command', arguments: '{"command":"ls"}', call_id: 'call_abc' },
        { type: 'function_call_output', call_id: 'call_abc', output: 'README.md\nsrc' },
      ],
      tools: [{ type: 'function', name: 'shell_command', description: 'Runs a shell command', strict: false, parameters: { type: 'object', properties: { command: { type: 'string' } }, required: ['command'], additionalProperties: false } }],
      tool_choice: 'auto',
      parallel_tool_calls: false,
      reasoning: { effort: 'medium', summary: 'auto' },
      store: false,
      stream: true,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: '0199a-session',
      text: { verbosity: 'medium' },
    });
    expect(request.system.map((part) => part.text)).toEqual(['You are Codex, based on GPT-5.', '<permissions instructions>…']);
    expect(request.turns.map((turn) => [turn.role, turn.parts.map((part) => part.type)])).toEqual([
      ['user', ['text']],
      ['user', ['text']],
      ['assistant', ['reasoning', 'tool_call']],
      ['user', ['tool_result']],
    ]);
    expect(request.turns[3].parts[0]).toEqual({ type: 'tool_result', callId: 'call_abc', name: 'shell_command', content: 'README.md\nsrc' });
    expect(request).toMatchObject({ stream: true, parallelToolCalls: false, toolChoice: { mode: 'auto' }, reasoning: { enabled: true, effort: 'medium' } });
    expect(Object.keys(request.extensions).sort()).toEqual(['include', 'prompt_cache_key', 'reasoning.summary', 'store', 'text.verbosity']);
  });

  it.each([
    ['a body that is not an object', [], null],
    ['no model', { input: 'x' }, 'model'],
    ['an empty model', { model: '', input: 'x' }, 'model'],
    ['an input that is a number', { model: 'm', input: 3 }, 'input'],
    ['an input item that is not an object', { model: 'm', input: ['hi'] }, 'input[0]'],
    ['an unknown role', { model: 'm', input: [{ role: 'tool', content: 'x' }] }, 'input[0].role'],
    ['content that is a number', { model: 'm', input: [{ role: 'user', content: 1 }] }, 'input[0].content'],
    ['an unknown content part', { model: 'm', input: [{ role: 'user', content: [{ type: 'video' }] }] }, 'input[0].content[0].type'],
    ['text that is not a string', { model: 'm', input: [{ role: 'user', content: [{ type: 'input_text', text: 5 }] }] }, 'input[0].content[0].text'],
    ['an image in a developer message', { model: 'm', input: [{ role: 'developer', content: [{ type: 'input_image', image_url: 'https://x' }] }] }, 'input[0].content[0]'],
    ['an image with neither URL nor file', { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image' }] }] }, 'input[0].content[0].image_url'],
    ['a data URL that is not base64', { model: 'm', input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:image/png,abc' }] }] }, 'input[0].content[0].image_url'],
    ['a function call without call_id', { model: 'm', input: [{ type: 'function_call', name: 'f', arguments: '{}' }] }, 'input[0].call_id'],
    ['function call arguments as an object', { model: 'm', input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: {} }] }, 'input[0].arguments'],
    ['a function output that is a number', { model: 'm', input: [{ type: 'function_call_output', call_id: 'c', output: 1 }] }, 'input[0].output'],
    ['tools that are not a list', { model: 'm', input: 'x', tools: {} }, 'tools'],
    ['a function tool without a name', { model: 'm', input: 'x', tools: [{ type: 'function' }] }, 'tools[0].name'],
    ['tool parameters that are a string', { model: 'm', input: 'x', tools: [{ type: 'function', name: 'f', parameters: 'x' }] }, 'tools[0].parameters'],
    ['an unknown tool_choice', { model: 'm', input: 'x', tool_choice: 'any' }, 'tool_choice'],
    ['parallel_tool_calls as a string', { model: 'm', input: 'x', parallel_tool_calls: 'yes' }, 'parallel_tool_calls'],
    ['max_output_tokens of 0', { model: 'm', input: 'x', max_output_tokens: 0 }, 'max_output_tokens'],
    ['a temperature of 3', { model: 'm', input: 'x', temperature: 3 }, 'temperature'],
    ['a top_p as a string', { model: 'm', input: 'x', top_p: '1' }, 'top_p'],
    ['an unknown reasoning effort', { model: 'm', input: 'x', reasoning: { effort: 'extreme' } }, 'reasoning.effort'],
    ['a json_schema format without a schema', { model: 'm', input: 'x', text: { format: { type: 'json_schema', name: 'a' } } }, 'text.format.schema'],
    ['an unknown text format', { model: 'm', input: 'x', text: { format: { type: 'yaml' } } }, 'text.format.type'],
    ['stream as a string', { model: 'm', input: 'x', stream: 'true' }, 'stream'],
    ['top_logprobs of 21', { model: 'm', input: 'x', top_logprobs: 21 }, 'top_logprobs'],
  ])('refuses %s with a 400 naming the field', (_name, body, param) => {
    const error = errorOf(() => decode(body as object));
    expect(error.status).toBe(400);
    expect(error.type).toBe('invalid_request_error');
    expect(error.param).toBe(param);
  });

  it('answers any malformed body with a 400, never another error', () => {
    const value = fc.anything({ maxDepth: 3 });
    const item = fc.oneof(
      value,
      fc.record({ type: fc.constantFrom('message', 'function_call', 'function_call_output', 'reasoning', 'additional_tools', undefined), role: fc.oneof(fc.constantFrom('user', 'assistant', 'developer'), value), content: fc.oneof(fc.string(), fc.array(fc.oneof(value, fc.record({ type: fc.constantFrom('input_text', 'input_image', 'output_text'), text: value, image_url: value }))), value), call_id: value, name: value, arguments: value, output: value, summary: value, tools: value }, { requiredKeys: [] }),
    );
    const body = fc.record({ model: fc.oneof(fc.constant('gpt-5'), value), input: fc.oneof(fc.string(), fc.array(item), value), tools: fc.oneof(fc.array(fc.oneof(value, fc.record({ type: fc.constantFrom('function', 'namespace'), name: value, tools: value, parameters: value }))), value), tool_choice: value, reasoning: value, text: value, include: value, top_logprobs: value, temperature: value, max_output_tokens: value }, { requiredKeys: [] });
    fc.assert(
      fc.property(body, (json) => {
        try {
          decode(json);
        } catch (error) {
          expect(error).toBeInstanceOf(GatewayError);
          expect((error as GatewayError).status).toBe(400);
        }
        refusesStatefulFields(json);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps previous_response_id as an extension rather than refusing it (an OpenAI target honours it)', () => {
    expect(decode({ model: 'm', input: 'x', previous_response_id: 'resp_1' }).extensions).toEqual({ previous_response_id: 'resp_1' });
  });
});

describe('fields only OpenAI itself can honour', () => {
  it.each([
    ['previous_response_id', { previous_response_id: 'resp_1' }, 'previous_response_id'],
    ['a stored conversation', { conversation: 'conv_1' }, 'conversation'],
    ['a stored prompt', { prompt: { id: 'pmpt_1' } }, 'prompt'],
    ['a background response', { background: true }, 'background'],
    ['an item_reference', { input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input[0]'],
    ['an image by file_id', { input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1' }] }] }, 'input[0].content[0].file_id'],
    ['a file', { input: [{ role: 'user', content: [{ type: 'input_file', file_data: 'data:application/pdf;base64,AA' }] }] }, 'input[0].content[0]'],
    ['a file in a tool output', { input: [{ type: 'function_call_output', call_id: 'c', output: [{ type: 'input_file', file_id: 'f' }] }] }, 'input[0].output[0]'],
  ])('refuses %s for a provider that is not Responses-native', (_name, body, param) => {
    const error = refusesStatefulFields({ model: 'm', ...body });
    expect(error?.status).toBe(400);
    expect(error?.param).toBe(param);
  });

  it('says what to do instead of previous_response_id', () => {
    expect(refusesStatefulFields({ model: 'm', previous_response_id: 'resp_1' })?.message).toBe(
      "Gatehouse keeps no conversation state: 'previous_response_id' needs a provider that stores responses (OpenAI); send the whole conversation in 'input' instead",
    );
  });

  it('lets a stateless request through', () => {
    expect(refusesStatefulFields({ model: 'm', store: false, previous_response_id: null, input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x/y.png' }] }] })).toBeUndefined();
  });
});

describe('a canonical request written as a Responses body', () => {
  it('writes a Chat-like conversation with a tool round trip, statelessly', () => {
    const { body, dropped } = openaiResponsesProvider.encodeRequest(
      canonical({
        system: [{ type: 'text', text: 'Be brief.' }, { type: 'text', text: 'Use metric units.' }],
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'Weather?' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAA' } }] },
          { role: 'assistant', parts: [{ type: 'text', text: '' }, { type: 'tool_call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' }] },
          { role: 'user', parts: [{ type: 'tool_result', callId: 'call_1', content: '18C' }, { type: 'text', text: 'And now?' }] },
          { role: 'system', parts: [{ type: 'text', text: 'Answer in French.' }] },
        ],
        tools: [{ name: 'get_weather', description: 'Weather', parameters: { type: 'object' } }],
        toolChoice: { mode: 'required' },
        parallelToolCalls: false,
        maxOutputTokens: 100,
        temperature: 0.5,
        topP: 0.8,
        reasoning: { enabled: true, effort: 'low' },
        responseFormat: { type: 'json_object' },
        user: 'u1',
        stream: true,
      }),
      target,
    );
    expect(dropped).toEqual([]);
    expect(body).toEqual({
      model: 'gpt-5',
      instructions: 'Be brief.\n\nUse metric units.',
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Weather?' }, { type: 'input_image', image_url: 'data:image/png;base64,AAA', detail: 'auto' }] },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '18C' },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'And now?' }] },
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Answer in French.' }] },
      ],
      tools: [{ type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object' }, strict: false }],
      tool_choice: 'required',
      parallel_tool_calls: false,
      max_output_tokens: 100,
      temperature: 0.5,
      top_p: 0.8,
      reasoning: { effort: 'low' },
      text: { format: { type: 'json_object' } },
      user: 'u1',
      store: false,
      stream: true,
    });
  });

  it.each([
    ['stop sequences', { stop: ['\n'] }, 'stop'],
    ['a seed', { seed: 1 }, 'seed'],
    ['top_k', { topK: 5 }, 'top_k'],
    ['a presence penalty', { presencePenalty: 0.5 }, 'presence_penalty'],
    ['a Chat-only field', { extensions: { logit_bias: { 1: 2 } } }, 'logit_bias'],
  ])('refuses %s for a Chat client (the refuse policy) and drops it for a drop-policy client', (_name, fields, name) => {
    const error = errorOf(() => openaiResponsesProvider.encodeRequest(canonical(fields as Partial<CanonicalRequest>), target));
    expect(error.param).toBe(name);
    const { dropped } = openaiResponsesProvider.encodeRequest(canonical({ ...(fields as Partial<CanonicalRequest>), onUnsupported: 'drop' }), target);
    expect(dropped).toEqual([name]);
  });

  it('refuses a tool result whose call no earlier assistant turn made, whatever the policy', () => {
    const request = canonical({ onUnsupported: 'drop', turns: [{ role: 'user', parts: [{ type: 'tool_result', callId: 'call_9', content: 'x' }] }] });
    expect(errorOf(() => openaiResponsesProvider.encodeRequest(request, target)).param).toBe('messages');
  });

  it('refuses a conversation left with no messages, naming the messages field', () => {
    const error = errorOf(() => openaiResponsesProvider.encodeRequest(canonical({ system: [{ type: 'text', text: 'sys' }], turns: [] }), target));
    expect(error.status).toBe(400);
    expect(error.param).toBe('messages');
  });

  it('turns a thinking budget into an effort and asks for logprobs through include', () => {
    const { body } = openaiResponsesProvider.encodeRequest(canonical({ reasoning: { enabled: true, budgetTokens: 10000 }, logprobs: { top: 2 } }), target);
    expect(body).toMatchObject({ reasoning: { effort: 'medium' }, include: ['message.output_text.logprobs'], top_logprobs: 2 });
  });

  it('sends encrypted reasoning back, and leaves out reasoning another provider produced', () => {
    const { body } = openaiResponsesProvider.encodeRequest(
      canonical({
        turns: [
          { role: 'user', parts: [{ type: 'text', text: 'q' }] },
          { role: 'assistant', parts: [{ type: 'reasoning', text: 'hmm', signature: 'anthropic-sig' }, { type: 'reasoning', text: 'sum', encrypted: 'gAAA' }, { type: 'text', text: 'a' }] },
          { role: 'user', parts: [{ type: 'text', text: 'q2' }] },
        ],
      }),
      target,
    );
    expect(body.input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'q' }] },
      { type: 'reasoning', summary: [{ type: 'summary_text', text: 'sum' }], encrypted_content: 'gAAA' },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'a' }] },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'q2' }] },
    ]);
  });

  it('gives a Codex body back nearly as it came when the request stays in the Responses dialect (namespaces, hosted tools, extensions)', () => {
    const original = {
      model: 'gpt-5',
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'x' } },
        { type: 'function_call', call_id: 'c1', namespace: 'mcp__shop', name: 'lookup', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'ok' },
      ],
      tools: [{ type: 'namespace', name: 'mcp__shop', description: 'Shop', tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object' }, strict: false }] }, { type: 'web_search' }],
      reasoning: { effort: 'low', summary: 'auto' },
      text: { verbosity: 'low' },
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'k',
      store: false,
      stream: true,
    };
    const { body, dropped } = openaiResponsesProvider.encodeRequest(decode(original), target);
    expect(dropped).toEqual([]);
    expect(body).toEqual({
      ...original,
      input: [
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
        original.input[1],
        { type: 'function_call', call_id: 'c1', name: 'lookup', namespace: 'mcp__shop', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'ok' },
      ],
    });
  });

  it('drops the Responses-only fields of a Codex request for other formats, naming each', () => {
    const request = decode({ model: 'm', input: 'x', store: false, include: ['reasoning.encrypted_content'], tools: [{ type: 'web_search' }] });
    const { dropped } = openaiResponsesProvider.encodeRequest({ ...request, dialect: 'openai-chat', onUnsupported: 'drop' }, target);
    expect(dropped.sort()).toEqual(['include', 'store', 'tools[0]']);
  });
});

const fixture = readFileSync(new URL('./__fixtures__/openai-responses-stream.sse', import.meta.url), 'utf8');

describe('a Responses answer read back into canonical events', () => {
  it('replays a stream with a reasoning summary, text and a function call into canonical events, as they arrive', () => {
    const events = replay(sseEvents(fixture));
    expect(events).toEqual([
      { type: 'start', id: 'resp_68a1f0c2d4e88190b2a7c5e1f3d9a0b4', model: 'gpt-5-2025-08-07' },
      { type: 'reasoning', text: '**Checking the weather**\n\n' },
      { type: 'reasoning', text: 'The user wants ' },
      { type: 'reasoning', text: 'Paris weather.' },
      { type: 'reasoning', text: '\n\n' },
      { type: 'reasoning', text: 'I will call the tool.' },
      { type: 'reasoning_encrypted', data: 'gAAAAABoo_enc==' },
      { type: 'text', text: 'Let me' },
      { type: 'text', text: ' check the' },
      { type: 'text', text: ' weather.' },
      { type: 'tool_call_start', index: 0, id: 'call_Xy12AbCdEfGh34', name: 'get_weather' },
      { type: 'tool_call_delta', index: 0, arguments: '{"city"' },
      { type: 'tool_call_delta', index: 0, arguments: ':"Par' },
      { type: 'tool_call_delta', index: 0, arguments: 'is"}' },
      { type: 'tool_call_end', index: 0 },
      { type: 'usage', usage: { inputTokens: 1234, outputTokens: 210, cacheReadTokens: 1024, reasoningTokens: 128 } },
      { type: 'finish', reason: 'tool_calls' },
    ]);
  });

  it('reads the same answer whole as from the stream', () => {
    const response = parseSse(fixture).at(-1)!.data.response;
    const request = decode({ model: 'gpt-5', input: 'Hi' });
    const whole = openaiResponsesProvider.decodeResponse(response, request);
    expect(whole).toEqual({
      id: 'resp_68a1f0c2d4e88190b2a7c5e1f3d9a0b4',
      model: 'gpt-5-2025-08-07',
      content: [
        { type: 'reasoning', text: '**Checking the weather**\n\nThe user wants Paris weather.\n\nI will call the tool.' },
        { type: 'reasoning', text: '', encrypted: 'gAAAAABoo_enc==' },
        { type: 'text', text: 'Let me check the weather.' },
        { type: 'tool_call', id: 'call_Xy12AbCdEfGh34', name: 'get_weather', arguments: '{"city":"Paris"}' },
      ],
      finishReason: 'tool_calls',
      usage: { inputTokens: 1234, outputTokens: 210, cacheReadTokens: 1024, reasoningTokens: 128 },
    });
    expect(foldEvents(replay(sseEvents(fixture)), { id: '', model: '' })).toEqual(whole);
  });

  it.each([
    ['completed without calls', { status: 'completed' }, 'stop'],
    ['stopped by max_output_tokens', { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } }, 'length'],
    ['stopped by the content filter', { status: 'incomplete', incomplete_details: { reason: 'content_filter' } }, 'content_filter'],
  ])('maps a response %s to finish reason %s', (_name, fields, reason) => {
    const answer = openaiResponsesProvider.decodeResponse({ id: 'resp_1', model: 'gpt-5', output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'hi', annotations: [] }] }], ...fields }, canonical());
    expect(answer.finishReason).toBe(reason);
  });

  it('names a namespaced function call by its flattened name', () => {
    const answer = openaiResponsesProvider.decodeResponse({ id: 'r', model: 'm', status: 'completed', output: [{ type: 'function_call', call_id: 'c', namespace: 'mcp__shop', name: 'lookup', arguments: '{}' }] }, canonical());
    expect(answer.content).toEqual([{ type: 'tool_call', id: 'c', name: 'mcp__shop__lookup', arguments: '{}' }]);
  });

  it('throws the provider error of a failed response', () => {
    expect(() => openaiResponsesProvider.decodeResponse({ id: 'r', status: 'failed', error: { code: 'server_error', message: 'boom' }, output: [] }, canonical())).toThrow(ProviderStreamError);
  });

  it('ends a stream cut short by max_output_tokens with finish length', () => {
    const events = replay([
      sse('response.created', { response: { id: 'resp_1', model: 'm' } }),
      sse('response.output_text.delta', { output_index: 0, content_index: 0, delta: 'Hel' }),
      sse('response.incomplete', { response: { id: 'resp_1', status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: { input_tokens: 3, output_tokens: 1 } } }),
    ]);
    expect(events.at(-1)).toEqual({ type: 'finish', reason: 'length' });
  });

  it('reads items that arrive whole in output_item.done without deltas', () => {
    const events = replay([
      sse('response.created', { response: { id: 'resp_1', model: 'm' } }),
      sse('response.output_item.done', { output_index: 0, item: { type: 'message', content: [{ type: 'output_text', text: 'Hi' }] } }),
      sse('response.output_item.done', { output_index: 1, item: { type: 'function_call', call_id: 'c', name: 'f', arguments: '{"a":1}' } }),
      sse('response.completed', { response: { id: 'resp_1', status: 'completed' } }),
    ]);
    expect(foldEvents(events, { id: '', model: '' }).content).toEqual([
      { type: 'text', text: 'Hi' },
      { type: 'tool_call', id: 'c', name: 'f', arguments: '{"a":1}' },
    ]);
  });

  it.each([
    ['response.failed', [sse('response.failed', { response: { status: 'failed', error: { code: 'rate_limit_exceeded', message: 'slow down' } } })], 'rate_limit_exceeded'],
    ['an error event', [sse('error', { code: 'server_error', message: 'boom', param: null })], 'server_error'],
    ['an early end', [], 'stream_incomplete'],
  ])('throws a ProviderStreamError for %s', (_name, tail, code) => {
    const events = [sse('response.created', { response: { id: 'resp_1' } }), sse('response.output_text.delta', { output_index: 0, delta: 'x' }), ...tail];
    let caught: unknown;
    try {
      replay(events);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ProviderStreamError);
    expect((caught as ProviderStreamError).code).toBe(code);
  });
});

const answer: CanonicalAnswer = {
  id: 'msg_01ABC',
  model: 'claude-sonnet-4-5',
  content: [
    { type: 'reasoning', text: 'The user wants the weather.', signature: 'sig' },
    { type: 'text', text: 'Let me check.' },
    { type: 'tool_call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
    { type: 'tool_call', id: 'toolu_2', name: 'mcp__shop__lookup', arguments: '{"id":7}' },
  ],
  finishReason: 'tool_calls',
  usage: { inputTokens: 100, outputTokens: 40, cacheReadTokens: 60, reasoningTokens: 10 },
};

const codexRequest = decode({
  model: 'claude-sonnet-4-5',
  input: 'weather?',
  stream: true,
  tools: [
    { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
    { type: 'namespace', name: 'mcp__shop', description: 'Shop', tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object' } }] },
  ],
});

function encodeStream(events: CanonicalEvent[], request = codexRequest): string {
  const encoder = openaiResponsesDialect.createStreamEncoder(request);
  return events.map((event) => encoder.onEvent(event)).join('') + encoder.onEnd();
}

describe('a canonical answer written for a Responses client', () => {
  it('writes the whole stream in the order OpenAI sends it', () => {
    const events = parseSse(encodeStream(answerEvents(answer)));
    expect(events.map((event) => event.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.output_item.added',
      'response.function_call_arguments.delta',
      'response.function_call_arguments.done',
      'response.output_item.done',
      'response.completed',
    ]);
  });

  it('numbers every event in order, names its type, and closes every item it opens', () => {
    const events = parseSse(encodeStream(answerEvents(answer)));
    events.forEach((event, i) => {
      expect(event.data.type).toBe(event.event);
      expect(event.data.sequence_number).toBe(i);
    });
    const added = events.filter((event) => event.event === 'response.output_item.added').map((event) => event.data.output_index);
    const done = events.filter((event) => event.event === 'response.output_item.done').map((event) => event.data.output_index);
    expect(done).toEqual(added);
    expect(added).toEqual([0, 1, 2, 3]);
    for (const event of events.filter((e) => /delta|done|part/.test(e.event) && e.event !== 'response.output_item.done')) {
      expect(typeof event.data.item_id).toBe('string');
      expect(typeof event.data.output_index).toBe('number');
    }
    expect(events.at(-1)!.event).toBe('response.completed');
  });

  it('ends with the whole response, its usage, and namespaced calls named as the client declared them', () => {
    const events = parseSse(encodeStream(answerEvents(answer)));
    const response = events.at(-1)!.data.response as Record<string, unknown>;
    expect(response).toMatchObject({
      id: 'resp_msg01ABC',
      object: 'response',
      status: 'completed',
      model: 'claude-sonnet-4-5',
      error: null,
      incomplete_details: null,
      usage: { input_tokens: 100, input_tokens_details: { cached_tokens: 60 }, output_tokens: 40, output_tokens_details: { reasoning_tokens: 10 }, total_tokens: 140 },
    });
    expect(response.output).toEqual([
      { id: 'rs_msg01ABC_0', type: 'reasoning', summary: [{ type: 'summary_text', text: 'The user wants the weather.' }] },
      { id: 'msg_msg01ABC_1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', annotations: [], logprobs: [], text: 'Let me check.' }] },
      { id: 'fc_msg01ABC_2', type: 'function_call', status: 'completed', arguments: '{"city":"Paris"}', call_id: 'toolu_1', name: 'get_weather' },
      { id: 'fc_msg01ABC_3', type: 'function_call', status: 'completed', arguments: '{"id":7}', call_id: 'toolu_2', name: 'lookup', namespace: 'mcp__shop' },
    ]);
  });

  it('writes the same Response object for a held answer', () => {
    const stream = parseSse(encodeStream(answerEvents(answer)));
    const whole = openaiResponsesDialect.encodeResponse(answer, codexRequest) as Record<string, unknown>;
    const streamed = stream.at(-1)!.data.response as Record<string, unknown>;
    expect({ ...whole, created_at: 0 }).toEqual({ ...streamed, created_at: 0 });
  });

  it('ends an answer cut at the token limit with response.incomplete', () => {
    const events = parseSse(encodeStream([{ type: 'start', id: 'resp_x', model: 'm' }, { type: 'text', text: 'Hel' }, { type: 'finish', reason: 'length' }, { type: 'usage', usage: { inputTokens: 1, outputTokens: 1 } }]));
    const last = events.at(-1)!;
    expect(last.event).toBe('response.incomplete');
    expect(last.data.response).toMatchObject({ id: 'resp_x', status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: { total_tokens: 2 } });
  });

  it('writes encrypted reasoning from a Responses upstream into its reasoning item, and never an Anthropic signature', () => {
    const events = parseSse(
      encodeStream([
        { type: 'start', id: 'resp_1' },
        { type: 'reasoning', text: 'think' },
        { type: 'reasoning_signature', signature: 'anthropic' },
        { type: 'reasoning_encrypted', data: 'gAAA' },
        { type: 'text', text: 'ok' },
        { type: 'finish', reason: 'stop' },
      ]),
    );
    const done = events.filter((event) => event.event === 'response.output_item.done').map((event) => event.data.item);
    expect(done[0]).toEqual({ id: 'rs_1_0', type: 'reasoning', summary: [{ type: 'summary_text', text: 'think' }], encrypted_content: 'gAAA' });
    expect(JSON.stringify(events)).not.toContain('anthropic');
  });

  it('writes response.failed with the error when the upstream fails mid-stream', () => {
    const encoder = openaiResponsesDialect.createStreamEncoder(codexRequest);
    const text = encoder.onEvent({ type: 'start', id: 'resp_1' }) + encoder.onEvent({ type: 'text', text: 'par' }) + encoder.onError(new GatewayError(429, 'rate_limit_error', 'Too many requests'));
    const last = parseSse(text).at(-1)!;
    expect(last.event).toBe('response.failed');
    expect(last.data.response).toMatchObject({ status: 'failed', error: { code: 'rate_limit_exceeded', message: 'Too many requests' } });
  });

  it("writes errors in OpenAI's shape", () => {
    expect(openaiResponsesDialect.errorBody(new GatewayError(400, 'invalid_request_error', 'bad', 'input', null))).toEqual({ error: { message: 'bad', type: 'invalid_request_error', param: 'input', code: null } });
  });

  it('reads back through the provider decoder as the same answer', () => {
    const events = replay(sseEvents(encodeStream(answerEvents(answer))), codexRequest);
    const folded = foldEvents(events, { id: '', model: '' });
    expect(folded.content).toEqual([
      { type: 'reasoning', text: 'The user wants the weather.' },
      { type: 'text', text: 'Let me check.' },
      { type: 'tool_call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'tool_call', id: 'toolu_2', name: 'mcp__shop__lookup', arguments: '{"id":7}' },
    ]);
    expect(folded.finishReason).toBe('tool_calls');
    expect(folded.usage).toEqual(answer.usage);
  });
});

describe("the official openai SDK reading the encoder's output", () => {
  let server: Server;
  let client: OpenAI;
  let lastBody: Record<string, unknown> = {};
  const textAnswer: CanonicalAnswer = { id: 'chatcmpl-1', model: 'llama3', content: [{ type: 'text', text: 'Hello there' }], finishReason: 'stop', usage: { inputTokens: 5, outputTokens: 2 } };

  beforeAll(async () => {
    server = createServer((req, res) => {
      let raw = '';
      req.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      req.on('end', () => {
        lastBody = JSON.parse(raw) as Record<string, unknown>;
        const request = openaiResponsesDialect.decodeRequest(lastBody);
        const reply = String(lastBody.input).includes('tool') ? answer : textAnswer;
        if (request.stream) {
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.end(encodeStream(answerEvents(reply), request));
        } else {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify(openaiResponsesDialect.encodeResponse(reply, request)));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = new OpenAI({ baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, apiKey: 'test', maxRetries: 0 });
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('assembles output_text from a held answer', async () => {
    const response = await client.responses.create({ model: 'llama3', input: 'hi' });
    expect(response.output_text).toBe('Hello there');
    expect(response.usage?.total_tokens).toBe(7);
  });

  it('streams text deltas and assembles the final response', async () => {
    const stream = client.responses.stream({ model: 'llama3', input: 'hi' });
    const deltas: string[] = [];
    stream.on('response.output_text.delta', (event) => deltas.push(event.delta));
    const final = await stream.finalResponse();
    expect(deltas.join('')).toBe('Hello there');
    expect(final.output_text).toBe('Hello there');
    expect(final.status).toBe('completed');
  });

  it('assembles function calls from a streamed tool-using answer', async () => {
    const final = await client.responses
      .stream({
        model: 'claude',
        input: 'use a tool',
        tools: [
          { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false },
          { type: 'namespace', name: 'mcp__shop', description: 'Shop', tools: [{ type: 'function', name: 'lookup', parameters: { type: 'object' } }] },
        ],
      })
      .finalResponse();
    const calls = final.output.filter((item) => item.type === 'function_call');
    expect(calls.map((call) => [call.call_id, call.namespace, call.name, call.arguments])).toEqual([
      ['toolu_1', undefined, 'get_weather', '{"city":"Paris"}'],
      ['toolu_2', 'mcp__shop', 'lookup', '{"id":7}'],
    ]);
    expect(final.output_text).toBe('Let me check.');
    expect(final.usage?.input_tokens_details.cached_tokens).toBe(60);
  });

  it('reads every event of responses.create({stream: true}) in sequence', async () => {
    const stream = await client.responses.create({ model: 'llama3', input: 'hi', stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
  });
});
