// The Playground's Messages mode against a stub of the gateway's POST /v1/messages that checks a
// request the way Anthropic's API does: the request Claude Code would send goes out, the typed SSE
// stream (or the whole message) comes back as text, usage and stop reason, and the raw exchange shows
// the events with their names.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { codeSnippet } from '../../../src-renderer/playground/code-snippets';
import { draftFromLoggedRequest } from '../../../src-renderer/playground/draft-from-log';
import { readMessagesPiece } from '../../../src-renderer/playground/messages';
import { usePlaygroundStore } from '../../../src-renderer/stores/playground-store';

interface Sent {
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

function anthropicError(status: number, type: string, message: string): Response {
  return new Response(JSON.stringify({ type: 'error', error: { type, message } }), { status, headers: { 'content-type': 'application/json' } });
}

/** Answers as /v1/messages does; refuses what Anthropic refuses. */
function messagesStub(sent: Sent[]) {
  return async (url: string, init: RequestInit): Promise<Response> => {
    const headers = init.headers as Record<string, string>;
    const body = JSON.parse(String(init.body)) as Record<string, unknown>;
    sent.push({ url, headers, body });
    if (url !== '/v1/messages') return anthropicError(404, 'not_found_error', `No route ${url}`);
    if (!headers['x-api-key'] && !headers.authorization) return anthropicError(401, 'authentication_error', 'x-api-key header is required');
    if (!headers['anthropic-version']) return anthropicError(400, 'invalid_request_error', 'anthropic-version: header is required');
    if (typeof body.max_tokens !== 'number') return anthropicError(400, 'invalid_request_error', 'max_tokens: Field required');
    const messages = body.messages as Array<{ role: string }>;
    if (!messages?.length || messages.some((message) => message.role === 'system')) return anthropicError(400, 'invalid_request_error', 'messages: roles must be user or assistant');
    const usage = { input_tokens: 9, cache_creation_input_tokens: 1, cache_read_input_tokens: 2, output_tokens: 1 };
    if (body.stream !== true) {
      return new Response(JSON.stringify({ id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm' }, { type: 'text', text: 'Whole answer' }], stop_reason: 'end_turn', usage: { ...usage, output_tokens: 2 } }), {
        status: 200,
        headers: { 'content-type': 'application/json' },
      });
    }
    const events: Array<[string, unknown]> = [
      ['message_start', { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', content: [], usage } }],
      ['content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'not shown' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 0 }],
      ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }],
      ['ping', { type: 'ping' }],
      ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hel' } }],
      ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'lo' } }],
      ['content_block_stop', { type: 'content_block_stop', index: 1 }],
      ['message_delta', { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } }],
      ['message_stop', { type: 'message_stop' }],
    ];
    const text = events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('');
    return new Response(text, { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8', 'x-gateway-trace-id': 'trace-m' } });
  };
}

describe('the Playground in Messages mode', () => {
  const initial = usePlaygroundStore.getState();
  let sent: Sent[];
  beforeEach(() => {
    // A pasted key: what Claude Code would send itself.
    usePlaygroundStore.setState({ ...initial, authKind: 'virtual-key' }, true);
    sent = [];
    vi.stubGlobal('fetch', messagesStub(sent));
  });
  afterEach(() => vi.unstubAllGlobals());

  it('sends what Claude Code sends and streams the text deltas into the output', async () => {
    usePlaygroundStore.getState().update({ mode: 'messages', virtualKey: 'gh-vk-messages-key', model: 'claude-sonnet-4-5', prompt: 'Say hello' });
    await usePlaygroundStore.getState().run();
    const state = usePlaygroundStore.getState();
    expect(state.error).toBeNull();
    expect(sent).toHaveLength(1);
    expect(sent[0].url).toBe('/v1/messages');
    expect(sent[0].headers).toMatchObject({ 'x-api-key': 'gh-vk-messages-key', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' });
    expect(sent[0].headers['x-gateway-api-key']).toBeUndefined();
    expect(sent[0].body).toEqual({
      model: 'claude-sonnet-4-5',
      system: 'You are a helpful assistant.',
      messages: [{ role: 'user', content: 'Say hello' }],
      max_tokens: 256,
      stream: true,
    });
    expect(state.phase).toBe('done');
    expect(state.outputs).toEqual(['Hello']);
    expect(state.stats?.finishReasons).toEqual(['end_turn']);
    // message_start's input (cache writes and reads included) and message_delta's output, merged.
    expect(state.stats?.usage).toEqual({ promptTokens: 12, completionTokens: 5, totalTokens: 17 });
    expect(state.stats?.traceId).toBe('trace-m');
    expect(state.raw?.request.url).toMatch(/\/v1\/messages$/);
    expect(state.raw?.request.headers['x-api-key']).not.toContain('messages-key');
    expect(state.raw?.response.body).toContain('event: content_block_delta\ndata: {"type":"content_block_delta"');
    expect(state.raw?.response.body).toContain('event: message_stop');
  });

  it('reads a whole message when not streaming, and the reply joins the conversation by itself', async () => {
    const store = usePlaygroundStore.getState();
    store.update({ mode: 'messages', virtualKey: 'gh-vk-messages-key', model: 'claude', prompt: 'Once' });
    store.updateParameters({ stream: false, stop: ['END'] });
    await usePlaygroundStore.getState().run();
    expect(sent[0].body).toMatchObject({ stop_sequences: ['END'] });
    expect(sent[0].body.stream).toBeUndefined();
    expect(sent[0].body.stream_options).toBeUndefined();
    expect(usePlaygroundStore.getState().outputs).toEqual(['Whole answer']);
    expect(usePlaygroundStore.getState().stats?.usage).toEqual({ promptTokens: 12, completionTokens: 2, totalTokens: 14 });
    // The finished turn joined the conversation by itself: the prompt box is free for the next one.
    expect(usePlaygroundStore.getState().prompt).toBe('');
    usePlaygroundStore.getState().update({ prompt: 'Again' });
    await usePlaygroundStore.getState().run();
    expect((sent[1].body.messages as unknown[]).slice(-3)).toEqual([
      { role: 'user', content: 'Once' },
      { role: 'assistant', content: 'Whole answer' },
      { role: 'user', content: 'Again' },
    ]);
  });

  it('needs max tokens before it sends anything', async () => {
    const store = usePlaygroundStore.getState();
    store.update({ mode: 'messages', virtualKey: 'gh-vk-x', model: 'claude', prompt: 'x' });
    store.setNumber('max_tokens', '');
    await usePlaygroundStore.getState().run();
    expect(sent).toHaveLength(0);
    expect(usePlaygroundStore.getState().error?.param).toBe('max_tokens');
  });

  it('shows an error in Anthropic shape with its message', async () => {
    vi.stubGlobal('fetch', async () => anthropicError(529, 'overloaded_error', 'Overloaded'));
    usePlaygroundStore.getState().update({ mode: 'messages', virtualKey: 'gh-vk-x', model: 'claude', prompt: 'x' });
    await usePlaygroundStore.getState().run();
    expect(usePlaygroundStore.getState().error).toMatchObject({ message: 'Overloaded', status: 529 });
  });
});

describe('reading Messages events', () => {
  it('takes text deltas only, and the message of an error event', () => {
    expect(readMessagesPiece({ type: 'content_block_delta', delta: { type: 'input_json_delta', partial_json: '{"a"' } }).choices).toEqual([]);
    expect(readMessagesPiece({ type: 'content_block_delta', delta: { type: 'text_delta', text: 'x' } }).choices[0].text).toBe('x');
    expect(readMessagesPiece({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }).error).toBe('Overloaded');
    expect(readMessagesPiece({ type: 'ping' })).toEqual({ choices: [], usage: null, error: null });
  });
});

describe('Messages snippets and drafts', () => {
  const body = { model: 'claude', max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }], stream: true };
  it('write curl with anthropic-version and x-api-key, and the anthropic SDKs at the root address', () => {
    const input = { origin: 'http://127.0.0.1:8787', endpoint: '/v1/messages' as const, auth: { kind: 'virtual-key' as const }, body };
    const curl = codeSnippet('curl', input);
    expect(curl).toContain('curl http://127.0.0.1:8787/v1/messages -N');
    expect(curl).toContain('anthropic-version: 2023-06-01');
    expect(curl).toContain('x-api-key: $GATEHOUSE_VIRTUAL_KEY');
    const python = codeSnippet('python', input);
    expect(python).toContain('from anthropic import Anthropic');
    expect(python).toContain('base_url="http://127.0.0.1:8787",');
    expect(python).toContain('client.messages.create(');
    const javascript = codeSnippet('javascript', input);
    expect(javascript).toContain('import Anthropic from "@anthropic-ai/sdk";');
    expect(javascript).toContain('baseURL: "http://127.0.0.1:8787",');
    expect(javascript).toContain('text_delta');
  });

  it('open a logged Messages request (system blocks, block content, stop sequences) in Messages mode', () => {
    const draft = draftFromLoggedRequest('/v1/messages?beta=true', JSON.stringify({
      model: 'claude', max_tokens: 100, stream: true, stop_sequences: ['END'],
      system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'First' }] }, { role: 'assistant', content: 'Reply' }, { role: 'user', content: 'Last' }],
    }));
    expect(draft).toMatchObject({
      mode: 'messages', model: 'claude', prompt: 'Last',
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'First' }, { role: 'assistant', content: 'Reply' }],
    });
    expect(draft?.parameters.stop).toEqual(['END']);
    expect(draft?.parameters.numbers.max_tokens).toBe('100');
  });
});
