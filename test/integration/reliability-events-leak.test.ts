// Found by the soak: every client of the live log (/admin/api/events) that left stayed referenced from
// the shutdown signal, its request, response and socket with it. A client that leaves must leave nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getEventListeners } from 'node:events';
import { startGateway, type TestGateway } from '../helpers/gateway.js';

let gateway: TestGateway;
beforeAll(async () => {
  gateway = await startGateway();
});
afterAll(() => gateway.close());

describe('live log clients that leave', () => {
  it('leave no listener behind on the shutdown signal', async () => {
    const shutdown = gateway.running.services.shutdown;
    const before = getEventListeners(shutdown, 'abort').length;
    for (let i = 0; i < 20; i++) {
      const controller = new AbortController();
      const events = await gateway.admin('/events', { signal: controller.signal });
      const reader = events.body!.getReader();
      await reader.read();
      controller.abort();
      await reader.closed.catch(() => undefined);
    }
    const deadline = performance.now() + 2_000;
    while (getEventListeners(shutdown, 'abort').length > before && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(getEventListeners(shutdown, 'abort').length).toBe(before);
  });

  it('still end when the server stops while they are connected', async () => {
    const other = await startGateway();
    const events = await other.admin('/events');
    const reader = events.body!.getReader();
    await reader.read();
    const stopped = other.close();
    // The feed must end (cleanly or with a cut connection) well before the server's own 5 s limit.
    const drained = (async () => {
      try {
        while (!(await reader.read()).done);
      } catch {
        // A cut connection is an end too.
      }
      return 'ended' as const;
    })();
    let timer: NodeJS.Timeout | undefined;
    const tooLate = new Promise<'still open'>((resolve) => (timer = setTimeout(() => resolve('still open'), 4_000)));
    expect(await Promise.race([drained, tooLate])).toBe('ended');
    clearTimeout(timer);
    await stopped;
  });
});
