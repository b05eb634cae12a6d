// Translated streams arrive as they are made (issue 16, gap 2). For every provider whose stream the
// gateway translates, the double writes its first events and then holds its last ones back until the
// test has seen an event at the client. A gateway that held translated writes until the provider
// finished (a `res.cork()` on the relay, a buffer, a batch) fails here within a few seconds, with a
// message that says so — not through a 20 s test timeout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { holdStreamTail, sse, TIMED_OUT, within, type HeldStream } from '../helpers/held-stream.js';
import { readDataLines, streamedText } from '../helpers/sse.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic.js';
import { startGeminiFake, type GeminiFake } from '../fakes/gemini.js';
import { startVertexFake, type VertexFake } from '../fakes/vertex.js';
import { eventFrame, startBedrockFake, type AwsTestCredentials, type BedrockFake } from '../fakes/bedrock.js';
import { startAzureFake, type AzureFake } from '../fakes/azure-openai.js';

/** How long the client may wait for its first event while the provider holds its tail: far above a healthy relay's few ms. */
const FIRST_EVENT_DEADLINE_MS = 3_000;

const AWS: AwsTestCredentials = { accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' };

let gateway: TestGateway;
let anthropic: AnthropicFake;
let gemini: GeminiFake;
let vertex: VertexFake;
let bedrock: BedrockFake;
let azure: AzureFake;

beforeAll(async () => {
  [gateway, anthropic, gemini, vertex, bedrock, azure] = await Promise.all([
    startGateway(),
    startAnthropicFake(),
    startGeminiFake(),
    startVertexFake(),
    startBedrockFake({ region: 'us-west-2', credentials: [AWS] }),
    startAzureFake(),
  ]);
});
afterAll(async () => {
  await Promise.all([gateway?.close(), anthropic?.close(), gemini?.close(), vertex?.close(), bedrock?.close(), azure?.close()]);
});

// ---- The providers' streams, head (sent at once) and tail (held) -----------------------------------

function anthropicEvents(model: string): { head: string[]; tail: string[] } {
  const delta = (text: string) => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } } });
  return {
    head: sse([
      { event: 'message_start', data: { type: 'message_start', message: { id: 'msg_held_01', type: 'message', role: 'assistant', content: [], model, stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 1 } } } },
      { event: 'content_block_start', data: { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } } },
      delta('Hello'),
    ]),
    tail: sse([
      delta(' world'),
      { event: 'content_block_stop', data: { type: 'content_block_stop', index: 0 } },
      { event: 'message_delta', data: { type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 2 } } },
      { event: 'message_stop', data: { type: 'message_stop' } },
    ]),
  };
}

function geminiEvents(model: string): { head: string[]; tail: string[] } {
  const fragment = (text: string, last: boolean) => ({
    data: {
      candidates: [{ content: { role: 'model', parts: [{ text }] }, index: 0, ...(last ? { finishReason: 'STOP' } : {}) }],
      usageMetadata: { promptTokenCount: 3, candidatesTokenCount: last ? 2 : 1, totalTokenCount: last ? 5 : 4 },
      modelVersion: model,
      responseId: 'gemini-held-01',
    },
  });
  return { head: sse([fragment('Hello', false)]), tail: sse([fragment(' world', true)]) };
}

function bedrockEvents(): { head: Buffer[]; tail: Buffer[] } {
  return {
    head: [eventFrame('messageStart', { role: 'assistant' }), eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hello' } })],
    tail: [
      eventFrame('contentBlockDelta', { contentBlockIndex: 0, delta: { text: ' world' } }),
      eventFrame('contentBlockStop', { contentBlockIndex: 0 }),
      eventFrame('messageStop', { stopReason: 'end_turn' }),
      eventFrame('metadata', { usage: { inputTokens: 3, outputTokens: 2, totalTokens: 5 }, metrics: { latencyMs: 5 } }),
    ],
  };
}

function azureEvents(): { head: string[]; tail: string[] } {
  const chunk = (delta: object, finish: string | null) => ({
    data: { id: 'chatcmpl-held', object: 'chat.completion.chunk', created: 1700000000, model: 'gpt-4o', choices: [{ index: 0, finish_reason: finish, delta, content_filter_results: {} }] },
  });
  return {
    head: sse([{ data: { id: '', object: '', created: 0, model: '', choices: [], prompt_filter_results: [] } }, chunk({ role: 'assistant', content: 'Hello' }, null)]),
    tail: sse([chunk({ content: ' world' }, null), chunk({}, 'stop'), { data: '[DONE]' }]),
  };
}

// ---- The check --------------------------------------------------------------------------------------

/** The events of an SSE text that are complete (a read may end in the middle of one). */
const completeEvents = (text: string) => text.slice(0, text.lastIndexOf('\n\n') + 2);


interface Case {
  name: string;
  fake: () => { enqueue(behaviour: HeldStream['behaviour']): void };
  headers: () => Record<string, string>;
  model: string;
  events: () => { head: (string | Buffer)[]; tail: (string | Buffer)[] };
  contentType: string;
}

const SSE_TYPE = 'text/event-stream; charset=utf-8';
const CLAUDE_ON_VERTEX = 'claude-sonnet-4-5@20250929';
const GEMINI_ON_VERTEX = 'gemini-2.0-flash-001';

const vertexHeaders = () => ({
  'x-gateway-api-key': gateway.apiKey,
  'x-gateway-provider': 'vertex-ai',
  'x-gateway-custom-host': vertex.baseUrl,
  'x-gateway-cloud-b-project-id': 'my-project',
  'x-gateway-cloud-b-region': 'us-east5',
  authorization: 'Bearer ya29.test-access-token',
});

const CASES: Case[] = [
  {
    name: 'anthropic',
    fake: () => anthropic,
    headers: () => ({ 'x-gateway-api-key': gateway.apiKey, 'x-gateway-provider': 'anthropic', 'x-gateway-custom-host': anthropic.baseUrl, authorization: 'Bearer sk-ant-test-token' }),
    model: 'claude-sonnet-4-5',
    events: () => anthropicEvents('claude-sonnet-4-5'),
    contentType: SSE_TYPE,
  },
  {
    name: 'google (Gemini)',
    fake: () => gemini,
    headers: () => ({ 'x-gateway-api-key': gateway.apiKey, 'x-gateway-provider': 'google', 'x-gateway-custom-host': gemini.baseUrl, authorization: 'Bearer AIza-test-key' }),
    model: 'gemini-2.0-flash',
    events: () => geminiEvents('gemini-2.0-flash'),
    contentType: SSE_TYPE,
  },
  { name: 'vertex-ai (Gemini)', fake: () => vertex, headers: vertexHeaders, model: GEMINI_ON_VERTEX, events: () => geminiEvents(GEMINI_ON_VERTEX), contentType: SSE_TYPE },
  { name: 'vertex-ai (Claude)', fake: () => vertex, headers: vertexHeaders, model: CLAUDE_ON_VERTEX, events: () => anthropicEvents(CLAUDE_ON_VERTEX), contentType: SSE_TYPE },
  {
    name: 'bedrock',
    fake: () => bedrock,
    headers: () => ({
      'x-gateway-api-key': gateway.apiKey,
      'x-gateway-provider': 'bedrock',
      'x-gateway-custom-host': bedrock.baseUrl,
      'x-gateway-cloud-c-access-key-id': AWS.accessKeyId,
      'x-gateway-cloud-c-secret-access-key': AWS.secretAccessKey,
      'x-gateway-cloud-c-region': 'us-west-2',
    }),
    model: 'anthropic.claude-3-5-sonnet-20240620-v1:0',
    events: bedrockEvents,
    contentType: 'application/vnd.amazon.eventstream',
  },
  {
    name: 'azure-openai',
    fake: () => azure,
    headers: () => ({
      'x-gateway-api-key': gateway.apiKey,
      'x-gateway-provider': 'azure-openai',
      'x-gateway-custom-host': azure.baseUrl,
      'x-gateway-cloud-a-resource-name': 'my-resource',
      'x-gateway-cloud-a-deployment-id': 'chat-prod',
      'x-gateway-cloud-a-api-version': '2024-10-21',
      authorization: 'Bearer 0123456789abcdef0123456789abcdef',
    }),
    model: 'gpt-4o',
    events: azureEvents,
    contentType: SSE_TYPE,
  },
];

describe('translated streams reach the client while the provider is still answering', () => {
  it.each(CASES)('$name: the client has the first event before the provider sends its last', async (testCase) => {
    const { head, tail } = testCase.events();
    const held = holdStreamTail(head, tail, testCase.contentType);
    testCase.fake().enqueue(held.behaviour);
    const deadline = performance.now() + FIRST_EVENT_DEADLINE_MS;
    const timeLeft = () => Math.max(0, deadline - performance.now());

    const responding = fetch(`${gateway.baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...testCase.headers() },
      body: JSON.stringify({ model: testCase.model, messages: [{ role: 'user', content: 'Say hello' }], stream: true }),
    });
    let received = '';
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    const firstEvent = (async () => {
      const response = await responding;
      expect(response.status, `${testCase.name}: ${response.status === 200 ? '' : await response.clone().text()}`).toBe(200);
      reader = response.body!.getReader();
      const decoder = new TextDecoder();
      // Until the head's text is in: the first events may arrive in more than one read.
      while (!streamedText(readDataLines(completeEvents(received)).chunks).includes('Hello')) {
        const part = await reader.read();
        if (part.done) break;
        received += decoder.decode(part.value, { stream: true });
      }
    })();
    const outcome = await within(firstEvent, timeLeft());
    const headWasSent = await within(held.headSent, 0).then((value) => value !== TIMED_OUT);

    if (outcome === TIMED_OUT) {
      // Let the provider finish so that nothing is left open, then say what broke.
      held.release();
      await within(firstEvent.catch(() => undefined), 2_000);
      await reader?.cancel().catch(() => undefined);
      expect.fail(
        headWasSent
          ? `${testCase.name}: the client got no event within ${FIRST_EVENT_DEADLINE_MS} ms although the provider had sent its first events and was holding back only its last ones: ` +
              'the gateway holds a translated stream back until the provider finishes (relay/translated.ts relayTranslated must write each translated event as it is made, not cork or buffer them)'
          : `${testCase.name}: the provider never sent its first events within ${FIRST_EVENT_DEADLINE_MS} ms — did the request reach the double?`,
      );
    }

    expect(held.tailStarted(), `${testCase.name}: the provider had already sent its last events when the client saw its first one`).toBe(false);
    expect(streamedText(readDataLines(completeEvents(received)).chunks), `${testCase.name}: the first translated text, before the provider's tail`).toBe('Hello');

    held.release();
    const decoder = new TextDecoder();
    for (let part = await reader!.read(); !part.done; part = await reader!.read()) received += decoder.decode(part.value, { stream: true });
    const stream = readDataLines(received);
    expect(streamedText(stream.chunks), `${testCase.name}: the whole answer after the tail`).toBe('Hello world');
    expect(stream.done, `${testCase.name}: the stream ends with [DONE]`).toBe(true);
  });
});
