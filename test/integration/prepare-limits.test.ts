// Issue 35: one body cannot hold or blow up the preparing threads (gateway/prepare/, core/worker-pool.ts).
// - A job past its time limit: its thread is terminated and replaced, the call gets 413 `body_too_costly` in
//   its dialect, and the next large call is served.
// - A body whose parse outgrows a thread's heap (`resourceLimits`): the same answer, and the pool recovers.
// - A client that leaves while its job waits in the queue takes the job out: the place is free for the next.
// The limits are lowered for these gateways (as the stall tests lower connection bounds) so that bodies of a
// few MB show what 10 MiB ones would on the defaults.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { DEFAULT_PREPARE_LIMITS, OFF_THREAD_MIN_BYTES, preparePool, type PrepareLimits } from '../../src-main/gateway/prepare/prepare-pool.js';

const MESSAGE = '{"role":"user","content":"a"}';
/** A Chat body of about `bytes` bytes of one-word messages, for a model the catalog does not know (no window check). */
const chatBody = (bytes: number): string => `{"model":"big-model","messages":[${Array(Math.ceil(bytes / (MESSAGE.length + 1))).fill(MESSAGE).join(',')}]}`;
/**
 * Just past the size read off the serving thread, in one string: prepared in a millisecond or two even by a
 * thread that just started (its code not yet compiled), so it meets the tight limits on a loaded machine.
 */
const SMALL_LARGE = `{"model":"big-model","messages":[{"role":"user","content":"${'a'.repeat(OFF_THREAD_MIN_BYTES)}"}]}`;
/** About 4 MB of messages: its parse, check and decode take a preparing thread some 400–800 ms and tens of MB. */
const COSTLY = chatBody(4 * 1024 * 1024);
/** About 4 MB of member names in one object, the costliest shape per byte to prepare: some 850 ms of CPU. */
const SLOWEST = `{"model":"big-model","messages":[${MESSAGE}],"meta":{${Array.from({ length: (4 * 1024 * 1024) / 12 }, (_, i) => `"k${i}":1`).join(',')}}}`;

let openai: OpenAIFake;
beforeAll(async () => {
  openai = await startOpenAIFake();
});
afterAll(async () => {
  await openai?.close();
});

async function withGateway(limits: Partial<PrepareLimits>): Promise<{ gateway: TestGateway; limits: PrepareLimits }> {
  const gateway = await startGateway({ prepareLimits: limits });
  return { gateway, limits: { ...DEFAULT_PREPARE_LIMITS, ...limits } };
}

function chat(gateway: TestGateway, body: string, signal?: AbortSignal): Promise<Response> {
  return fetch(`${gateway.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': gateway.apiKey, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': openai.baseUrl, authorization: 'Bearer sk-test-0123456789' },
    body,
    signal,
  });
}

/** Sends a body past the threshold once, so the pool's thread has started and loaded (seconds from source). */
async function warm(gateway: TestGateway): Promise<void> {
  const response = await chat(gateway, SMALL_LARGE);
  expect(response.status, await response.text()).toBe(200);
}

async function until(condition: () => boolean, what: string, limitMs = 10_000): Promise<void> {
  const started = performance.now();
  while (!condition()) {
    if (performance.now() - started > limitMs) throw new Error(`not within ${limitMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Waits until the request log's newest row has `status`. */
async function untilLogged(gateway: TestGateway, status: number): Promise<void> {
  const started = performance.now();
  for (;;) {
    await gateway.flushLog();
    const { items } = (await (await gateway.admin('/logs?limit=1')).json()) as { items: { status: number }[] };
    if (items[0]?.status === status) return;
    if (performance.now() - started > 10_000) throw new Error(`no log row with status ${status} within 10 s`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

async function expectTooCostly(response: Response, over: RegExp): Promise<void> {
  const answer = (await response.json()) as { error: { type: string; code: string; message: string } };
  expect(response.status, JSON.stringify(answer)).toBe(413);
  // OpenAI's error shape (the route's dialect), naming the limit met.
  expect(answer.error).toMatchObject({ type: 'invalid_request_error', code: 'body_too_costly', message: expect.stringMatching(over) });
}

describe('the preparing threads hold one body to their limits', () => {
  it('a job past its time limit: its thread is replaced, the call gets 413 body_too_costly, the next call is served', { timeout: 60_000 }, async () => {
    const { gateway, limits } = await withGateway({ threads: 1, jobTimeoutMs: 200 });
    try {
      await warm(gateway);
      const calls = openai.requests.length;
      await expectTooCostly(await chat(gateway, SLOWEST), /took longer than 200 ms/);
      expect(openai.requests.length, 'nothing reached the provider').toBe(calls);
      // The thread that held the job is gone; a new one (started from scratch) serves the next call.
      expect(preparePool(limits).load).toMatchObject({ running: 0, queued: 0 });
      const next = await chat(gateway, SMALL_LARGE);
      expect(next.status, await next.text()).toBe(200);
    } finally {
      await gateway.close();
    }
  });

  it('a body that outgrows its thread’s heap: 413 body_too_costly, and the pool recovers', { timeout: 60_000 }, async () => {
    const { gateway } = await withGateway({ threads: 1, heapMb: 48 });
    try {
      await warm(gateway);
      await expectTooCostly(await chat(gateway, COSTLY), /needed more than 48 MB of memory/);
      const next = await chat(gateway, SMALL_LARGE);
      expect(next.status, await next.text()).toBe(200);
    } finally {
      await gateway.close();
    }
  });

  it('a client that leaves while its job waits takes it out of the queue: the next client gets the place', { timeout: 60_000 }, async () => {
    // One thread, one place in its queue: while a body is prepared, a second waits and a third is refused 503.
    const { gateway, limits } = await withGateway({ threads: 1, queuedPerThread: 1 });
    const pool = preparePool(limits);
    try {
      await warm(gateway);
      const before = openai.requests.length;
      const costly = chat(gateway, COSTLY);
      await until(() => pool.load.running === 1, 'the costly body is being prepared');
      const leaving = new AbortController();
      const left = chat(gateway, SMALL_LARGE, leaving.signal).catch((error: unknown) => error);
      await until(() => pool.load.queued === 1, 'the second body waits');
      leaving.abort();
      await left;
      // The gateway has seen the client leave once its call is logged (499).
      await untilLogged(gateway, 499);
      // The costly body still holds the thread: it has not reached the provider.
      expect(openai.requests.length).toBe(before);
      expect(pool.load).toMatchObject({ running: 1, queued: 0 });
      // The place the client left is free: the next body waits in it rather than being refused.
      const next = chat(gateway, SMALL_LARGE);
      const [first, after] = await Promise.all([costly, next]);
      expect(first.status, (await first.text()).slice(0, 300)).toBe(200);
      expect(after.status, await after.text()).toBe(200);
    } finally {
      await gateway.close();
    }
  });
});
