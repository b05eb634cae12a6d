// The Bedrock double's own Converse rules: bodies Bedrock accepts pass, bodies it refuses fail with its
// ValidationException message. A double that silently accepts is caught here.
import { describe, expect, it } from 'vitest';
import { converseRequestProblem, defaultBedrockAnswer, type BedrockRecordedRequest } from '../../fakes/bedrock.js';
import type { ServerResponse } from 'node:http';

const user = (...content: unknown[]) => ({ role: 'user', content });
const assistant = (...content: unknown[]) => ({ role: 'assistant', content });
const text = (value: string) => ({ text: value });
const toolUse = (id: string) => ({ toolUse: { toolUseId: id, name: 'get_weather', input: { city: 'Paris' } } });
const toolResult = (id: string, extra: Record<string, unknown> = {}) => ({ toolResult: { toolUseId: id, content: [{ text: '18C' }], ...extra } });
const TOOL_CONFIG = { tools: [{ toolSpec: { name: 'get_weather', inputSchema: { json: { type: 'object' } } } }] };

const GOOD: [string, unknown][] = [
  ['one user message', { messages: [user(text('Hi'))] }],
  ['system, alternating turns, inferenceConfig', { system: [text('Be brief')], messages: [user(text('Hi')), assistant(text('Hello')), user(text('How are you?'))], inferenceConfig: { maxTokens: 10 } }],
  ['a tool round trip', { messages: [user(text('Weather?')), assistant(text('Checking'), toolUse('t1')), user(toolResult('t1'))], toolConfig: TOOL_CONFIG }],
  ['two results for two calls', { messages: [user(text('Weather?')), assistant(toolUse('t1'), toolUse('t2')), user(toolResult('t1'), toolResult('t2'), text('thanks'))], toolConfig: TOOL_CONFIG }],
  ['a final assistant prefill', { messages: [user(text('Hi')), assistant(text('The answer is'))] }],
  ['a cache point and an image', { messages: [user({ image: { format: 'png', source: { bytes: 'AAAA' } } }, text('What is it?'), { cachePoint: { type: 'default' } })] }],
];

const BAD: [string, unknown, RegExp][] = [
  ['no messages', {}, /Value null at 'messages'/],
  ['empty messages (a system-only chat)', { system: [text('Be brief')], messages: [] }, /^A conversation must start with a user message\. Try again with a conversation that starts with a user message\.$/],
  ['an assistant first', { messages: [assistant(text('Hello')), user(text('Hi'))] }, /^A conversation must start with a user message/],
  ['two user turns in a row', { messages: [user(text('Hi')), user(text('Again'))] }, /^A conversation must alternate between user and assistant roles\. Make sure the conversation alternates between user and assistant roles and try again\.$/],
  ['two assistant turns in a row', { messages: [user(text('Hi')), assistant(text('a')), assistant(text('b'))] }, /must alternate/],
  ['an empty content array', { messages: [user()] }, /^The content field in the Message object at messages\.0 is empty\. Add a ContentBlock object to the content field and try again\.$/],
  ['a blank text block', { messages: [user(text('Hi')), assistant(text(''), toolUse('t1')), user(toolResult('t1'))], toolConfig: TOOL_CONFIG }, /^The text field in the ContentBlock object at messages\.1\.content\.0 is blank\. Add text to the text field, and try again\.$/],
  ['a whitespace-only text block', { messages: [user(text(' \n'))] }, /messages\.0\.content\.0 is blank/],
  ['a blank system block', { system: [text('')], messages: [user(text('Hi'))] }, /system\.0 is blank/],
  ['a role other than user/assistant', { messages: [{ role: 'system', content: [text('x')] }] }, /Member must satisfy enum value set: \[user, assistant\]/],
  ['content null', { messages: [{ role: 'user', content: null }] }, /Value null at 'messages\.1\.member\.content'/],
  ['a toolResult without a toolUse before it', { messages: [user(text('Hi')), assistant(text('Sure')), user(toolResult('t9'))], toolConfig: TOOL_CONFIG }, /The number of toolResult blocks at messages\.2\.content exceeds the number of toolUse blocks of previous turn/],
  ['a toolResult for another id', { messages: [user(text('Hi')), assistant(toolUse('t1')), user(toolResult('t9'))], toolConfig: TOOL_CONFIG }, /t9/],
  ['a toolUse left without its result', { messages: [user(text('Hi')), assistant(toolUse('t1')), user(text('Never mind'))], toolConfig: TOOL_CONFIG }, /Expected toolResult blocks at messages\.2\.content for the following Ids: t1/],
  ['tool blocks without toolConfig', { messages: [user(text('Hi')), assistant(toolUse('t1')), user(toolResult('t1'))] }, /^The toolConfig field must be defined when using toolUse and toolResult content blocks\.$/],
  ['an error toolResult without content', { messages: [user(text('Hi')), assistant(toolUse('t1')), user(toolResult('t1', { status: 'error', content: [] }))], toolConfig: TOOL_CONFIG }, /cannot be empty when status value is error/],
  ['a block with two kinds', { messages: [user({ text: 'Hi', image: {} })] }, /exactly one of/],
];

describe('the Bedrock double accepts what Converse accepts', () => {
  it.each(GOOD)('%s', (_name, json) => {
    expect(converseRequestProblem(json)).toBeUndefined();
  });
});

describe('the Bedrock double refuses what Converse refuses, in its words', () => {
  it.each(BAD)('%s', (_name, json, message) => {
    expect(converseRequestProblem(json)).toMatch(message);
  });
});

describe('the Bedrock double answers a refusal in the real shape', () => {
  it('400, x-amzn-errortype ValidationException:…, body {message}', () => {
    let status = 0;
    let headers: Record<string, string> = {};
    let sent = '';
    const res = {
      writeHead: (code: number, head: Record<string, string>) => {
        status = code;
        headers = head;
      },
      end: (chunk: string) => {
        sent = chunk;
      },
    } as unknown as ServerResponse;
    const request = { json: { messages: [] }, operation: 'converse' } as unknown as BedrockRecordedRequest;
    defaultBedrockAnswer(request, res);
    expect(status).toBe(400);
    expect(headers['x-amzn-errortype']).toMatch(/^ValidationException:/);
    expect(JSON.parse(sent)).toEqual({ message: 'A conversation must start with a user message. Try again with a conversation that starts with a user message.' });
  });
});
