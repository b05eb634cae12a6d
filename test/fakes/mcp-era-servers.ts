// In-process MCP servers of each protocol era for the era matrix: one built with the 2025 SDK that speaks
// only up to 2025-11-25 (sessions, initialize), and one built with the v2 SDK that speaks only 2026-07-28
// (no sessions; `_meta` on every request). Both have the same tools: echo and slow (progress, cancellable);
// the 2026-07-28 one also asks the user the 2026 way (ask: an input_required result, then a retry). And one
// that speaks both, as most servers will until 2027: each request answered by the half of its era.
import { createServer, request as httpRequest, type IncomingMessage, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { acceptedContent, createMcpHandler, inputRequired, isLegacyRequest, McpServer as ModernServer } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { startMcpHttpServer } from './mcp-tools.js';

export interface EraServer {
  url: string;
  /** Calls of `slow` that ended because their client (the gateway) cancelled them. */
  cancelled: number;
  close(): Promise<void>;
}

/** The 2025 SDK's test server (mcp-tools.ts): it answers `server/discover` with an error and speaks 2025-11-25 and before. */
export async function startOldEraServer(name: string): Promise<EraServer> {
  const server = await startMcpHttpServer(name);
  return { url: server.url, cancelled: 0, close: () => server.close() };
}

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A v2 server that refuses every 2025-era request: only the 2026-07-28 per-request protocol reaches it. */
export async function startNewEraServer(name: string): Promise<EraServer> {
  const state: EraServer = { url: '', cancelled: 0, close: async () => undefined };
  const handler = createMcpHandler(
    () => {
      const server = new ModernServer({ name, version: '2.0.0' });
      server.registerTool('echo', { description: 'Says back what it is given', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
        content: [{ type: 'text', text: `${name} says ${text}` }],
      }));
      server.registerTool('slow', { description: 'Takes its time, reporting progress', inputSchema: z.object({ ms: z.number() }) }, async ({ ms }, ctx) => {
        const token = ctx.mcpReq._meta?.progressToken;
        const started = Date.now();
        let step = 0;
        while (Date.now() - started < ms) {
          if (ctx.mcpReq.signal.aborted) {
            state.cancelled++;
            return { content: [{ type: 'text', text: 'cancelled' }] };
          }
          if (token !== undefined) await ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress: ++step } });
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return { content: [{ type: 'text', text: `slept ${ms} ms` }] };
      });
      // The 2026-07-28 way to ask the user: answer input_required, and be called again with the answer.
      server.registerTool('ask', { description: 'Asks the user for a name' }, async (ctx) => {
        const answer = acceptedContent(ctx.mcpReq.inputResponses, 'who', z.object({ name: z.string() }));
        if (!answer) {
          return inputRequired({
            inputRequests: { who: inputRequired.elicit({ message: 'Who are you?', requestedSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }) },
          });
        }
        return { content: [{ type: 'text', text: `hello ${answer.name}` }] };
      });
      return server;
    },
    { legacy: 'reject' },
  );
  const http: HttpServer = createServer(async (req, res) => {
    const body = req.method === 'POST' ? await bodyOf(req) : undefined;
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(key, value);
    const response = await handler.fetch(new Request(`http://127.0.0.1${req.url ?? '/'}`, { method: req.method, headers, body: body?.length ? new Uint8Array(body) : undefined, signal: gone.signal }));
    const out: Record<string, string> = {};
    response.headers.forEach((value, key) => (out[key] = value));
    res.writeHead(response.status, out);
    if (!response.body) return void res.end();
    res.flushHeaders();
    const reader = response.body.getReader();
    res.once('close', () => void reader.cancel().catch(() => undefined));
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        res.write(value);
      }
    } catch {
      // the client went
    }
    res.end();
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  state.close = async () => {
    await handler.close();
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  return state;
}

/**
 * A server that speaks both eras on one address: a 2026-07-28 request (its version in `_meta`) reaches a
 * 2026-only half named `<name>-2026`, anything else the 2025 half `<name>-2025` (sessions, initialize, its own
 * mid-call sampling, logging and subscriptions). Which half answered shows in what `echo` says.
 */
export async function startBothErasServer(name: string): Promise<EraServer> {
  const [old, fresh] = await Promise.all([startOldEraServer(`${name}-2025`), startNewEraServer(`${name}-2026`)]);
  const front: HttpServer = createServer(async (req, res) => {
    const body = await bodyOf(req);
    let parsed: unknown;
    try {
      parsed = body.length ? JSON.parse(body.toString('utf8')) : undefined;
    } catch {
      parsed = undefined;
    }
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(key, value);
    const modern = req.method === 'POST' && !(await isLegacyRequest(new Request('http://127.0.0.1/mcp', { method: 'POST', headers }), parsed));
    const target = new URL(modern ? fresh.url : old.url);
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: target.pathname, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    res.once('close', () => upstream.destroy());
    upstream.end(body);
  });
  await new Promise<void>((resolve) => front.listen(0, '127.0.0.1', resolve));
  const state: EraServer = {
    url: `http://127.0.0.1:${(front.address() as AddressInfo).port}/mcp`,
    get cancelled() {
      return fresh.cancelled;
    },
    close: async () => {
      front.closeAllConnections();
      await new Promise<void>((resolve) => front.close(() => resolve()));
      await Promise.all([old.close(), fresh.close()]);
    },
  };
  return state;
}
