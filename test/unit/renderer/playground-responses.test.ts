// The Playground's Responses mode against a stub of the gateway's POST /v1/responses that checks a
// request the way OpenAI's Responses API does (the strict double's own checks): the request Codex would
// send goes out, and the typed SSE stream (or the whole response) comes back as text, usage and how the
// response ended.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { codeSnippet } from '../../../src-renderer/playground/code-snippets';
import { draftFromLoggedRequest } from '../../../src-renderer/playground/draft-from-log';
import { readResponsesPiece } from '../../../src-renderer/playground/responses';
import { draftRequest, usePlaygroundStore } from '../../../src-renderer/stores/playground-store';
import { responsesRequestProblem } from '../../helpers/responses-double';

interface Sent {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

function openAIError(status: number, message: string, param: string | null = null, type = 'invalid_request_error'): Response {
  return new Response(JSON.stringify({ error: { message, type, param, code: null } }), { status, headers: { 'content-type': 'application/json' } });
}

const USAGE = { input_tokens: 12, input_tokens_details: { cached_tokens: 4 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 17 };

function response(status: string, text: string, extra: Record<string, unknown> = {}) {
  return {
    id: 'resp_1',
    object: 'response',
    status,
    output: [
      { type: 'reasoning', id: 'rs_1', summary: [] },
      { type: 'message', id: 'msg_1', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] },
    ],
    usage: USAGE,
    ...extra,
  };
}

/** Answers as /v1/responses does; refuses what OpenAI refuses. */
function responsesStub(sent: Sent[]) {
  return async (url: string, init: RequestInit): Promise<Response> => {
    const headers = init.headers as Record<string, string>;
    const body = JSON.parse(String(init.body)) as Record<string, unknown>;
    sent.push({ url, headers, body });
    if (url !== '/v1/responses') return openAIError(404, `No route ${url}`);
    if (!headers.authorization && !headers['x-gateway-api-key']) return openAIError(401, 'You did not provide an API key.', null, 'authentication_error');
    const problem = responsesRequestProblem(body);
    if (problem) return openAIError(400, problem.message, problem.param);
    if (body.stream !== true) return new Response(JSON.stringify(response('completed', 'Whole answer')), { status: 200, headers: { 'content-type': 'application/json' } });
    const events: Array<[string, Record<string, unknown>]> = [
      ['response.created', { response: { ...response('in_progress', ''), output: [], usage: null } }],
      ['response.output_item.added', { output_index: 1, item: { type: 'message', id: 'msg_1', role: 'assistant', content: [] } }],
      ['response.output_text.delta', { item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'Hel' }],
      ['response.output_text.delta', { item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'lo' }],
      ['response.output_text.done', { item_id: 'msg_1', output_index: 1, content_index: 0, text: 'Hello' }],
      ['response.completed', { response: response('completed', 'Hello') }],
    ];
    const text = events.map(([type, data], index) => `event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: index, ...data })}\n\n`).join('');
    return new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8', 'x-gateway-trace-id': 'trace-r' } });
  };
}

describe('the Playground in Responses mode', () => {
  const initial = usePlaygroundStore.getState();
  let sent: Sent[];
  beforeEach(() => {
    // A pasted key: what Codex would send itself.
    usePlaygroundStore.setState({ ...initial, authKind: 'virtual-key' }, true);
    sent = [];
    vi.stubGlobal('fetch', responsesStub(sent));
  });
  afterEach(() => vi.unstubAllGlobals());

  it('sends what Codex sends and streams the text deltas into the output, once', async () => {
    usePlaygroundStore.getState().update({ mode: 'responses', virtualKey: 'gh-vk-responses-key', model: 'gpt-5-codex', prompt: 'Say hello' });
    await usePlaygroundStore.getState().run();
    const state = usePlaygroundStore.getState();
    expect(state.error).toBeNull();
    expect(sent).toHaveLength(1);
    expect(sent[0].url).toBe('/v1/responses');
    expect(sent[0].headers).toMatchObject({ authorization: 'Bearer gh-vk-responses-key', 'content-type': 'application/json' });
    expect(sent[0].headers['x-gateway-api-key']).toBeUndefined();
    expect(sent[0].body).toEqual({
      model: 'gpt-5-codex',
      instructions: 'You are a helpful assistant.',
      input: [{ role: 'user', content: 'Say hello' }],
      max_output_tokens: 256,
      stream: true,
      store: false,
    });
    expect(state.phase).toBe('done');
    // The deltas, not the deltas and the completed response's full text again.
    expect(state.outputs).toEqual(['Hello']);
    expect(state.stats?.finishReasons).toEqual(['completed']);
    expect(state.stats?.usage).toEqual({ promptTokens: 12, completionTokens: 5, totalTokens: 17 });
    expect(state.stats?.traceId).toBe('trace-r');
    expect(state.raw?.request.headers.authorization).not.toContain('responses-key');
    expect(state.raw?.response.body).toContain('event: response.output_text.delta\ndata: {"type":"response.output_text.delta"');
  });

  it('reads a whole response when not streaming, and the next run sends the reply back as the conversation', async () => {
    const store = usePlaygroundStore.getState();
    store.update({ mode: 'responses', virtualKey: 'gh-vk-responses-key', model: 'gpt-5', prompt: 'Once' });
    store.updateParameters({ stream: false, stop: ['END'], logitBias: '{"1": 5}', user: 'me' });
    await usePlaygroundStore.getState().run();
    expect(usePlaygroundStore.getState().error).toBeNull();
    // Chat-only fields the Responses API refuses are never sent, whatever the other modes left behind.
    expect(sent[0].body).toMatchObject({ user: 'me', store: false });
    for (const field of ['stream', 'stream_options', 'stop', 'logit_bias', 'max_tokens']) expect(sent[0].body[field]).toBeUndefined();
    expect(usePlaygroundStore.getState().outputs).toEqual(['Whole answer']);
    expect(usePlaygroundStore.getState().stats?.usage).toEqual({ promptTokens: 12, completionTokens: 5, totalTokens: 17 });
    // The finished turn joined the conversation by itself: the prompt box is free for the next one.
    expect(usePlaygroundStore.getState().prompt).toBe('');
    usePlaygroundStore.getState().update({ prompt: 'Again' });
    await usePlaygroundStore.getState().run();
    expect(usePlaygroundStore.getState().error).toBeNull();
    expect((sent[1].body.input as unknown[]).slice(-3)).toEqual([
      { role: 'user', content: 'Once' },
      { role: 'assistant', content: 'Whole answer' },
      { role: 'user', content: 'Again' },
    ]);
  });

  it('sends a reasoning effort as reasoning.effort, and Chat mode as reasoning_effort', async () => {
    const store = usePlaygroundStore.getState();
    store.update({ mode: 'responses', virtualKey: 'gh-vk-x', model: 'gpt-5', prompt: 'Think' });
    store.updateParameters({ reasoningEffort: 'high' });
    await usePlaygroundStore.getState().run();
    expect(usePlaygroundStore.getState().error).toBeNull();
    expect(sent[0].body.reasoning).toEqual({ effort: 'high' });
    expect(sent[0].body.reasoning_effort).toBeUndefined();
    const { body } = draftRequest({ ...usePlaygroundStore.getState(), mode: 'chat' });
    expect(body.reasoning_effort).toBe('high');
    expect(body.reasoning).toBeUndefined();
    expect(draftRequest({ ...usePlaygroundStore.getState(), mode: 'completion' }).body.reasoning_effort).toBeUndefined();
    // And a logged request brings its effort back.
    expect(draftFromLoggedRequest('/v1/responses', JSON.stringify({ model: 'm', input: 'x', reasoning: { effort: 'minimal', summary: 'auto' } }))?.parameters.reasoningEffort).toBe('minimal');
    expect(draftFromLoggedRequest('/v1/chat/completions', JSON.stringify({ model: 'm', messages: [], reasoning_effort: 'low' }))?.parameters.reasoningEffort).toBe('low');
    expect(draftFromLoggedRequest('/v1/chat/completions', JSON.stringify({ model: 'm', messages: [], reasoning_effort: 'extreme' }))?.parameters.reasoningEffort).toBe('');
  });

  it('blocks a max tokens below the 16 the Responses API takes, before sending anything', async () => {
    const store = usePlaygroundStore.getState();
    store.update({ mode: 'responses', virtualKey: 'gh-vk-x', model: 'gpt-5', prompt: 'x' });
    store.setNumber('max_tokens', '8');
    await usePlaygroundStore.getState().run();
    expect(sent).toHaveLength(0);
    expect(usePlaygroundStore.getState().error).toMatchObject({ param: 'max_tokens', message: expect.stringContaining('16') });
  });

  it("shows an in-stream error event's message", async () => {
    vi.stubGlobal('fetch', async () => new Response(`event: error\ndata: ${JSON.stringify({ type: 'error', code: 'rate_limit_exceeded', message: 'Slow down', param: null })}\n\n`, { status: 200, headers: { 'content-type': 'text/event-stream' } }));
    usePlaygroundStore.getState().update({ mode: 'responses', virtualKey: 'gh-vk-x', model: 'gpt-5', prompt: 'x' });
    await usePlaygroundStore.getState().run();
    expect(usePlaygroundStore.getState()).toMatchObject({ phase: 'error', error: { message: 'Slow down' } });
  });
});

describe('reading Responses events', () => {
  it('takes text deltas, the end of an incomplete response, and the messages of failures', () => {
    expect(readResponsesPiece({ type: 'response.function_call_arguments.delta', delta: '{"a"' }).choices).toEqual([]);
    expect(readResponsesPiece({ type: 'response.output_text.done', text: 'Hello' }).choices).toEqual([]);
    expect(readResponsesPiece({ type: 'response.incomplete', response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' }, usage: USAGE } }).choices[0].finishReason).toBe('max_output_tokens');
    expect(readResponsesPiece({ type: 'response.failed', response: { status: 'failed', error: { code: 'server_error', message: 'Boom' } } }).error).toBe('Boom');
    expect(readResponsesPiece(response('failed', '', { error: { code: 'server_error', message: 'Boom' } })).error).toBe('Boom');
  });
});

describe('Responses snippets and drafts', () => {
  const body = { model: 'gpt-5', input: [{ role: 'user', content: 'Hi' }], stream: true, store: false };
  it('write curl with a bearer key, and the openai SDKs calling responses.create', () => {
    const input = { origin: 'http://127.0.0.1:8787', endpoint: '/v1/responses' as const, auth: { kind: 'virtual-key' as const }, body };
    const curl = codeSnippet('curl', input);
    expect(curl).toContain('curl http://127.0.0.1:8787/v1/responses -N');
    expect(curl).toContain('Authorization: Bearer $GATEHOUSE_VIRTUAL_KEY');
    const python = codeSnippet('python', input);
    expect(python).toContain('base_url="http://127.0.0.1:8787/v1",');
    expect(python).toContain('client.responses.create(');
    expect(python).toContain('response.output_text.delta');
    const javascript = codeSnippet('javascript', { ...input, body: { ...body, stream: false } });
    expect(javascript).toContain('client.responses.create(');
    expect(javascript).toContain('console.log(response.output_text);');
  });

  it('open a logged Responses request (instructions, developer and part lists, function items) in Responses mode', () => {
    const draft = draftFromLoggedRequest('/v1/responses', JSON.stringify({
      model: 'gpt-5-codex', instructions: 'Be brief.', max_output_tokens: 500, stream: true, store: false,
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Use tools.' }] },
        { role: 'user', content: [{ type: 'input_text', text: 'First' }] },
        { type: 'function_call', call_id: 'c1', name: 'ls', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'a.txt' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Reply' }] },
        { role: 'user', content: 'Last' },
      ],
    }));
    expect(draft).toMatchObject({
      mode: 'responses', model: 'gpt-5-codex', prompt: 'Last',
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'system', content: 'Use tools.' }, { role: 'user', content: 'First' }, { role: 'assistant', content: 'Reply' }],
    });
    expect(draft?.parameters.numbers.max_tokens).toBe('500');
    expect(draftFromLoggedRequest('/v1/responses', JSON.stringify({ model: 'm', input: 'Just text' }))).toMatchObject({ prompt: 'Just text', messages: [] });
  });
});
