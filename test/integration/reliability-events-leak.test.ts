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
    let ended = false;
    try {
      while (!(await reader.read()).done);
      ended = true;
    } catch {
      ended = true;
    }
    await stopped;
    expect(ended).toBe(true);
  });
});
