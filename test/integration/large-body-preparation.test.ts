// Bodies of OFF_THREAD_MIN_BYTES or more are read by the preparing threads (gateway/prepare/): the call
// reaches the provider as it would from the serving thread (translated by the strict Anthropic double's
// rules), a body the threads refuse gets exactly the answer the serving thread's reader gives (status,
// dialect, message), and a thread that dies while reading a body answers that call 500 in its dialect —
// never a hang — while the next large call is served.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startAnthropicFake, type AnthropicFake } from '../fakes/anthropic.js';
import { readGeneration } from '../../src-main/gateway/request-body.js';
import { GENERATION_ROUTES } from '../../src-main/gateway/ingress/registry.js';
import { GatewayError } from '../../src-main/core/errors.js';
import { OFF_THREAD_MIN_BYTES, preparePool } from '../../src-main/gateway/prepare/prepare-pool.js';
import type { Caller } from '../../src-main/core/keys.js';

let gateway: TestGateway;
let anthropic: AnthropicFake;
let key: string;

/** `count` one-word user messages, the last naming itself, as JSON text: a body past the threshold. */
const manyMessages = (count: number): string => Array.from({ length: count }, (_, i) => `{"role":"user","content":"m${i}"}`).join(',');
const MESSAGES = 12_000;
/** Every message's text, in order. */
const EVERY_TEXT = Array.from({ length: MESSAGES }, (_, i) => `m${i}`).join('');
/** A Chat body of MESSAGES messages for Claude (translated to Messages by the gateway). */
const chatBody = (extra = ''): string => `{"model":"claude-sonnet-4-5","max_tokens":16,"messages":[${manyMessages(MESSAGES)}]${extra}}`;

beforeAll(async () => {
  gateway = await startGateway();
  anthropic = await startAnthropicFake();
  const created = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: 'claude', provider: 'anthropic', secret: 'sk-ant-large-0123456789', customHost: anthropic.baseUrl }) });
  expect(created.status).toBe(201);
  key = ((await created.json()) as { key: string }).key;
}, 60_000);
afterAll(async () => {
  await Promise.all([gateway?.close(), anthropic?.close()]);
});

function post(path: string, body: string): Promise<Response> {
  return fetch(`${gateway.baseUrl}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` }, body });
}

describe('a large body prepared off the serving thread', () => {
  it('is translated and reaches the provider whole', { timeout: 60_000 }, async () => {
    const body = chatBody();
    expect(Buffer.byteLength(body)).toBeGreaterThan(OFF_THREAD_MIN_BYTES);
    const response = await post('/v1/chat/completions', body);
    const answer = (await response.json()) as { object: string; choices: { message: { content: string } }[] };
    expect(response.status, JSON.stringify(answer)).toBe(200);
    expect(answer.object).toBe('chat.completion');
    // The double echoes the last user turn (Messages joins consecutive user messages into one): the encoded
    // bytes carried every message, in order.
    expect(answer.choices[0].message.content === `Claude heard: ${EVERY_TEXT}`, answer.choices[0].message.content.slice(0, 200)).toBe(true);
    const sent = anthropic.requests.at(-1)!.json as { max_tokens: number };
    expect(sent.max_tokens).toBe(16);
  });

  // Each refusal as the serving thread's reader makes it for the same bytes, in the path's dialect.
  const caller: Caller = { kind: 'gateway-key', keyId: null };
  const refusals = [
    { name: 'a member name given twice', path: '/v1/chat/completions', body: chatBody(',"model":"claude-haiku-4-5"') },
    { name: 'a message the dialect refuses, deep in the body', path: '/v1/chat/completions', body: chatBody().replace(/\]\}$/, ',{"role":"robot","content":"x"}]}') },
    { name: 'JSON cut short', path: '/v1/messages', body: chatBody().slice(0, -2) },
    { name: 'a model that is not a string', path: '/v1/messages', body: chatBody().replace('"model":"claude-sonnet-4-5"', '"model":5') },
  ];
  it.each(refusals)('refuses $name exactly as the serving thread does', { timeout: 60_000 }, async ({ path, body }) => {
    const route = GENERATION_ROUTES.get(path)!;
    const bytes = Buffer.from(body);
    expect(bytes.length).toBeGreaterThan(OFF_THREAD_MIN_BYTES);
    let expected: GatewayError | undefined;
    try {
      readGeneration({ bytes, text: body }, route, caller);
    } catch (error) {
      expected = error as GatewayError;
    }
    expect(expected).toBeInstanceOf(GatewayError);
    const response = await post(path, body);
    expect(response.status).toBe(expected!.status);
    expect(await response.json()).toEqual(route.ingress.errorBody(expected!));
  });

  it('answers 500 in the dialect when its preparing thread dies, and the next large call is served', { timeout: 60_000 }, async () => {
    // Large enough (~0.8 MB, its prompt counted against the window: two jobs) that its thread is still
    // reading it when found busy, on a quick machine too; within Claude's window.
    const count = 25_000;
    const body = `{"model":"claude-sonnet-4-5","max_tokens":16,"messages":[${manyMessages(count)}]}`;
    const pending = fetch(`${gateway.baseUrl}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' }, body });
    // Stopped as a crash would stop it, while it holds this call's body.
    while (!(await preparePool().stopBusyWorker())) await new Promise((resolve) => setTimeout(resolve, 1));
    const response = await pending;
    const answer = (await response.json()) as { type: string; error: { type: string; message: string } };
    expect(response.status).toBe(500);
    expect(answer.type).toBe('error');
    expect(answer.error.type).toBe('api_error');
    expect(answer.error.message).toMatch(/thread reading this request body stopped/);
    const next = await fetch(`${gateway.baseUrl}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key, 'anthropic-version': '2023-06-01' }, body });
    expect(next.status, await next.clone().text()).toBe(200);
    // Passed through: the double reads the last of the messages as sent.
    expect(((await next.json()) as { content: { text: string }[] }).content[0].text).toBe(`Claude heard: m${count - 1}`);
  });
});
