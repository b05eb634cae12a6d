// The gateway in front of Amazon Bedrock (Cloud C) through the Converse API: SigV4 checked by a test
// double with its own implementation, Converse requests from OpenAI ones, binary event streams back as
// OpenAI chunks, n by fan-out, and Bedrock's errors in the contract's shape.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import OpenAI from 'openai';
import { Sha256 } from '@aws-crypto/sha256-js';
import { SignatureV4 } from '@smithy/signature-v4';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { BEDROCK_USAGE, bedrockError, startBedrockFake, streamStoppingFor, streamWithException, type AwsTestCredentials, type BedrockFake } from '../fakes/bedrock.js';
import { TOOL_ARGUMENTS, bedrockToolTurn } from '../helpers/dialect-doubles.js';

const LONG_TERM: AwsTestCredentials = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };
const SESSION: AwsTestCredentials = { accessKeyId: 'ASIAQWERTYUIOPASDFGH', secretAccessKey: 'session/secret+key/0123456789abcdefghijklmn', sessionToken: 'IQoJb3JpZ2luX2VjEXAMPLE//session+token==' };
const API_KEY = 'ABSKQmVkcm9ja0FQSUtleS1leGFtcGxl';
const CLAUDE = 'anthropic.claude-3-5-sonnet-20240620-v1:0';

let gateway: TestGateway;
let fake: BedrockFake;

beforeAll(async () => {
  gateway = await startGateway();
  fake = await startBedrockFake({ region: 'us-west-2', credentials: [LONG_TERM, SESSION], apiKeys: [API_KEY] });
});
afterAll(async () => {
  await gateway.close();
  await fake.close();
});
afterEach(() => {
  fake.requests.length = 0;
});

function cloudHeaders(credentials: AwsTestCredentials = LONG_TERM): Record<string, string> {
  return {
    'x-gateway-api-key': gateway.apiKey,
    'x-gateway-provider': 'bedrock',
    'x-gateway-custom-host': fake.baseUrl,
    'x-gateway-cloud-c-access-key-id': credentials.accessKeyId,
    'x-gateway-cloud-c-secret-access-key': credentials.secretAccessKey,
    'x-gateway-cloud-c-region': 'us-west-2',
    ...(credentials.sessionToken ? { 'x-gateway-cloud-c-session-token': credentials.sessionToken } : {}),
  };
}

function post(path: string, body: object, headers: Record<string, string> = cloudHeaders()) {
  return fetch(`${gateway.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

function sdk(headers: Record<string, string> = cloudHeaders()) {
  // The OpenAI SDK needs some API key; Bedrock's credentials travel in the Cloud C headers.
  return new OpenAI({ apiKey: 'unused', baseURL: `${gateway.baseUrl}/v1`, defaultHeaders: { ...headers, authorization: null }, maxRetries: 0 });
}

function dataLines(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('data: '))
    .map((block) => block.slice('data: '.length));
}

interface ErrorAnswer {
  error: { message: string; type: string; param: string | null; code: string | null; provider?: string };
}

describe('bedrock: requests', () => {
  it('signs a model id with ":" correctly: %3A in the path, %253A in the canonical request', async () => {
    const response = await post('/v1/completions', { model: CLAUDE, prompt: 'hi' });
    expect(response.status).toBe(200);
    const received = fake.requests[0];
    expect(received.rawUrl).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse');
    expect(received.modelId).toBe(CLAUDE);
    expect(received.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE\/\d{8}\/us-west-2\/bedrock\/aws4_request, SignedHeaders=/);
    expect(received.signedHeaders).toEqual(expect.arrayContaining(['host', 'x-amz-date', 'content-type']));
  });

  it('maps the completion request to Converse: one user message and inferenceConfig', async () => {
    await post('/v1/completions', { model: CLAUDE, prompt: 'Write a haiku', max_tokens: 50, temperature: 0.5, top_p: 0.9, stop: '\n\n' });
    expect(fake.requests[0].json).toEqual({
      messages: [{ role: 'user', content: [{ text: 'Write a haiku' }] }],
      inferenceConfig: { maxTokens: 50, temperature: 0.5, topP: 0.9, stopSequences: ['\n\n'] },
    });
  });

  it('maps chat: system messages to system, turns in order, user to requestMetadata, top_k to additional fields', async () => {
    await post('/v1/chat/completions', {
      model: CLAUDE,
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: [{ type: 'text', text: 'How are you?' }] },
      ],
      max_completion_tokens: 20,
      user: 'user-42@team#1, a.b',
      top_k: 5,
    });
    expect(fake.requests[0].json).toEqual({
      messages: [
        { role: 'user', content: [{ text: 'Hi' }] },
        { role: 'assistant', content: [{ text: 'Hello!' }] },
        { role: 'user', content: [{ text: 'How are you?' }] },
      ],
      system: [{ text: 'Be brief.' }],
      inferenceConfig: { maxTokens: 20 },
      requestMetadata: { user: 'user-42@team#1, a.b' },
      additionalModelRequestFields: { top_k: 5 },
    });
  });

  it('gives a completion without max_tokens OpenAI\'s default of 16', async () => {
    await post('/v1/completions', { model: CLAUDE, prompt: 'hi' });
    expect(fake.requests[0].json.inferenceConfig).toEqual({ maxTokens: 16 });
  });

  it('escapes an inference-profile ARN as one path segment and signs it', async () => {
    const arn = 'arn:aws:bedrock:us-west-2:123456789012:inference-profile/us.anthropic.claude-3-5-sonnet-20240620-v1:0';
    const response = await post('/v1/completions', { model: arn, prompt: 'hi' });
    expect(response.status).toBe(200);
    expect(fake.requests[0].rawUrl).toBe('/model/arn%3Aaws%3Abedrock%3Aus-west-2%3A123456789012%3Ainference-profile%2Fus.anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse');
    expect(fake.requests[0].modelId).toBe(arn);
  });

  it('sends a session token as x-amz-security-token, and signs it', async () => {
    const response = await post('/v1/completions', { model: CLAUDE, prompt: 'hi' }, cloudHeaders(SESSION));
    expect(response.status).toBe(200);
    expect(fake.requests[0].headers['x-amz-security-token']).toBe(SESSION.sessionToken);
    expect(fake.requests[0].signedHeaders).toContain('x-amz-security-token');
  });

  it('sends a Bedrock API key as Authorization: Bearer when no access key is given', async () => {
    const headers = { 'x-gateway-api-key': gateway.apiKey, 'x-gateway-provider': 'bedrock', 'x-gateway-custom-host': fake.baseUrl, authorization: `Bearer ${API_KEY}` };
    const response = await post('/v1/completions', { model: CLAUDE, prompt: 'hi' }, headers);
    expect(response.status).toBe(200);
    expect(fake.requests[0].headers.authorization).toBe(`Bearer ${API_KEY}`);
  });

  it('needs the region when no custom host stands in for the regional endpoint', async () => {
    const response = await post('/v1/completions', { model: CLAUDE, prompt: 'hi' }, { ...cloudHeaders(), 'x-gateway-custom-host': '', 'x-gateway-cloud-c-region': '' });
    expect(response.status).toBe(400);
    const body = (await response.json()) as ErrorAnswer;
    expect(body.error.param).toBe('x-gateway-cloud-c-region');
    expect(body.error.provider).toBe('bedrock');
  });

  it('names the missing half of an access key pair', async () => {
    const response = await post('/v1/completions', { model: CLAUDE, prompt: 'hi' }, { ...cloudHeaders(), 'x-gateway-cloud-c-secret-access-key': '' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorAnswer).error.param).toBe('x-gateway-cloud-c-secret-access-key');
  });
});

describe('bedrock: credentials from a virtual key', () => {
  it('signs with the access key, secret and session token stored in the key, with no provider headers', async () => {
    const created = await gateway.admin('/virtual-keys', {
      method: 'POST',
      body: JSON.stringify({
        name: 'bedrock-session',
        provider: 'bedrock',
        secret: SESSION.secretAccessKey,
        customHost: fake.baseUrl,
        cloud: { cloud_c_access_key_id: SESSION.accessKeyId, cloud_c_region: 'us-west-2', cloud_c_session_token: SESSION.sessionToken },
      }),
    });
    expect(created.status).toBe(201);
    const { key } = (await created.json()) as { key: string };
    const response = await post('/v1/chat/completions', { model: CLAUDE, messages: [{ role: 'user', content: 'from a key' }] }, { 'x-gateway-api-key': key });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { choices: { message: { content: string } }[] }).choices[0].message.content).toBe('bedrock says: from a key');
    expect(fake.requests[0].headers['x-amz-security-token']).toBe(SESSION.sessionToken);
    expect(fake.requests[0].headers.authorization).toContain(`Credential=${SESSION.accessKeyId}/`);
  });
});

describe('bedrock: the request log', () => {
  it('records tokens of a streamed answer and keeps no AWS secret', async () => {
    const response = await post('/v1/completions', { model: CLAUDE, prompt: 'logged', stream: true, stream_options: { include_usage: true } }, { ...cloudHeaders(SESSION), 'x-gateway-trace-id': 'bedrock-log-trace' });
    await response.text();
    await gateway.flushLog();
    const list = (await (await gateway.admin('/logs?q=bedrock-log-trace')).json()) as { items: { id: string; provider: string; status: number; promptTokens: number; completionTokens: number }[] };
    expect(list.items[0]).toMatchObject({ provider: 'bedrock', status: 200, promptTokens: 10, completionTokens: 5 });
    const detail = JSON.stringify(await (await gateway.admin(`/logs/${list.items[0].id}`)).json());
    expect(detail).not.toContain(SESSION.secretAccessKey);
    expect(detail).not.toContain(SESSION.sessionToken);
  });
});

describe('bedrock: the test double checks signatures for real', () => {
  async function signedDirectly(uriEscapePath: boolean) {
    const url = new URL(`${fake.baseUrl}/model/${encodeURIComponent(CLAUDE)}/converse`);
    const body = JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'hi' }] }] });
    const signer = new SignatureV4({ service: 'bedrock', region: 'us-west-2', credentials: LONG_TERM, sha256: Sha256, uriEscapePath });
    const signed = await signer.sign({ method: 'POST', protocol: 'http:', hostname: url.hostname, port: Number(url.port), path: url.pathname, headers: { host: url.host, 'content-type': 'application/json' }, body });
    return fetch(url, { method: 'POST', headers: signed.headers, body });
  }

  it('accepts a double-encoded signature and refuses a single-encoded one with Bedrock’s 403', async () => {
    expect((await signedDirectly(true)).status).toBe(200);
    const refused = await signedDirectly(false);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('x-amzn-errortype')).toMatch(/^InvalidSignatureException:/);
    expect(((await refused.json()) as { message: string }).message).toContain('The request signature we calculated does not match');
  });

  it('relays a wrong secret as Bedrock’s 403 with its message and the provider', async () => {
    const response = await post('/v1/completions', { model: CLAUDE, prompt: 'hi' }, { ...cloudHeaders(), 'x-gateway-cloud-c-secret-access-key': 'not-the-right-secret-0000000000000000000' });
    expect(response.status).toBe(403);
    const body = (await response.json()) as ErrorAnswer;
    expect(body.error.message).toContain('The request signature we calculated does not match the signature you provided');
    expect(body.error.code).toBe('InvalidSignatureException');
    expect(body.error.type).toBe('authentication_error');
    expect(body.error.provider).toBe('bedrock');
  });

  it('keeps the session token out of the canonical request Bedrock echoes in its 403', async () => {
    const response = await post('/v1/completions', { model: CLAUDE, prompt: 'hi' }, { ...cloudHeaders(SESSION), 'x-gateway-cloud-c-secret-access-key': 'not-the-right-secret-0000000000000000000' });
    expect(response.status).toBe(403);
    const body = (await response.json()) as ErrorAnswer;
    expect(body.error.message).toContain('The Canonical String for this request should have been');
    expect(body.error.message).toContain('%253A0/converse');
    expect(body.error.message).toContain('x-amz-security-token:[redacted]');
    expect(body.error.message).not.toContain(SESSION.sessionToken!);
  });
});

describe('bedrock: answers through the official OpenAI SDK', () => {
  it('completion: text joined from content blocks, finish_reason, usage with cached tokens in prompt_tokens', async () => {
    const completion = await sdk().completions.create({ model: CLAUDE, prompt: 'hello world', max_tokens: 8 });
    expect(completion.object).toBe('text_completion');
    expect(completion.model).toBe(CLAUDE);
    expect(completion.choices).toHaveLength(1);
    expect(completion.choices[0].text).toBe('bedrock says: hello world');
    expect(completion.choices[0].finish_reason).toBe('stop');
    const promptTokens = BEDROCK_USAGE.inputTokens + BEDROCK_USAGE.cacheReadInputTokens + BEDROCK_USAGE.cacheWriteInputTokens;
    expect(completion.usage).toMatchObject({ prompt_tokens: promptTokens, completion_tokens: BEDROCK_USAGE.outputTokens, total_tokens: promptTokens + BEDROCK_USAGE.outputTokens });
  });

  it('chat, and streamed chat with include_usage', async () => {
    const client = sdk(cloudHeaders(SESSION));
    const chat = await client.chat.completions.create({ model: CLAUDE, messages: [{ role: 'user', content: 'Hi there' }] });
    expect(chat.object).toBe('chat.completion');
    expect(chat.choices[0].message).toMatchObject({ role: 'assistant', content: 'bedrock says: Hi there' });
    expect(chat.choices[0].finish_reason).toBe('stop');

    const stream = await client.chat.completions.create({ model: CLAUDE, messages: [{ role: 'user', content: 'Hi there' }], stream: true, stream_options: { include_usage: true } });
    let text = '';
    let role: string | undefined;
    let finishReason: string | null = null;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      role ??= choice?.delta.role;
      text += choice?.delta.content ?? '';
      finishReason = choice?.finish_reason ?? finishReason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(role).toBe('assistant');
    expect(text).toBe('bedrock says: Hi there');
    expect(finishReason).toBe('stop');
    expect(usage?.prompt_tokens).toBe(10);
    expect(usage?.prompt_tokens_details?.cached_tokens).toBe(2);
  });
});

describe('bedrock: streams', () => {
  it('turns binary event-stream frames into text_completion chunks, then data: [DONE]', async () => {
    const response = await post('/v1/completions', { model: CLAUDE, prompt: 'one two three', stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toContain('text/event-stream');
    expect(fake.requests[0].rawUrl).toBe('/model/anthropic.claude-3-5-sonnet-20240620-v1%3A0/converse-stream');
    const lines = dataLines(await response.text());
    expect(lines.at(-1)).toBe('[DONE]');
    const chunks = lines.slice(0, -1).map((line) => JSON.parse(line) as { object: string; model: string; choices: { text: string; finish_reason: string | null }[] });
    for (const chunk of chunks) {
      expect(chunk.object).toBe('text_completion');
      expect(chunk.model).toBe(CLAUDE);
      expect(chunk.choices).toHaveLength(1);
    }
    expect(chunks.map((chunk) => chunk.choices[0].text).join('')).toBe('bedrock says: one two three');
    expect(chunks.at(-1)!.choices[0].finish_reason).toBe('stop');
    expect(chunks.slice(0, -1).every((chunk) => chunk.choices[0].finish_reason === null)).toBe(true);
  });

  it('maps a streamed stop reason: max_tokens becomes length', async () => {
    fake.enqueue(streamStoppingFor('max_tokens'));
    const lines = dataLines(await (await post('/v1/completions', { model: CLAUDE, prompt: 'x', stream: true })).text());
    expect(JSON.parse(lines.at(-2)!).choices[0].finish_reason).toBe('length');
  });

  it('turns an in-stream exception into an error event, then ends the stream', async () => {
    fake.enqueue(streamWithException('modelStreamErrorException', 'The model stream failed: upstream model error.'));
    const response = await post('/v1/completions', { model: CLAUDE, prompt: 'x', stream: true });
    expect(response.status).toBe(200);
    const lines = dataLines(await response.text());
    expect(JSON.parse(lines[0]).choices[0].text).toBe('partial');
    const last = JSON.parse(lines.at(-1)!) as ErrorAnswer;
    expect(last.error.message).toBe('The model stream failed: upstream model error.');
    expect(last.error.code).toBe('modelStreamErrorException');
    expect(last.error.provider).toBe('bedrock');
    expect(lines).not.toContain('[DONE]');
  });
});

describe('bedrock: n > 1 by fan-out', () => {
  it('makes n Converse calls and merges them into choices 0..n-1 with summed usage', async () => {
    const response = await post('/v1/completions', { model: CLAUDE, prompt: 'twice', n: 2 });
    expect(response.status).toBe(200);
    expect(fake.requests).toHaveLength(2);
    const answer = (await response.json()) as { choices: { index: number; text: string }[]; usage: { completion_tokens: number } };
    expect(answer.choices.map((choice) => choice.index)).toEqual([0, 1]);
    expect(answer.choices.every((choice) => choice.text === 'bedrock says: twice')).toBe(true);
    expect(answer.usage.completion_tokens).toBe(2 * BEDROCK_USAGE.outputTokens);
  });

  it('streams n choices, each with its own index', async () => {
    const response = await post('/v1/completions', { model: CLAUDE, prompt: 'twice', n: 2, stream: true });
    const lines = dataLines(await response.text());
    expect(lines.at(-1)).toBe('[DONE]');
    const texts = ['', ''];
    for (const line of lines.slice(0, -1)) {
      for (const choice of (JSON.parse(line) as { choices: { index: number; text: string }[] }).choices) texts[choice.index] += choice.text;
    }
    expect(texts).toEqual(['bedrock says: twice', 'bedrock says: twice']);
  });
});

describe('bedrock: fields Converse cannot honour', () => {
  const refused: [string, object][] = [
    ['logprobs', { logprobs: 2 }],
    ['echo', { echo: true }],
    ['best_of', { best_of: 3 }],
    ['logit_bias', { logit_bias: { '50256': -100 } }],
    ['suffix', { suffix: 'the end' }],
    ['seed', { seed: 42 }],
    ['presence_penalty', { presence_penalty: 0.5 }],
    ['frequency_penalty', { frequency_penalty: 1 }],
    ['prompt', { prompt: [1, 2, 3] }],
    ['prompt', { prompt: ['one', 'two'] }],
  ];
  it.each(refused)("refuses '%s' with 400 naming the field and the provider", async (field, extra) => {
    const response = await post('/v1/completions', { model: CLAUDE, prompt: 'x', ...extra });
    expect(response.status).toBe(400);
    const body = (await response.json()) as ErrorAnswer;
    expect(body.error.param).toBe(field);
    expect(body.error.message).toContain(`'${field}'`);
    expect(body.error.message).toContain("'bedrock'");
    expect(body.error.provider).toBe('bedrock');
    expect(fake.requests).toHaveLength(0);
  });

  it("refuses a 'user' that Bedrock's request metadata cannot carry", async () => {
    const response = await post('/v1/completions', { model: CLAUDE, prompt: 'x', user: 'naïve <user>' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as ErrorAnswer).error.param).toBe('user');
  });

  it('takes default values of unsupported fields, which change nothing', async () => {
    const response = await post('/v1/completions', { model: CLAUDE, prompt: 'x', echo: false, best_of: 1, presence_penalty: 0, frequency_penalty: 0 });
    expect(response.status).toBe(200);
  });
});

describe('bedrock: chat tools', () => {
  it('carries chat tools through toolConfig: a toolUse comes back as tool_calls, the result goes back as toolResult, then the final text', async () => {
    const tools = [{ type: 'function' as const, function: { name: 'get_weather', description: 'Weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Paris?' }];
    fake.enqueue(bedrockToolTurn, bedrockToolTurn);

    const first = await sdk().chat.completions.create({ model: CLAUDE, messages, tools });
    expect(fake.requests[0].json.toolConfig).toEqual({ tools: [{ toolSpec: { name: 'get_weather', description: 'Weather in a city', inputSchema: { json: tools[0].function.parameters } } }] });
    expect(first.choices[0].finish_reason).toBe('tool_calls');
    const call = first.choices[0].message.tool_calls![0] as OpenAI.ChatCompletionMessageToolCall & { type: 'function' };
    expect(call).toEqual({ id: 'tooluse_bedrock_01', type: 'function', function: { name: 'get_weather', arguments: JSON.stringify(TOOL_ARGUMENTS) } });

    messages.push(first.choices[0].message, { role: 'tool', tool_call_id: call.id, content: '18C and sunny' });
    const second = await sdk().chat.completions.create({ model: CLAUDE, messages, tools });
    expect(fake.requests[1].json.messages).toEqual([
      { role: 'user', content: [{ text: 'Weather in Paris?' }] },
      { role: 'assistant', content: [{ toolUse: { toolUseId: 'tooluse_bedrock_01', name: 'get_weather', input: TOOL_ARGUMENTS } }] },
      { role: 'user', content: [{ toolResult: { toolUseId: 'tooluse_bedrock_01', content: [{ text: '18C and sunny' }] } }] },
    ]);
    expect(second.choices[0]).toMatchObject({ finish_reason: 'stop', message: { role: 'assistant', content: 'Tools said: 18C and sunny' } });
  });
});

describe('bedrock: errors', () => {
  it('maps a ValidationException to the contract shape, keeping status and message', async () => {
    fake.enqueue(bedrockError(400, 'ValidationException', 'The provided model identifier is invalid.'));
    const response = await post('/v1/completions', { model: 'no-such-model', prompt: 'x' });
    expect(response.status).toBe(400);
    const body = (await response.json()) as ErrorAnswer;
    expect(body.error).toEqual({ message: 'The provided model identifier is invalid.', type: 'invalid_request_error', param: null, code: 'ValidationException', provider: 'bedrock' });
  });

  it('relays throttling as 429 to the SDK', async () => {
    fake.enqueue(bedrockError(429, 'ThrottlingException', 'Too many requests, please wait before trying again.'));
    const error = await sdk().completions.create({ model: CLAUDE, prompt: 'x' }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.RateLimitError);
    expect((error as InstanceType<typeof OpenAI.RateLimitError>).message).toContain('Too many requests');
  });
});

// What chat clients send and OpenAI accepts, but Converse refuses with a ValidationException (issue 16).
// The double refuses it as Bedrock does, so a translation that passes it through fails here.
describe('bedrock: blank and empty chat content never reaches Converse', () => {
  it('drops blank text and an assistant message with nothing in it, merging the user turns it separated', async () => {
    const res = await post('/v1/chat/completions', {
      model: CLAUDE,
      messages: [
        { role: 'system', content: ' ' },
        { role: 'user', content: [{ type: 'text', text: 'Hi' }, { type: 'text', text: '' }] },
        { role: 'assistant', content: '' },
        { role: 'user', content: 'Again' },
      ],
    });
    const text = await res.text();
    expect(res.status, `the gateway (or the strict double behind it) refused a chat OpenAI accepts: ${text}`).toBe(200);
    expect(fake.requests[0].json.system, 'a blank system message adds no system block').toBeUndefined();
    expect(fake.requests[0].json.messages).toEqual([{ role: 'user', content: [{ text: 'Hi' }, { text: 'Again' }] }]);
  });

  it.each([
    ['a system-only chat', [{ role: 'system', content: 'You are terse.' }], 'messages'],
    ['an empty user message', [{ role: 'user', content: 'Hi' }, { role: 'assistant', content: 'Hello' }, { role: 'user', content: '' }], 'messages[2].content'],
    ['a user message of blank text parts', [{ role: 'user', content: [{ type: 'text', text: ' ' }] }], 'messages[0].content'],
    ['a conversation that opens with the assistant', [{ role: 'system', content: 'Greet' }, { role: 'assistant', content: 'Hi! How can I help?' }, { role: 'user', content: 'A joke' }], 'messages[1]'],
  ])('refuses %s with a 400 naming the field, sending nothing', async (_case, messages, param) => {
    const res = await post('/v1/chat/completions', { model: CLAUDE, messages });
    const answer = (await res.json()) as ErrorAnswer;
    expect(res.status, JSON.stringify(answer)).toBe(400);
    expect(answer.error, `the gateway should refuse before sending: ${JSON.stringify(answer)}`).toMatchObject({ type: 'invalid_request_error', param });
    expect(fake.requests, 'nothing Converse refuses is sent').toHaveLength(0);
  });

  it('refuses an empty completion prompt with a 400 naming prompt', async () => {
    const res = await post('/v1/completions', { model: CLAUDE, prompt: '' });
    const answer = (await res.json()) as ErrorAnswer;
    expect(res.status, JSON.stringify(answer)).toBe(400);
    expect(answer.error).toMatchObject({ param: 'prompt' });
    expect(fake.requests).toHaveLength(0);
  });
});
