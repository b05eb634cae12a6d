import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { canListen, findNextFreePort, isAddressInUse } from '../../../src-main/electron/free-port';

const servers: Server[] = [];

function listen(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    servers.push(server);
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port }, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

describe('finding another port when the configured one is busy', () => {
  it('sees that a port with a listener is busy', async () => {
    const busy = await listen(0);
    expect(await canListen('127.0.0.1', busy)).toBe(false);
  });

  it('offers a port after the busy one that really accepts a listener', async () => {
    const busy = await listen(0);
    const next = await findNextFreePort('127.0.0.1', busy);
    expect(next).not.toBeNull();
    expect(next).toBeGreaterThan(busy);
    await expect(listen(next ?? 0)).resolves.toBe(next);
  });

  it('recognises the error the gateway throws for a busy port', () => {
    expect(isAddressInUse(Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE' }))).toBe(true);
    expect(isAddressInUse(new Error('other'))).toBe(false);
    expect(isAddressInUse(null)).toBe(false);
  });
});
