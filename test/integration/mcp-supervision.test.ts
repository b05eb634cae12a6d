// Stdio servers supervised by the MCP gateway: a crashed server is started again and answers; a slow
// call is cancelled by its client or cut at the server's timeout; a server that cannot start answers
// at once with a JSON-RPC error naming why, never a hang; stopping Gatehouse ends its servers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, TEST_GATEWAY_KEY, type TestGateway } from '../helpers/gateway.js';
import { addMcpServer, connectMcp, patchMcpServer, stdioServerCommand, textOf } from '../helpers/mcp.js';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startGateway();
  await addMcpServer(gateway, { name: 'worker', ...stdioServerCommand('worker') });
  await addMcpServer(gateway, { name: 'broken', command: '/nonexistent/mcp-server-binary', args: [] });
  await addMcpServer(gateway, { name: 'quitter', command: process.execPath, args: ['-e', "process.stderr.write('missing GITHUB_TOKEN\\n'); process.exit(1)"] });
});

afterAll(async () => {
  await gateway?.close();
});

async function serverState(name: string): Promise<{ status: string; lastError: string | null }> {
  return ((await (await gateway.admin(`/mcp-servers/${name}`)).json()) as { server: { status: string; lastError: string | null } }).server;
}

const pids = async () => ((await (await gateway.admin('/mcp-servers/worker/stderr')).json()) as { lines: string[] }).lines.filter((line) => line.includes('started with pid'));

describe('a crashing stdio server', () => {
  it('is started again and answers the next call', { timeout: 60_000 }, async () => {
    const client = await connectMcp(gateway, '/mcp/worker', TEST_GATEWAY_KEY);
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'before' } }))).toBe('worker says before');
    expect(await pids()).toHaveLength(1);
    await client.callTool({ name: 'crash', arguments: {} });
    // Supervision notices the exit and starts it again without waiting for a call.
    await expect.poll(async () => (await pids()).length, { timeout: 15_000, interval: 100 }).toBe(2);
    await expect.poll(async () => (await serverState('worker')).status, { timeout: 15_000, interval: 100 }).toBe('running');
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'after' } }))).toBe('worker says after');
    await client.close();
  });
});

describe('a slow tool', () => {
  it('is cancelled when its client gives up, and the call is logged as cancelled', async () => {
    const client = await connectMcp(gateway, '/mcp', TEST_GATEWAY_KEY);
    const controller = new AbortController();
    const started = Date.now();
    const call = client.callTool({ name: 'worker__slow', arguments: { ms: 20_000 } }, undefined, { signal: controller.signal });
    setTimeout(() => controller.abort('enough'), 500);
    await expect(call).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(10_000);
    // The session stays open (a hang-up alone is no cancellation in MCP): the client's notifications/cancelled is what stops it.
    await expect
      .poll(async () => {
        await gateway.flushLog();
        const rows = ((await (await gateway.admin('/logs?kind=mcp&tool=slow')).json()) as { items: { status: number }[] }).items;
        return rows[0]?.status;
      }, { timeout: 5_000 })
      .toBe(499);
    await client.close();
  });

  it('is cut at the server’s call timeout with a JSON-RPC error', async () => {
    await patchMcpServer(gateway, 'worker', { timeoutMs: 700 });
    const client = await connectMcp(gateway, '/mcp/worker', TEST_GATEWAY_KEY);
    const started = Date.now();
    await expect(client.callTool({ name: 'slow', arguments: { ms: 20_000 } })).rejects.toThrow(/did not answer tools\/call within 700 ms/);
    expect(Date.now() - started).toBeLessThan(10_000);
    // The server is still there for the next call.
    expect(textOf(await client.callTool({ name: 'echo', arguments: { text: 'still here' } }))).toBe('worker says still here');
    await client.close();
    await patchMcpServer(gateway, 'worker', { timeoutMs: 60_000 });
    await gateway.flushLog();
    const rows = ((await (await gateway.admin('/logs?kind=mcp&server=worker&tool=slow')).json()) as { items: { status: number; error: string }[] }).items;
    expect(rows[0]).toMatchObject({ status: 504 });
  });
});

describe('a server that cannot start', () => {
  it('answers its calls with a JSON-RPC error naming why, on both endpoints, quickly', async () => {
    for (const [name, why] of [
      ['broken', /ENOENT/],
      ['quitter', /missing GITHUB_TOKEN/],
    ] as const) {
      const reason = new RegExp(`could not be started: .*${why.source}`);
      const started = Date.now();
      const single = await connectMcp(gateway, `/mcp/${name}`, TEST_GATEWAY_KEY);
      await expect(single.listTools()).rejects.toThrow(reason);
      await expect(single.callTool({ name: 'anything', arguments: {} })).rejects.toThrow(reason);
      await single.close();
      const combined = await connectMcp(gateway, '/mcp', TEST_GATEWAY_KEY);
      // The other servers are still listed; the broken one's tools are not.
      const names = (await combined.listTools()).tools.map((tool) => tool.name);
      expect(names).toContain('worker__echo');
      expect(names.some((tool) => tool.startsWith(`${name}__`))).toBe(false);
      await expect(combined.callTool({ name: `${name}__anything`, arguments: {} })).rejects.toThrow(reason);
      await combined.close();
      expect(Date.now() - started).toBeLessThan(15_000);
      const state = await serverState(name);
      expect(state.status).toBe('failed');
      expect(state.lastError).toMatch(why);
    }
    const tools = await gateway.admin('/mcp-servers/broken/tools');
    expect(tools.status).toBe(502);
    expect(((await tools.json()) as { error: { message: string } }).error.message).toMatch(/could not be started/);
  });
});

describe('shutdown', () => {
  it('ends the stdio servers it started', { timeout: 60_000 }, async () => {
    const own = await startGateway();
    await addMcpServer(own, { name: 'short', ...stdioServerCommand('short') });
    const client = await connectMcp(own, '/mcp/short', TEST_GATEWAY_KEY);
    await client.callTool({ name: 'echo', arguments: { text: 'x' } });
    const line = ((await (await own.admin('/mcp-servers/short/stderr')).json()) as { lines: string[] }).lines.find((text) => text.includes('pid'))!;
    const pid = Number(/pid (\d+)/.exec(line)![1]);
    expect(() => process.kill(pid, 0)).not.toThrow();
    await client.close().catch(() => undefined);
    await own.close();
    await expect.poll(() => {
      try {
        process.kill(pid, 0);
        return 'alive';
      } catch {
        return 'gone';
      }
    }, { timeout: 10_000 }).toBe('gone');
  });
});
