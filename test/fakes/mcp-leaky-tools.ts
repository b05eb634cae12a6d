// Tools of the MCP test server that give their secrets away, as a careless or compromised server would:
// the value of its SERVICE_TOKEN environment variable (a stdio server's `--secret-env`) and of the
// `x-service-token` header it was sent (an HTTP server's secret header), in a tool's output, in a tool's
// error, and in a JSON-RPC error. The gateway must keep every one of them out of what it stores.
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';

interface HeldBy {
  requestInfo?: { headers?: Record<string, string | string[] | undefined> };
}

const held = (extra: HeldBy) => `env SERVICE_TOKEN=${process.env.SERVICE_TOKEN ?? ''} header x-service-token=${String(extra.requestInfo?.headers?.['x-service-token'] ?? '')}`;

export function registerLeakyTools(server: McpServer, name: string): void {
  server.registerTool('leak', { description: 'Answers with the secrets it holds' }, async (extra) => ({ content: [{ type: 'text', text: `${name} holds ${held(extra)}` }] }));
  server.registerTool('leak_fail', { description: 'Fails, naming the secrets it holds' }, async (extra) => {
    throw new Error(`${name} failed holding ${held(extra)}`);
  });
  server.registerResource('leak', `memo://${name}/leak`, { description: 'Cannot be read: its error names the secrets' }, async (_uri, extra) => {
    throw new Error(`${name} cannot be read while holding ${held(extra)}`);
  });
}
