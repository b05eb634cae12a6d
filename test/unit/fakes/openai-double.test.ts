// The OpenAI double's own rules: bodies OpenAI accepts pass, bodies it refuses fail with its message, an
// unknown path is a 404 in its error shape. A double that answers anything is caught here.
import { describe, expect, it } from 'vitest';
import { openaiChatRequestProblem, openaiCompletionRequestProblem, startOpenAIFake } from '../../fakes/openai.js';

const CHAT_GOOD: [string, unknown][] = [
  ['a plain chat', { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hi' }] }],
  ['every role, content parts, tool calls', {
    model: 'gpt-4o-mini',
    messages: [
      { role: 'developer', content: 'Be brief' },
      { role: 'system', content: [{ type: 'text', text: 'Really' }] },
      { role: 'user', content: '' },
      { role: 'assistant', content: '', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'ok' },
    ],
    tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }],
    stream: true,
    stream_options: { include_usage: true },
  }],
];

const CHAT_BAD: [string, unknown, RegExp][] = [
  ['no model', { messages: [{ role: 'user', content: 'Hi' }] }, /^you must provide a model parameter$/],
  ['a model that is not a string', { model: 4, messages: [{ role: 'user', content: 'Hi' }] }, /Invalid type for 'model'/],
  ['no messages', { model: 'gpt-4o-mini' }, /^Missing required parameter: 'messages'\.$/],
  ['messages as a string', { model: 'gpt-4o-mini', messages: 'Hi' }, /^Invalid type for 'messages': expected an array of objects, but got string instead\.$/],
  ['empty messages', { model: 'gpt-4o-mini', messages: [] }, /^Invalid 'messages': empty array/],
  ['an unknown role', { model: 'gpt-4o-mini', messages: [{ role: 'model', content: 'Hi' }] }, /^Invalid value: 'model'\. Supported values are/],
  ['a body that is not an object', ['x'], /could not parse the JSON body/],
];

const COMPLETION_GOOD: [string, unknown][] = [
  ['a string prompt', { model: 'gpt-3.5-turbo-instruct', prompt: 'Say hi' }],
  ['an empty prompt', { model: 'gpt-3.5-turbo-instruct', prompt: '' }],
  ['prompts', { model: 'gpt-3.5-turbo-instruct', prompt: ['a', 'b'] }],
  ['token ids', { model: 'gpt-3.5-turbo-instruct', prompt: [1, 2, 3] }],
  ['token id arrays', { model: 'gpt-3.5-turbo-instruct', prompt: [[1, 2], [3]] }],
];

const COMPLETION_BAD: [string, unknown, RegExp][] = [
  ['no model', { prompt: 'Hi' }, /^you must provide a model parameter$/],
  ['no prompt', { model: 'gpt-3.5-turbo-instruct' }, /^Missing required parameter: 'prompt'\.$/],
  ['a prompt object', { model: 'gpt-3.5-turbo-instruct', prompt: { text: 'Hi' } }, /^Invalid type for 'prompt'.*but got object instead\.$/],
  ['a prompt number', { model: 'gpt-3.5-turbo-instruct', prompt: 4 }, /Invalid type for 'prompt'/],
  ['a mixed prompt array', { model: 'gpt-3.5-turbo-instruct', prompt: ['a', 1] }, /Invalid type for 'prompt'/],
];

describe('the OpenAI double: chat completions', () => {
  it.each(CHAT_GOOD)('accepts %s', (_name, json) => expect(openaiChatRequestProblem(json)).toBeUndefined());
  it.each(CHAT_BAD)('refuses %s', (_name, json, message) => expect(openaiChatRequestProblem(json)).toMatch(message));
});

describe('the OpenAI double: legacy completions', () => {
  it.each(COMPLETION_GOOD)('accepts %s', (_name, json) => expect(openaiCompletionRequestProblem(json)).toBeUndefined());
  it.each(COMPLETION_BAD)('refuses %s', (_name, json, message) => expect(openaiCompletionRequestProblem(json)).toMatch(message));
});

describe('the OpenAI double server', () => {
  it('answers refusals and unknown paths in the real error shape, and valid requests with 200', async () => {
    const fake = await startOpenAIFake();
    const post = (path: string, body: unknown) => fetch(`${fake.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: typeof body === 'string' ? body : JSON.stringify(body) });
    try {
      const noModel = await post('/chat/completions', { messages: [{ role: 'user', content: 'Hi' }] });
      expect(noModel.status).toBe(400);
      expect(await noModel.json()).toEqual({ error: { message: 'you must provide a model parameter', type: 'invalid_request_error', param: null, code: null } });
      const badPrompt = await post('/completions', { model: 'm', prompt: { x: 1 } });
      expect(badPrompt.status).toBe(400);
      expect((await badPrompt.json()).error).toMatchObject({ type: 'invalid_request_error', param: 'prompt', code: 'invalid_type' });
      const notJson = await post('/chat/completions', '{not json');
      expect(notJson.status).toBe(400);
      const unknown = await post('/chat/complete', { model: 'm', messages: [{ role: 'user', content: 'Hi' }] });
      expect(unknown.status).toBe(404);
      expect(await unknown.json()).toEqual({ error: { message: 'Invalid URL (POST /v1/chat/complete)', type: 'invalid_request_error', param: null, code: null } });
      expect((await post('/chat/completions', { model: 'm', messages: [{ role: 'user', content: 'Hi' }] })).status).toBe(200);
      expect((await post('/completions', { model: 'm', prompt: 'Hi' })).status).toBe(200);
      expect((await fetch(`${fake.baseUrl}/models?limit=10`)).status).toBe(200);
    } finally {
      await fake.close();
    }
  });
});

describe('the Azure OpenAI double shares the body rules, the model named by the deployment', () => {
  it('accepts a body without model, refuses one without messages or with a wrong prompt', async () => {
    const { startAzureFake } = await import('../../fakes/azure-openai.js');
    const fake = await startAzureFake();
    const post = (route: string, body: unknown) =>
      fetch(`${fake.baseUrl}/deployments/gpt/${route}?api-version=2024-10-21`, { method: 'POST', headers: { 'content-type': 'application/json', 'api-key': 'k' }, body: JSON.stringify(body) });
    try {
      expect(openaiChatRequestProblem({ messages: [{ role: 'user', content: 'Hi' }] }, { modelInPath: true })).toBeUndefined();
      expect((await post('chat/completions', { messages: [{ role: 'user', content: 'Hi' }] })).status).toBe(200);
      const noMessages = await post('chat/completions', {});
      expect(noMessages.status).toBe(400);
      expect((await noMessages.json()).error).toMatchObject({ param: 'messages', code: 'missing_required_parameter' });
      expect((await post('completions', { prompt: { text: 'Hi' } })).status).toBe(400);
      expect((await post('completions', { prompt: 'Hi' })).status).toBe(200);
    } finally {
      await fake.close();
    }
  });
});
