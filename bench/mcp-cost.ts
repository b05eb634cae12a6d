// The MCP gateway's cost: one tool call at a time (one connection, one session) made to an MCP server
// directly and through Gatehouse's /mcp/{server}, in alternating rounds; the medians' difference is what
// the gateway adds to a call (auth, the session, the relay to its shared upstream connection, the log row).
// Everything runs in this process (the server, Gatehouse and both clients), so both paths pay the same
// scheduling; the figures are for comparison with each other, not with the /v1 rows' separate processes.
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { startGatehouse } from '../src-main/app.js';
import { median } from './load.js';

export interface McpCallCost {
  calls: number;
  directMedianMs: number;
  gatewayMedianMs: number;
  directP99Ms: number;
  gatewayP99Ms: number;
  /** gatewayMedianMs - directMedianMs. */
  addedMedianMs: number;
}

const KEY = 'gh-bench-mcp-gateway-key-0123456789';

async function startEchoServer(): Promise<{ url: string; close(): Promise<void> }> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer(async (req, res) => {
    const id = req.headers['mcp-session-id'];
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    if (known) return known.handleRequest(req, res);
    const server = new McpServer({ name: 'bench-echo', version: '1.0.0' });
    server.registerTool('echo', { inputSchema: { text: z.string() } }, async ({ text }) => ({ content: [{ type: 'text', text }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID(), onsessioninitialized: (newId) => void sessions.set(newId, transport) });
    await server.connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    close: async () => {
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'bench', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

async function timeCalls(client: Client, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const started = performance.now();
    await client.callTool({ name: 'echo', arguments: { text: `call ${i}` } });
    times.push(performance.now() - started);
  }
  return times;
}

const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * 0.99))];

export async function measureMcpCall(callsPerRound: number, rounds: number): Promise<McpCallCost> {
  const echo = await startEchoServer();
  const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-mcp-'));
  const gatehouse = await startGatehouse({ host: '127.0.0.1', port: 0, dataDir, env: { GATEWAY_API_KEY: KEY, GATEHOUSE_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'), HOME: dataDir } });
  try {
    await gatehouse.services.mcpServers.create({ name: 'bench', transport: 'http', url: echo.url });
    const direct = await connect(echo.url);
    const through = await connect(`${gatehouse.url}/mcp/bench`, { authorization: `Bearer ${KEY}` });
    await timeCalls(direct, 50);
    await timeCalls(through, 50);
    const directTimes: number[] = [];
    const gatewayTimes: number[] = [];
    for (let round = 0; round < rounds; round++) {
      directTimes.push(...(await timeCalls(direct, callsPerRound)));
      gatewayTimes.push(...(await timeCalls(through, callsPerRound)));
    }
    await direct.close();
    await through.close();
    const directMedianMs = median(directTimes);
    const gatewayMedianMs = median(gatewayTimes);
    return { calls: directTimes.length, directMedianMs, gatewayMedianMs, directP99Ms: p99(directTimes), gatewayP99Ms: p99(gatewayTimes), addedMedianMs: gatewayMedianMs - directMedianMs };
  } finally {
    await gatehouse.stop();
    await echo.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// `node --import tsx bench/mcp-cost.ts`: this row alone.
if (process.argv[1]?.endsWith('mcp-cost.ts')) {
  const cost = await measureMcpCall(200, 5);
  console.log(JSON.stringify(cost, null, 2));
}
