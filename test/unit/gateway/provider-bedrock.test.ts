// Bedrock's pure parts: the model-id path, SigV4 for any host (checked by the test double's own
// verifier), stop reasons, usage, errors, and the event-stream reader fed by an independent encoder.
import { describe, expect, it } from 'vitest';
import { readEventStreamFrames } from '../../../src-main/gateway/aws-eventstream.js';
import { bedrock, encodeModelId, mapBedrockError, mapStopReason, mapUsage } from '../../../src-main/gateway/providers/bedrock.js';
import type { ProviderCall, UpstreamEvent } from '../../../src-main/gateway/providers/types.js';
import { validateChat, validateCompletion } from '../../../src-main/gateway/validate.js';
import { encodeFrame, eventFrame, exceptionFrame, verifySigV4 } from '../../fakes/bedrock.js';

const KEYS = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', sessionToken: 'token/with+chars==' };

function completionCall(body: object, overrides: Partial<ProviderCall> = {}): ProviderCall {
  const raw = Buffer.from(JSON.stringify(body));
  return {
    endpoint: 'completions',
    body: validateCompletion(JSON.parse(raw.toString())),
    rawBody: raw,
    stream: (body as { stream?: boolean }).stream === true,
    credentials: { bedrock: { ...KEYS, region: 'eu-central-1' } },
    forwardHeaders: {},
    ...overrides,
  } as ProviderCall;
}

async function* byteByByte(bytes: Buffer): AsyncGenerator<Buffer> {
  for (let i = 0; i < bytes.length; i++) yield bytes.subarray(i, i + 1);
}

async function collect(iterable: AsyncIterable<UpstreamEvent>): Promise<UpstreamEvent[]> {
  const events: UpstreamEvent[] = [];
  for await (const event of iterable) events.push(event);
  return events;
}

describe('bedrock model ids in the path', () => {
  it('escapes ":" and "/" so an id or ARN stays one segment', () => {
    expect(encodeModelId('anthropic.claude-3-5-sonnet-20240620-v1:0')).toBe('anthropic.claude-3-5-sonnet-20240620-v1%3A0');
    expect(encodeModelId('arn:aws:bedrock:us-east-1::foundation-model/x')).toBe('arn%3Aaws%3Abedrock%3Aus-east-1%3A%3Afoundation-model%2Fx');
    expect(encodeModelId("a(b)*!'")).toBe('a%28b%29%2A%21%27');
  });
});

describe('bedrock SigV4 signing', () => {
  it('signs for the default regional host, verified by an independent implementation', async () => {
    const call = completionCall({ model: 'anthropic.claude-3-5-sonnet-20240620-v1:0', prompt: 'hi' });
    const request = await bedrock.buildRequest(call);
    const url = new URL(request.url);
    expect(url.host).toBe('bedrock-runtime.eu-central-1.amazonaws.com');
    expect(url.pathname).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse');
    const check = verifySigV4('POST', url.pathname + url.search, request.headers, Buffer.from(request.body ?? ''), 'eu-central-1', [KEYS]);
    expect(check).toMatchObject({ ok: true });
    expect(request.headers['x-amz-security-token']).toBe(KEYS.sessionToken);
  });

  it('signs what is sent to a custom host: its host and port, base path and query', async () => {
    const call = completionCall({ model: 'meta.llama3-70b-instruct-v1:0', prompt: 'hi', stream: true }, { customHost: 'http://proxy.internal:8443/aws/bedrock?tenant=a b&x=1' });
    const request = await bedrock.buildRequest(call);
    const url = new URL(request.url);
    expect(request.headers.host).toBe('proxy.internal:8443');
    expect(url.pathname).toBe('/aws/bedrock/model/meta.llama3-70b-instruct-v1%3A0/converse-stream');
    expect(request.headers.accept).toBe('application/vnd.amazon.eventstream');
    const check = verifySigV4('POST', url.pathname + url.search, request.headers, Buffer.from(request.body ?? ''), 'eu-central-1', [KEYS]);
    expect(check).toMatchObject({ ok: true });
  });

  it('a signature over other body bytes does not verify', async () => {
    const request = await bedrock.buildRequest(completionCall({ model: 'm:1', prompt: 'hi' }));
    const url = new URL(request.url);
    const check = verifySigV4('POST', url.pathname, request.headers, Buffer.from(String(request.body).replace('hi', 'ho')), 'eu-central-1', [KEYS]);
    expect(check.ok).toBe(false);
  });

  it('keeps forwarded headers but never lets them replace the signed ones', async () => {
    const request = await bedrock.buildRequest(completionCall({ model: 'm', prompt: 'hi' }, { forwardHeaders: { 'x-trace': 't1', authorization: 'Bearer smuggled' } }));
    expect(request.headers['x-trace']).toBe('t1');
    expect(request.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 /);
  });
});

describe('bedrock answers', () => {
  it('maps stop reasons to finish reasons', () => {
    expect(mapStopReason('end_turn', 'completions')).toBe('stop');
    expect(mapStopReason('stop_sequence', 'chat')).toBe('stop');
    expect(mapStopReason('max_tokens', 'chat')).toBe('length');
    expect(mapStopReason('guardrail_intervened', 'chat')).toBe('content_filter');
    expect(mapStopReason('content_filtered', 'completions')).toBe('content_filter');
    expect(mapStopReason('tool_use', 'chat')).toBe('tool_calls');
    expect(mapStopReason('tool_use', 'completions')).toBe('stop');
    expect(mapStopReason(undefined, 'chat')).toBe('stop');
  });

  it('counts cache reads and writes into prompt_tokens', () => {
    expect(mapUsage({ inputTokens: 10, outputTokens: 3, totalTokens: 20, cacheReadInputTokens: 5, cacheWriteInputTokens: 2 })).toEqual({
      prompt_tokens: 17,
      completion_tokens: 3,
      total_tokens: 20,
      prompt_tokens_details: { cached_tokens: 5 },
    });
    expect(mapUsage({ inputTokens: 4, outputTokens: 1 })).toEqual({ prompt_tokens: 4, completion_tokens: 1, total_tokens: 5 });
  });

  it('joins the text of every content block of a chat answer', () => {
    const call = { ...completionCall({ model: 'm', prompt: 'x' }), endpoint: 'chat', body: validateChat({ model: 'm', messages: [{ role: 'user', content: 'x' }] }) } as ProviderCall;
    const answer = bedrock.mapResponse!(call, { output: { message: { role: 'assistant', content: [{ text: 'a' }, { reasoningContent: {} }, { text: 'b' }] } }, stopReason: 'max_tokens', usage: { inputTokens: 1, outputTokens: 2 } });
    expect(answer).toMatchObject({ object: 'chat.completion', model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ab' }, finish_reason: 'length' }] });
  });
});

describe('bedrock errors', () => {
  it('reads the error name from x-amzn-errortype and the message from the body', () => {
    expect(mapBedrockError(400, '{"message":"Malformed input request"}', { 'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/' })).toEqual({
      message: 'Malformed input request',
      type: 'invalid_request_error',
      code: 'ValidationException',
      param: null,
    });
  });

  it('falls back to __type, Message, and a body that is not JSON', () => {
    expect(mapBedrockError(403, '{"__type":"com.amazon.coral.service#UnrecognizedClientException","Message":"The security token included in the request is invalid."}', {})).toMatchObject({
      code: 'UnrecognizedClientException',
      type: 'authentication_error',
      message: 'The security token included in the request is invalid.',
    });
    expect(mapBedrockError(502, '<html>Bad Gateway</html>', {})).toMatchObject({ message: '<html>Bad Gateway</html>', type: 'gateway_error', code: null });
  });
});

describe('bedrock event streams', () => {
  it('decodes frames that arrive one byte at a time', async () => {
    const frames = Buffer.concat([eventFrame('messageStart', { role: 'assistant' }), eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'héllo' }, p: 'xyz' })]);
    const events = await collect(readEventStreamFrames(byteByByte(frames)));
    expect(events).toHaveLength(2);
    const second = events[1] as Extract<UpstreamEvent, { kind: 'frame' }>;
    expect(second.headers).toEqual({ ':event-type': 'contentBlockDelta', ':content-type': 'application/json', ':message-type': 'event' });
    expect(JSON.parse(Buffer.from(second.payload).toString('utf8'))).toEqual({ contentBlockIndex: 0, delta: { text: 'héllo' }, p: 'xyz' });
  });

  it('refuses a frame whose CRC does not match', async () => {
    const frame = encodeFrame({ ':message-type': 'event', ':event-type': 'messageStart' }, Buffer.from('{}'));
    frame[frame.length - 6] ^= 0xff;
    await expect(collect(readEventStreamFrames(byteByByte(frame)))).rejects.toThrow();
  });

  it('translates frames to chunks and an exception frame to a stream error', async () => {
    const call = completionCall({ model: 'm', prompt: 'x', stream: true, stream_options: { include_usage: true } });
    const translator = bedrock.createStreamTranslator!(call);
    expect(translator.framing).toBe('aws-eventstream');
    const bytes = Buffer.concat([
      eventFrame('messageStart', { role: 'assistant' }),
      eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } }),
      eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: '{}' } } }),
      eventFrame('messageStop', { stopReason: 'stop_sequence' }),
      eventFrame('metadata', { usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 }, metrics: { latencyMs: 5 } }),
      exceptionFrame('throttlingException', 'Too many tokens, please wait.'),
    ]);
    const chunks: object[] = [];
    let failure: unknown;
    try {
      for await (const event of readEventStreamFrames(byteByByte(bytes))) chunks.push(...translator.onEvent(event));
    } catch (error) {
      failure = error;
    }
    expect(chunks).toMatchObject([
      { object: 'text_completion', choices: [{ index: 0, text: 'Hi', finish_reason: null }], usage: null },
      { choices: [{ text: '', finish_reason: 'stop' }] },
      { choices: [], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } },
    ]);
    expect(failure).toMatchObject({ message: 'Too many tokens, please wait.', type: 'rate_limit_error', code: 'throttlingException' });
  });
});
