// An MCP server built with the official SDK (McpServer), for tests of the MCP gateway: the same tools
// over stdio (mcp-stdio-server.ts) and in-process over Streamable HTTP (startMcpHttpServer).
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CreateMessageResultSchema, SubscribeRequestSchema, UnsubscribeRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { registerLeakyTools } from './mcp-leaky-tools.js';

export function buildMcpTestServer(name: string): McpServer {
  const server = new McpServer({ name, version: '1.0.0' }, { capabilities: { logging: {}, resources: { subscribe: true } } });
  server.registerTool('echo', { description: 'Says back what it is given', inputSchema: { text: z.string() } }, async ({ text }) => ({
    content: [{ type: 'text', text: `${name} says ${text}` }],
  }));
  server.registerTool('fail', { description: 'Answers with a tool error' }, async () => ({ isError: true, content: [{ type: 'text', text: 'the tool failed on purpose' }] }));
  server.registerTool('env', { description: 'Tells the value of an environment variable', inputSchema: { name: z.string() } }, async ({ name: variable }) => ({
    content: [{ type: 'text', text: `${variable}=${process.env[variable] ?? ''}` }],
  }));
  server.registerTool('crash', { description: 'Ends the server process' }, async () => {
    setTimeout(() => process.exit(3), 10);
    return { content: [{ type: 'text', text: 'crashing' }] };
  });
  server.registerTool('slow', { description: 'Takes its time, reporting progress', inputSchema: { ms: z.number() } }, async ({ ms }, extra) => {
    const token = extra._meta?.progressToken;
    const started = Date.now();
    let step = 0;
    while (Date.now() - started < ms) {
      if (extra.signal.aborted) return { content: [{ type: 'text', text: 'cancelled' }] };
      if (token !== undefined) await extra.sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: ++step, message: `step ${step}` } });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return { content: [{ type: 'text', text: `slept ${ms} ms` }] };
  });
  server.registerTool('log', { description: 'Sends a log message, then answers' }, async (extra) => {
    await extra.sendNotification({ method: 'notifications/message', params: { level: 'info', logger: name, data: `hello from ${name}` } });
    return { content: [{ type: 'text', text: 'logged' }] };
  });
  server.registerTool('ask', { description: 'Asks the client to sample a message' }, async (extra) => {
    const answer = await extra.sendRequest(
      { method: 'sampling/createMessage', params: { messages: [{ role: 'user', content: { type: 'text', text: 'say hi' } }], maxTokens: 10 } },
      CreateMessageResultSchema,
    );
    return { content: [{ type: 'text', text: `the client said ${answer.content.type === 'text' ? answer.content.text : '?'}` }] };
  });
  registerLeakyTools(server, name);
  server.registerPrompt('greet', { description: 'A greeting', argsSchema: { who: z.string() } }, ({ who }) => ({
    messages: [{ role: 'user', content: { type: 'text', text: `Hello ${who}` } }],
  }));
  server.registerResource('readme', `memo://${name}/readme`, { description: 'A note' }, async (uri) => ({
    contents: [{ uri: uri.href, text: `the readme of ${name}` }],
  }));
  // A subscription is told at once that its resource changed (the 2025 way: a notification on the session).
  server.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    setTimeout(() => void server.server.sendResourceUpdated({ uri: request.params.uri }).catch(() => undefined), 20);
    return {};
  });
  server.server.setRequestHandler(UnsubscribeRequestSchema, async () => ({}));
  return server;
}

export interface McpHttpTestServer {
  url: string;
  close(): Promise<void>;
}

/** The test server over Streamable HTTP, one McpServer per session, on a free loopback port. */
export async function startMcpHttpServer(name: string): Promise<McpHttpTestServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const http: HttpServer = createServer(async (req, res) => {
    const id = req.headers['mcp-session-id'];
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    if (known) return known.handleRequest(req, res);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => crypto.randomUUID(), onsessioninitialized: (newId) => void sessions.set(newId, transport) });
    await buildMcpTestServer(name).connect(transport);
    await transport.handleRequest(req, res);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`,
    close: async () => {
      for (const transport of sessions.values()) await transport.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
