// Both protocol eras at both ends: v2 SDK clients speaking 2025-06-18, 2025-11-25 and 2026-07-28 call
// through /mcp and /mcp/{server} to an upstream that speaks only 2025-11-25 and one that speaks only
// 2026-07-28 — tools listed and called, progress, cancellation, a tool list that changed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { startGateway, TEST_GATEWAY_KEY, type TestGateway } from '../helpers/gateway.js';
import { startNewEraServer, startOldEraServer, type EraServer } from '../fakes/mcp-era-servers.js';
import { addMcpServer, textOf } from '../helpers/mcp.js';

let gateway: TestGateway;
let old: EraServer;
let fresh: EraServer;

beforeAll(async () => {
  gateway = await startGateway();
  [old, fresh] = await Promise.all([startOldEraServer('old'), startNewEraServer('new')]);
  await addMcpServer(gateway, { name: 'old', transport: 'http', url: old.url });
  await addMcpServer(gateway, { name: 'new', transport: 'http', url: fresh.url });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  await old?.close();
  await fresh?.close();
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
  it('is answered with an error naming why, and never asked of another key’s 2025 session', { timeout: 30_000 }, async () => {
    const created = (await (await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'bystander' }) })).json()) as { key: string };
    const bystander = new Client({ name: 'bystander', version: '1.0.0' }, { capabilities: { sampling: {} } });
    await bystander.connect(new StreamableHTTPClientTransport(new URL('/mcp/old', gateway.baseUrl), { requestInit: { headers: { authorization: `Bearer ${created.key}` } } }));
    const askedBystander: unknown[] = [];
    bystander.setRequestHandler('sampling/createMessage', async (request) => {
      askedBystander.push(request.params);
      return { role: 'assistant', model: 'm', content: { type: 'text', text: 'leaked' } };
    });
    await bystander.listTools();
    const client = await connect('/mcp/old', CLIENT_ERAS[2].options);
    try {
      // The 2025 server turns the error into its tool's error answer.
      const answer = await client.callTool({ name: 'ask', arguments: {} });
      expect(answer.isError).toBe(true);
      expect(textOf(answer)).toMatch(/during a call of a 2026-07-28 client/);
      expect(askedBystander).toEqual([]);
    } finally {
      await client.close();
      await bystander.close();
    }
  });
});
