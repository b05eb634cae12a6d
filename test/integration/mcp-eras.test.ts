// Both protocol eras at both ends: v2 SDK clients speaking 2025-06-18, 2025-11-25 and 2026-07-28 call
// through /mcp and /mcp/{server} to an upstream that speaks only 2025-11-25 and one that speaks only
// 2026-07-28 — tools listed and called, progress, cancellation, a tool list that changed; and to one that
// speaks both, which each client reaches in its own era, as it would directly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startGateway, TEST_GATEWAY_KEY, type TestGateway } from '../helpers/gateway.js';
import { startBothErasServer, startNewEraServer, startOldEraServer, type EraServer } from '../fakes/mcp-era-servers.js';
import { addMcpServer, textOf } from '../helpers/mcp.js';

/** Takes any result object as it came (the manual multi-round-trip path reads input_required itself). */
const PASS_ANY = { '~standard': { version: 1, vendor: 'test', validate: (value: unknown) => ({ value }) } } as never;

let gateway: TestGateway;
let old: EraServer;
let fresh: EraServer;
let both: EraServer;

beforeAll(async () => {
  gateway = await startGateway();
  [old, fresh, both] = await Promise.all([startOldEraServer('old'), startNewEraServer('new'), startBothErasServer('both')]);
  await addMcpServer(gateway, { name: 'old', transport: 'http', url: old.url });
  await addMcpServer(gateway, { name: 'new', transport: 'http', url: fresh.url });
  await addMcpServer(gateway, { name: 'both', transport: 'http', url: both.url });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await old?.close();
  await fresh?.close();
  await both?.close();
});

const CLIENT_ERAS = [
  { era: '2025-06-18', options: { supportedProtocolVersions: ['2025-06-18'] } },
  { era: '2025-11-25', options: {} },
  { era: '2026-07-28', options: { versionNegotiation: { mode: { pin: '2026-07-28' } } } },
] as const;

async function connect(path: string, options: (typeof CLIENT_ERAS)[number]['options']): Promise<Client> {
  const client = new Client({ name: 'era-client', version: '1.0.0' }, options as never);
  await client.connect(new StreamableHTTPClientTransport(new URL(path, gateway.baseUrl), { requestInit: { headers: { authorization: `Bearer ${TEST_GATEWAY_KEY}` } } }));
  return client;
}

describe.each(CLIENT_ERAS)('a $era client', ({ era, options }) => {
  describe.each([
    { server: 'old', name: (tool: string) => tool, path: '/mcp/old' },
    { server: 'new', name: (tool: string) => tool, path: '/mcp/new' },
    { server: 'old', name: (tool: string) => `old__${tool}`, path: '/mcp' },
    { server: 'new', name: (tool: string) => `new__${tool}`, path: '/mcp' },
  ])('through $path to the $server server', ({ server, name, path }) => {
    it('speaks its own era, lists and calls tools, and gets progress', { timeout: 30_000 }, async () => {
      const client = await connect(path, options);
      try {
        expect(client.getNegotiatedProtocolVersion()).toBe(era);
        const tools = (await client.listTools()).tools.map((tool) => tool.name);
        expect(tools).toEqual(expect.arrayContaining([name('echo'), name('slow')]));
        expect(textOf(await client.callTool({ name: name('echo'), arguments: { text: era } }))).toBe(`${server} says ${era}`);
        const progress: number[] = [];
        const slept = await client.callTool({ name: name('slow'), arguments: { ms: 300 } }, { onprogress: (update) => progress.push(update.progress) });
        expect(textOf(slept)).toBe('slept 300 ms');
        expect(progress.length).toBeGreaterThan(0);
      } finally {
        await client.close();
      }
    });

    it.runIf(server === 'new' && era !== '2026-07-28')(
      "is asked for the 2026-07-28 server's input_required as a 2025 elicitation, and its answer reaches the server",
      { timeout: 30_000 },
      async () => {
        const client = await connect(path, { ...options, capabilities: { elicitation: { form: {} } } } as never);
        try {
          const asked: string[] = [];
          client.setRequestHandler('elicitation/create', async (request) => {
            asked.push(String(request.params.message));
            return { action: 'accept', content: { name: 'Ada' } };
          });
          expect(textOf(await client.callTool({ name: name('ask'), arguments: {} }))).toBe('hello Ada');
          expect(asked).toEqual(['Who are you?']);
        } finally {
          await client.close();
        }
      },
    );

    it('cancels a call upstream when it gives up', { timeout: 30_000 }, async () => {
      const client = await connect(path, options);
      try {
        const cancelledRows = async () => {
          await gateway.flushLog();
          const rows = ((await (await gateway.admin(`/logs?kind=mcp&server=${server}&tool=slow`)).json()) as { items: { status: number }[] }).items;
          return rows.filter((row) => row.status === 499).length;
        };
        const rowsBefore = await cancelledRows();
        const upstreamBefore = fresh.cancelled;
        const giveUp = new AbortController();
        const started = Date.now();
        const call = client.callTool({ name: name('slow'), arguments: { ms: 20_000 } }, { signal: giveUp.signal });
        setTimeout(() => giveUp.abort(new Error('gave up')), 300);
        await expect(call).rejects.toThrow();
        expect(Date.now() - started).toBeLessThan(5_000);
        // One more cancelled row, and the server itself saw the cancellation (the 2026-07-28 one counts them).
        await expect.poll(cancelledRows, { timeout: 5_000 }).toBe(rowsBefore + 1);
        if (server === 'new') await expect.poll(() => fresh.cancelled, { timeout: 5_000 }).toBe(upstreamBefore + 1);
      } finally {
        await client.close();
      }
    });
  });
});

describe("a 2025 server's own request during a 2026-07-28 client's call", () => {
  /** A second key's 2025 session on the same server, which must never be asked for another key's call. */
  async function bystanderSession(): Promise<{ client: Client; asked: unknown[] }> {
    const created = (await (await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: `bystander-${Math.random()}` }) })).json()) as { key: string };
    const client = new Client({ name: 'bystander', version: '1.0.0' }, { capabilities: { sampling: {} } });
    await client.connect(new StreamableHTTPClientTransport(new URL('/mcp/old', gateway.baseUrl), { requestInit: { headers: { authorization: `Bearer ${created.key}` } } }));
    const asked: unknown[] = [];
    client.setRequestHandler('sampling/createMessage', async (request) => {
      asked.push(request.params);
      return { role: 'assistant', model: 'm', content: { type: 'text', text: 'leaked' } };
    });
    await client.listTools();
    return { client, asked };
  }

  it('becomes an input_required round: the client answers on its retry and the held call finishes, never asking another key’s session', { timeout: 30_000 }, async () => {
    const bystander = await bystanderSession();
    const client = await connect('/mcp/old', { ...CLIENT_ERAS[2].options, capabilities: { sampling: {} } } as never);
    try {
      const asked: string[] = [];
      client.setRequestHandler('sampling/createMessage', async (request) => {
        asked.push(JSON.stringify(request.params.messages));
        return { role: 'assistant', model: 'm', content: { type: 'text', text: 'hi from 2026' } };
      });
      expect(textOf(await client.callTool({ name: 'ask', arguments: {} }))).toBe('the client said hi from 2026');
      expect(asked).toEqual([JSON.stringify([{ role: 'user', content: { type: 'text', text: 'say hi' } }])]);
      expect(bystander.asked).toEqual([]);
    } finally {
      await client.close();
      await bystander.client.close();
    }
  });

  it('is refused as a missing client capability when the client did not declare it (and the server is not left waiting)', { timeout: 30_000 }, async () => {
    const bystander = await bystanderSession();
    const client = await connect('/mcp/old', CLIENT_ERAS[2].options);
    try {
      await expect(client.callTool({ name: 'ask', arguments: {} })).rejects.toMatchObject({ code: -32021 });
      expect(bystander.asked).toEqual([]);
      expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'still here' } }))).toBe('old says still here');
    } finally {
      await client.close();
      await bystander.client.close();
    }
  });

  it("holds the call for the key that was asked only: another key's retry with its state finds nothing", { timeout: 30_000 }, async () => {
    const options = { ...CLIENT_ERAS[2].options, capabilities: { sampling: {} } } as never;
    const owner = await connect('/mcp/old', options);
    const created = (await (await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'thief' }) })).json()) as { key: string };
    const thief = new Client({ name: 'thief', version: '1.0.0' }, options);
    await thief.connect(new StreamableHTTPClientTransport(new URL('/mcp/old', gateway.baseUrl), { requestInit: { headers: { authorization: `Bearer ${created.key}` } } }));
    try {
      const first = (await owner.request({ method: 'tools/call', params: { name: 'ask', arguments: {} } }, PASS_ANY, { allowInputRequired: true })) as {
        resultType?: string;
        inputRequests?: Record<string, { method: string }>;
        requestState?: string;
      };
      expect(first.resultType).toBe('input_required');
      const [id, asked] = Object.entries(first.inputRequests ?? {})[0]!;
      expect(asked.method).toBe('sampling/createMessage');
      const answer = { role: 'assistant', model: 'm', content: { type: 'text', text: 'stolen' } };
      const retry = (client: Client) =>
        client.request({ method: 'tools/call', params: { name: 'ask', arguments: {}, inputResponses: { [id]: answer }, requestState: first.requestState } } as never, PASS_ANY);
      await expect(retry(thief)).rejects.toThrow(/names no call Gatehouse holds/);
      // The owner's retry still resumes it: the thief's try did not use it up.
      expect(textOf((await retry(owner)) as never)).toBe('the client said stolen');
      await expect(retry(owner)).rejects.toThrow(/names no call Gatehouse holds/);
    } finally {
      await owner.close();
      await thief.close();
    }
  });
});

describe('a server that speaks both eras', () => {
  it.each([
    { path: '/mcp/both', tool: 'echo' },
    { path: '/mcp', tool: 'both__echo' },
  ])('is reached through $path in each client\'s own era', { timeout: 30_000 }, async ({ path, tool }) => {
    for (const { era, options } of CLIENT_ERAS) {
      const client = await connect(path, options);
      try {
        const half = era === '2026-07-28' ? 'both-2026' : 'both-2025';
        expect(textOf(await client.callTool({ name: tool, arguments: { text: era } }))).toBe(`${half} says ${era}`);
      } finally {
        await client.close();
      }
    }
  });

  it("gives a 2025 client what only its era has: the server's own mid-call request, logging/setLevel, resource subscriptions", { timeout: 30_000 }, async () => {
    const client = await connect('/mcp/both', { ...CLIENT_ERAS[1].options, capabilities: { sampling: {} } } as never);
    try {
      client.setRequestHandler('sampling/createMessage', async () => ({ role: 'assistant', model: 'm', content: { type: 'text', text: 'hi there' } }));
      expect(textOf(await client.callTool({ name: 'ask', arguments: {} }))).toBe('the client said hi there');
      await expect(client.setLoggingLevel('debug')).resolves.toBeDefined();
      const updated: string[] = [];
      client.setNotificationHandler('notifications/resources/updated', async (notification) => void updated.push(notification.params.uri));
      await client.subscribeResource({ uri: 'memo://both-2025/readme' });
      await expect.poll(() => updated, { timeout: 5_000 }).toEqual(['memo://both-2025/readme']);
    } finally {
      await client.close();
    }
  });

  it("hands a 2026-07-28 client the server's input_required as it is, and its retry reaches the server", { timeout: 30_000 }, async () => {
    const client = await connect('/mcp/both', { ...CLIENT_ERAS[2].options, capabilities: { elicitation: { form: {} } } } as never);
    try {
      const asked: string[] = [];
      client.setRequestHandler('elicitation/create', async (request) => {
        asked.push(String(request.params.message));
        return { action: 'accept', content: { name: 'Grace' } };
      });
      expect(textOf(await client.callTool({ name: 'ask', arguments: {} }))).toBe('hello Grace');
      expect(asked).toEqual(['Who are you?']);
    } finally {
      await client.close();
    }
  });
});
