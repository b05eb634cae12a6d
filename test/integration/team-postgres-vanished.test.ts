// PostgreSQL gone without closing its connections: a server vanished behind its address (a failover to a
// new primary), so the connections open to it carry nothing more and nothing says they are dead, while
// new connections reach the new server. An instance must notice rather than wait for TCP to give up
// (hours for an idle connection): its LISTEN connection, or a key revoked on another instance keeps
// working on it; its pool, or its log rows wait a quarter of an hour.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { PgBridge } from '../../src-main/store-postgres/pg-bridge.js';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startPostgres, withClient, type TestPostgres } from '../helpers/postgres.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

let postgres: TestPostgres;
let fake: OpenAIFake;
let url: string;
let proxy: TcpProxy;
/** Through the relay. */
let proxiedUrl: string;

beforeAll(async () => {
  postgres = await startPostgres();
  fake = await startOpenAIFake();
  url = await postgres.newDatabase();
  const parsed = new URL(url);
  proxy = await startTcpProxy(Number(parsed.port));
  parsed.port = String(proxy.port);
  proxiedUrl = parsed.toString();
}, 60_000);
afterAll(async () => {
  await proxy?.close();
  await fake?.close();
  await postgres?.close();
}, 30_000);

function complete(gateway: TestGateway, key: string) {
  return fetch(`${gateway.baseUrl}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'gpt-3.5-turbo-instruct', prompt: 'Say hi', max_tokens: 5 }),
  });
}

describe('team mode: PostgreSQL vanished without closing its connections', () => {
  it('a key revoked on another instance stops here within seconds, and changes are heard again at once after', async () => {
    // Redis stands for shared limits (two instances); nothing here has limits.
    const a = await startGateway({ databaseUrl: url, redisUrl: 'redis://127.0.0.1:1' });
    const b = await startGateway({ databaseUrl: proxiedUrl, redisUrl: 'redis://127.0.0.1:1' });
    try {
      const createKey = async (name: string) => {
        const response = await a.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name, provider: 'openai', secret: `sk-${name}`, customHost: fake.baseUrl }) });
        expect(response.status).toBe(201);
        return (await response.json()) as { id: string; key: string };
      };
      const revoked = await createKey('revoked');
      await vi.waitFor(async () => expect((await complete(b, revoked.key)).status).toBe(200), { timeout: 1_000, interval: 50 });

      await proxy.silenceOpenConnections();
      expect((await a.admin(`/virtual-keys/${revoked.id}`, { method: 'DELETE' })).status).toBe(200);
      // Its LISTEN connection is asked every second and given 3 s to answer; then it listens anew and reloads.
      await vi.waitFor(async () => expect((await complete(b, revoked.key)).status).toBe(401), { timeout: 6_000, interval: 50 });

      // Listening on its new connection: a change is heard within the usual second.
      const later = await createKey('later');
      await vi.waitFor(async () => expect((await complete(b, later.key)).status).toBe(200), { timeout: 1_000, interval: 50 });
    } finally {
      await b.close().catch(() => undefined);
      await a.close().catch(() => undefined);
    }
  }, 60_000);

  it('a statement the server never answers fails a little after the statement timeout, and the next one goes on a new connection', async () => {
    await withClient(url, (client) => client.query('CREATE TABLE copied (n integer)'));
    const bridge = new PgBridge({ url: proxiedUrl, statementTimeoutMs: 1_000 });
    try {
      const copy = (n: number) => bridge.run([{ sql: 'COPY copied (n) FROM STDIN', copyRows: [[n]] }]);
      await copy(1);
      // Several connections open (and idle) in the pool, as on a busy instance.
      await Promise.all([0, 1, 2].map(() => bridge.query('SELECT pg_sleep(0.05)')));
      expect(await bridge.query('SELECT count(*)::int AS n FROM copied')).toEqual([{ n: 1 }]);

      await proxy.silenceOpenConnections();
      const started = Date.now();
      // A COPY (how log batches are written) on a connection that carries nothing more.
      await expect(copy(2)).rejects.toThrow(/Query read timeout/);
      // The statement timeout (1 s) and the 5 s PostgreSQL had to answer a statement it gave up on.
      expect(Date.now() - started).toBeLessThan(8_000);

      // Every connection of the old pool went to the vanished server: the next work takes a new one.
      await vi.waitFor(() => copy(3), { timeout: 3_000, interval: 50 });
      expect(await bridge.query('SELECT n FROM copied ORDER BY n')).toEqual([{ n: 1 }, { n: 3 }]);
    } finally {
      await bridge.close();
    }
  }, 60_000);
});
