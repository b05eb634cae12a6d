// Bedrock's pure parts: the model-id path, SigV4 for any host (checked by the test double's own
// verifier), stop reasons and usage as the client sees them, errors, and the event-stream reader fed by an
// independent encoder, its frames read by the Converse codec.
import { describe, expect, it } from 'vitest';
import { readEventStreamFrames } from '../../../src-main/gateway/aws-eventstream.js';
import { bedrockConverseProvider, mapStopReason, usageOf } from '../../../src-main/codecs/bedrock-converse/index.js';
import type { CanonicalEvent, CanonicalRequest, Dialect } from '../../../src-main/codecs/canonical.js';
import { dialectCodec } from '../codecs/dialect-codecs.js';
import { bedrock, encodeModelId, mapBedrockError } from '../../../src-main/providers/bedrock.js';
import { callRequest } from '../../../src-main/providers/provider-request.js';
import type { ProviderCall, UpstreamEvent } from '../../../src-main/providers/types.js';
import { validateChat, validateCompletion } from '../../../src-main/gateway/validate.js';
import { encodeFrame, eventFrame, exceptionFrame, verifySigV4 } from '../../fakes/bedrock.js';

const KEYS = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', sessionToken: 'token/with+chars==' };

/** A completion body as the proxy makes the Bedrock call of it: validated, decoded, encoded as Converse. */
function completionCall(body: Record<string, unknown>, overrides: Partial<ProviderCall> = {}): ProviderCall {
  const validated = validateCompletion(body);
  const request = dialectCodec('openai-completions').decodeRequest(validated);
  const encoded = bedrockConverseProvider.encodeRequest(request, { provider: bedrock.slug, modelInBody: bedrock.modelInBody });
  return {
    format: 'bedrock-converse',
    operation: 'generate',
    model: validated.model,
    stream: validated.stream === true,
    body: JSON.stringify(encoded.body),
    credentials: { bedrock: { ...KEYS, region: 'eu-central-1' } },
    forwardHeaders: {},
    ...overrides,
  };
}

/** The canonical request of a client body in `dialect`, as the proxy decodes it. */
function decoded(dialect: Dialect, body: Record<string, unknown>): CanonicalRequest {
  return dialectCodec(dialect).decodeRequest(dialect === 'openai-chat' ? validateChat(body) : validateCompletion(body));
}

/** The finish_reason a client of `dialect` sees for a Converse stopReason. */
function clientFinishReason(stopReason: string | undefined, dialect: 'openai-chat' | 'openai-completions'): unknown {
  const request = dialect === 'openai-chat' ? decoded(dialect, { model: 'm', messages: [{ role: 'user', content: 'x' }] }) : decoded(dialect, { model: 'm', prompt: 'x' });
  const answer = { id: 'a', model: 'm', content: [], finishReason: mapStopReason(stopReason) };
  return (dialectCodec(dialect).encodeResponse(answer, request) as { choices: { finish_reason: unknown }[] }).choices[0].finish_reason;
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
    const request = await callRequest(bedrock, call);
    const url = new URL(request.url);
    expect(url.host).toBe('bedrock-runtime.eu-central-1.amazonaws.com');
    expect(url.pathname).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse');
    const check = verifySigV4('POST', url.pathname + url.search, request.headers, Buffer.from(request.body ?? ''), 'eu-central-1', [KEYS]);
    expect(check).toMatchObject({ ok: true });
    expect(request.headers['x-amz-security-token']).toBe(KEYS.sessionToken);
  });

  it('signs what is sent to a custom host: its host and port, base path and query', async () => {
    const call = completionCall({ model: 'meta.llama3-70b-instruct-v1:0', prompt: 'hi', stream: true }, { customHost: 'http://proxy.internal:8443/aws/bedrock?tenant=a b&x=1' });
    const request = await callRequest(bedrock, call);
    const url = new URL(request.url);
    expect(request.headers.host).toBe('proxy.internal:8443');
    expect(url.pathname).toBe('/aws/bedrock/model/meta.llama3-70b-instruct-v1%3A0/converse-stream');
    expect(request.headers.accept).toBe('application/vnd.amazon.eventstream');
    const check = verifySigV4('POST', url.pathname + url.search, request.headers, Buffer.from(request.body ?? ''), 'eu-central-1', [KEYS]);
    expect(check).toMatchObject({ ok: true });
  });

  it('a signature over other body bytes does not verify', async () => {
    const request = await callRequest(bedrock, completionCall({ model: 'm:1', prompt: 'hi' }));
    const url = new URL(request.url);
    const check = verifySigV4('POST', url.pathname, request.headers, Buffer.from(String(request.body).replace('hi', 'ho')), 'eu-central-1', [KEYS]);
    expect(check.ok).toBe(false);
  });

  it('keeps forwarded headers but never lets them replace the signed ones', async () => {
    const request = await callRequest(bedrock, completionCall({ model: 'm', prompt: 'hi' }, { forwardHeaders: { 'x-trace': 't1', authorization: 'Bearer smuggled' } }));
    expect(request.headers['x-trace']).toBe('t1');
    expect(request.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 /);
  });
});

describe('bedrock answers', () => {
  it('maps stop reasons to the finish reasons a client sees', () => {
    expect(clientFinishReason('end_turn', 'openai-completions')).toBe('stop');
    expect(clientFinishReason('stop_sequence', 'openai-chat')).toBe('stop');
    expect(clientFinishReason('max_tokens', 'openai-chat')).toBe('length');
    expect(clientFinishReason('guardrail_intervened', 'openai-chat')).toBe('content_filter');
    expect(clientFinishReason('content_filtered', 'openai-completions')).toBe('content_filter');
    expect(clientFinishReason('tool_use', 'openai-chat')).toBe('tool_calls');
    expect(clientFinishReason('tool_use', 'openai-completions')).toBe('stop');
    expect(clientFinishReason(undefined, 'openai-chat')).toBe('stop');
  });

  it('counts cache reads and writes into the input tokens, and so into prompt_tokens', () => {
    const usage = usageOf({ inputTokens: 10, outputTokens: 3, totalTokens: 20, cacheReadInputTokens: 5, cacheWriteInputTokens: 2 });
    expect(usage).toEqual({ inputTokens: 17, outputTokens: 3, cacheReadTokens: 5, cacheWriteTokens: 2 });
    const request = decoded('openai-chat', { model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(dialectCodec('openai-chat').encodeResponse({ id: 'a', model: 'm', content: [], finishReason: 'stop', usage }, request)).toMatchObject({
      usage: { prompt_tokens: 17, completion_tokens: 3, total_tokens: 20, prompt_tokens_details: { cached_tokens: 5 } },
    });
    expect(usageOf({ inputTokens: 4, outputTokens: 1 })).toEqual({ inputTokens: 4, outputTokens: 1 });
  });

  it('joins the text of every content block of a chat answer', () => {
    const request = decoded('openai-chat', { model: 'm', messages: [{ role: 'user', content: 'x' }] });
    const answer = bedrockConverseProvider.decodeResponse({ output: { message: { role: 'assistant', content: [{ text: 'a' }, { reasoningContent: {} }, { text: 'b' }] } }, stopReason: 'max_tokens', usage: { inputTokens: 1, outputTokens: 2 } }, request);
    expect(dialectCodec('openai-chat').encodeResponse(answer, request)).toMatchObject({ object: 'chat.completion', model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ab' }, finish_reason: 'length' }] });
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

  it('reads frames as canonical events, written as completion chunks, and an exception frame as a stream error', async () => {
    const request = decoded('openai-completions', { model: 'm', prompt: 'x', stream: true, stream_options: { include_usage: true } });
    const decoder = bedrockConverseProvider.createStreamDecoder(request);
    const encoder = dialectCodec('openai-completions').createStreamEncoder(request);
    expect(decoder.framing).toBe('aws-eventstream');
    const bytes = Buffer.concat([
      eventFrame('messageStart', { role: 'assistant' }),
      eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hi' } }),
      eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { toolUse: { input: '{}' } } }),
      eventFrame('messageStop', { stopReason: 'stop_sequence' }),
      eventFrame('metadata', { usage: { inputTokens: 3, outputTokens: 1, totalTokens: 4 }, metrics: { latencyMs: 5 } }),
      exceptionFrame('throttlingException', 'Too many tokens, please wait.'),
    ]);
    let written = '';
    const events: CanonicalEvent[] = [];
    let failure: unknown;
    try {
      for await (const frame of readEventStreamFrames(byteByByte(bytes))) {
        for (const event of decoder.onEvent(frame)) {
          events.push(event);
          written += encoder.onEvent(event);
        }
      }
    } catch (error) {
      failure = error;
    }
    const chunks = written
      .split('\n\n')
      .filter((block) => block.startsWith('data: '))
      .map((block) => JSON.parse(block.slice('data: '.length)) as object);
    // The text and the finish reach the client as they come; a tool input outside a tool block is nothing.
    expect(chunks).toMatchObject([
      { object: 'text_completion', choices: [{ index: 0, text: 'Hi', finish_reason: null }], usage: null },
      { choices: [{ text: '', finish_reason: 'stop' }] },
    ]);
    expect(chunks).toHaveLength(2);
    // The usage is read (for the log, and the usage chunk a normal end writes); the exception frame ends the stream.
    expect(events).toContainEqual({ type: 'usage', usage: { inputTokens: 3, outputTokens: 1 } });
    expect(encoder.onEnd()).toContain('"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}');
    expect(failure).toMatchObject({ message: 'Too many tokens, please wait.', type: 'rate_limit_error', code: 'throttlingException' });
  });
});
