// Helpers for MCP gateway tests: an MCP server added through the admin API, and the SDK's own Client
// connected to /mcp or /mcp/{server} with a key.
import { resolve } from 'node:path';
import { Client, type ClientOptions } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestGateway } from './gateway.js';

export const STDIO_SERVER_SCRIPT = resolve(import.meta.dirname, '..', 'fakes', 'mcp-stdio-server.ts');

/** The stdio test server as a command Gatehouse starts (node with tsx, so the TypeScript runs as it is). */
export function stdioServerCommand(name: string): { command: string; args: string[] } {
  return { command: process.execPath, args: ['--import', 'tsx', STDIO_SERVER_SCRIPT, name] };
}

export async function addMcpServer(gateway: TestGateway, server: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await gateway.admin('/mcp-servers', { method: 'POST', body: JSON.stringify(server) });
  const body = (await response.json()) as { server: Record<string, unknown> };
  if (response.status !== 201) throw new Error(`adding ${String(server.name)} failed: ${response.status} ${JSON.stringify(body)}`);
  return body.server;
}

export async function patchMcpServer(gateway: TestGateway, name: string, change: Record<string, unknown>): Promise<Record<string, unknown>> {
  const response = await gateway.admin(`/mcp-servers/${name}`, { method: 'PATCH', body: JSON.stringify(change) });
  if (response.status !== 200) throw new Error(`changing ${name} failed: ${response.status} ${await response.text()}`);
  return ((await response.json()) as { server: Record<string, unknown> }).server;
}

export async function connectMcp(gateway: TestGateway, path: string, key: string, options: ClientOptions = {}): Promise<Client> {
  const client = new Client({ name: 'mcp-test-client', version: '1.0.0' }, options);
  await client.connect(new StreamableHTTPClientTransport(new URL(path, gateway.baseUrl), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  return client;
}

export const textOf = (result: unknown): string =>
  ((result as { content?: { type: string; text?: string }[] }).content ?? []).map((part) => part.text ?? '').join('');

