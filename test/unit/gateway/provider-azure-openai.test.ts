// Azure OpenAI's pure parts: the deployment URL, which bearer tokens stay bearer, the stream clean-up
// of filter annotations, and content-filter errors.
import { describe, expect, it } from 'vitest';
import { azureOpenAI, isEntraToken, mapAzureError } from '../../../src-main/providers/azure-openai.js';
import { callRequest } from '../../../src-main/providers/provider-request.js';
import type { ProviderCall } from '../../../src-main/providers/types.js';
import { ProviderStreamError } from '../../../src-main/core/provider-stream-error.js';
import { validateChat, validateCompletion } from '../../../src-main/gateway/validate.js';

const azure = { resourceName: 'contoso', deploymentId: 'gpt 4o/mini', apiVersion: '2024-10-21' };

function call(endpoint: 'completions' | 'chat', overrides: Partial<ProviderCall> = {}): ProviderCall {
  const body = endpoint === 'chat' ? validateChat({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }) : validateCompletion({ model: 'gpt-35-turbo-instruct', prompt: 'x' });
  const format = endpoint === 'chat' ? 'openai-chat' : 'openai-completions';
  return { format, operation: 'generate', model: body.model, body: Buffer.from(JSON.stringify(body)), stream: true, credentials: { token: 'k'.repeat(32), azure }, forwardHeaders: {}, ...overrides } as ProviderCall;
}

/** The URL a call is sent to. */
const azureUrl = (sent: ProviderCall) => azureOpenAI.url({ kind: 'generate', call: sent }, sent);

const sse = (payload: object | string) => ({ kind: 'sse' as const, data: typeof payload === 'string' ? payload : JSON.stringify(payload) });

describe('azure-openai URL and auth', () => {
  it('builds the deployment URL, escaping the deployment name', () => {
    expect(azureUrl(call('completions'))).toBe('https://contoso.openai.azure.com/openai/deployments/gpt%204o%2Fmini/completions?api-version=2024-10-21');
    expect(azureUrl(call('chat'))).toBe('https://contoso.openai.azure.com/openai/deployments/gpt%204o%2Fmini/chat/completions?api-version=2024-10-21');
  });

  it('appends the path to a custom host and keeps its own query', () => {
    expect(azureUrl(call('chat', { customHost: 'https://apim.example.com/azure?sub=1' }))).toBe('https://apim.example.com/azure/deployments/gpt%204o%2Fmini/chat/completions?sub=1&api-version=2024-10-21');
  });

  it('tells an Entra ID JWT from a resource key', () => {
    expect(isEntraToken('eyJ0eXAiOiJKV1QifQ.eyJhdWQiOiJ4In0.c2ln')).toBe(true);
    expect(isEntraToken('0123456789abcdef0123456789abcdef')).toBe(false);
    expect(isEntraToken('eyJnot-a-jwt')).toBe(false);
  });

  it('sends the client bytes as they came', async () => {
    const raw = Buffer.from('{"model":"m","prompt":"x","seed":9007199254740993}');
    const request = await callRequest(azureOpenAI, { ...call('completions'), body: raw });
    expect(request.body).toBe(raw);
    expect(request.headers['api-key']).toBe('k'.repeat(32));
  });
});

describe('azure-openai stream clean-up', () => {
  it('drops the prompt-filter chunk, annotation-only entries and [DONE]; keeps text, finishing and usage chunks', () => {
    const translator = azureOpenAI.answerQuirk!(call('chat'));
    const filter = { hate: { filtered: false, severity: 'safe' } };
    expect(translator.onEvent(sse({ id: '', object: '', created: 0, model: '', choices: [], prompt_filter_results: [{ prompt_index: 0, content_filter_results: filter }] }))).toEqual([]);
    expect(translator.onEvent(sse({ id: 'c', object: 'chat.completion.chunk', model: 'gpt-4o-2024-08-06', choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }] }))).toMatchObject([{ model: 'gpt-4o-2024-08-06', choices: [{ delta: { content: 'Hi' } }] }]);
    expect(translator.onEvent(sse({ id: '', object: '', model: '', choices: [{ index: 0, finish_reason: null, content_filter_results: filter, content_filter_offsets: {} }] }))).toEqual([]);
    // A finishing entry without a delta still finishes, with the delta OpenAI clients expect.
    expect(translator.onEvent(sse({ id: 'c', object: '', model: '', choices: [{ index: 0, finish_reason: 'content_filter' }] }))).toMatchObject([
      { object: 'chat.completion.chunk', model: 'gpt-4o', choices: [{ delta: {}, finish_reason: 'content_filter' }] },
    ]);
    expect(translator.onEvent(sse({ id: 'c', object: 'chat.completion.chunk', model: 'm', choices: [], usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } }))).toHaveLength(1);
    expect(translator.onEvent(sse('[DONE]'))).toEqual([]);
  });

  it('falls back to the configured model name when Azure leaves the model blank', () => {
    const translator = azureOpenAI.answerQuirk!(call('completions', { credentials: { azure: { ...azure, modelName: 'gpt-35-turbo-instruct' } } }));
    expect(translator.onEvent(sse({ id: 'c', object: '', model: '', choices: [{ index: 0, text: 'a', finish_reason: null }] }))).toMatchObject([{ object: 'text_completion', model: 'gpt-35-turbo-instruct' }]);
  });

  it('turns an error event into a stream error', () => {
    const translator = azureOpenAI.answerQuirk!(call('completions'));
    expect(() => translator.onEvent(sse({ error: { code: 'server_error', message: 'Boom' } }))).toThrow(ProviderStreamError);
  });
});

describe('azure-openai errors', () => {
  it('keeps the message and code of a content-filter 400 and says which categories fired', () => {
    const body = JSON.stringify({
      error: {
        message: 'The response was filtered due to the prompt triggering Azure OpenAI’s content management policy.',
        type: null,
        param: 'prompt',
        code: 'content_filter',
        status: 400,
        innererror: { code: 'ResponsibleAIPolicyViolation', content_filter_result: { hate: { filtered: true, severity: 'high' }, jailbreak: { filtered: true, detected: true }, sexual: { filtered: false, severity: 'safe' } } },
      },
    });
    expect(mapAzureError(400, body)).toEqual({
      message: 'The response was filtered due to the prompt triggering Azure OpenAI’s content management policy. (filtered: hate (high), jailbreak)',
      type: 'invalid_request_error',
      code: 'content_filter',
      param: 'prompt',
    });
  });

  it('reads the APIM form {statusCode, message}', () => {
    expect(mapAzureError(401, '{"statusCode":401,"message":"Unauthorized. Access token is missing, invalid, audience is incorrect (https://cognitiveservices.azure.com), or have expired."}')).toMatchObject({
      type: 'authentication_error',
      message: expect.stringContaining('Access token is missing'),
    });
  });
});
