// What the Playground sends to the gateway and how it reads what comes back, streamed or whole.
import { describe, expect, it } from 'vitest';
import { buildGatewayHeaders, maskHeaders, maskSecret, readCompletionPiece } from '../../../src-renderer/api/gateway-client';
import { readServerSentEvents } from '../../../src-renderer/api/sse';

describe('gateway request headers', () => {
  it('sends a virtual key in x-gateway-api-key and nothing else', () => {
    expect(buildGatewayHeaders({ kind: 'virtual-key', virtualKey: ' gh-vk-abc ' })).toEqual({ 'content-type': 'application/json', 'x-gateway-api-key': 'gh-vk-abc' });
  });

  it('sends provider, bearer token, custom host and the gateway API key in provider mode', () => {
    const headers = buildGatewayHeaders({ kind: 'provider', provider: 'ollama', providerToken: 'tok', customHost: 'http://localhost:11434/v1', gatewayApiKey: 'gh-gw' });
    expect(headers).toEqual({
      'content-type': 'application/json',
      'x-gateway-api-key': 'gh-gw',
      'x-gateway-provider': 'ollama',
      authorization: 'Bearer tok',
      'x-gateway-custom-host': 'http://localhost:11434/v1',
    });
  });

  it('masks secrets in what the request viewer shows', () => {
    expect(maskSecret('gh-vk-0123456789abcdef')).toBe('gh-vk-••••ef');
    expect(maskSecret('Bearer sk-short')).toBe('Bearer ••••');
    const shown = maskHeaders({ authorization: 'Bearer sk-0123456789abcdef', 'x-gateway-provider': 'openai' });
    expect(shown.authorization).not.toContain('0123456789');
    expect(shown['x-gateway-provider']).toBe('openai');
  });
});

describe('reading completion objects', () => {
  it('reads text completion chunks', () => {
    expect(readCompletionPiece({ choices: [{ index: 0, text: 'Hi', finish_reason: null }] })).toEqual({ choices: [{ index: 0, text: 'Hi', finishReason: null, tokens: [] }], usage: null, error: null });
  });

  it('reads chat deltas, whole chat messages and the usage chunk', () => {
    expect(readCompletionPiece({ choices: [{ index: 1, delta: { content: 'lo' }, finish_reason: 'stop' }] }).choices).toEqual([{ index: 1, text: 'lo', finishReason: 'stop', tokens: [] }]);
    expect(readCompletionPiece({ choices: [{ index: 0, message: { content: 'whole' } }] }).choices[0].text).toBe('whole');
    expect(readCompletionPiece({ choices: [], usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 } }).usage).toEqual({ promptTokens: 5, completionTokens: 3, totalTokens: 8 });
  });

  it('reads token log probabilities of completions and of chat', () => {
    const completion = readCompletionPiece({ choices: [{ index: 0, text: 'Hi there', logprobs: { tokens: ['Hi', ' there'], token_logprobs: [-0.1, -2.3], top_logprobs: [], text_offset: [0, 2] } }] });
    expect(completion.choices[0].tokens).toEqual([{ token: 'Hi', logprob: -0.1 }, { token: ' there', logprob: -2.3 }]);
    const chat = readCompletionPiece({ choices: [{ index: 0, delta: { content: 'Yo' }, logprobs: { content: [{ token: 'Yo', logprob: -0.5, top_logprobs: [] }] } }] });
    expect(chat.choices[0].tokens).toEqual([{ token: 'Yo', logprob: -0.5 }]);
  });

  it('treats an {"error": ...} data line as an error', () => {
    expect(readCompletionPiece({ error: { message: 'upstream broke', type: 'gateway_error' } }).error).toBe('upstream broke');
  });
});

function streamOf(...chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      controller.close();
    },
  });
}

describe('server-sent events from a fetch body', () => {
  it('yields each data line as it completes, even when split across reads', async () => {
    const events: string[] = [];
    for await (const event of readServerSentEvents(streamOf(': hi\n\ndata: {"a"', ':1}\n\nda', 'ta: [DONE]\n\n'))) events.push(event.data);
    expect(events).toEqual(['{"a":1}', '[DONE]']);
  });

  it('keeps a last event that arrives without its blank line', async () => {
    const events: string[] = [];
    for await (const event of readServerSentEvents(streamOf('data: one\n\ndata: two\n'))) events.push(event.data);
    expect(events).toEqual(['one', 'two']);
  });
});

describe('aborting a stream being read', () => {
  it('ends the read with an AbortError rather than a quiet end', async () => {
    const encoder = new TextEncoder();
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(encoder.encode('data: first\n\n'));
      },
    });
    const abort = new AbortController();
    const seen: string[] = [];
    const reading = (async () => {
      for await (const event of readServerSentEvents(body, abort.signal)) {
        seen.push(event.data);
        abort.abort();
      }
    })();
    await expect(reading).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toEqual(['first']);
  });
});
