// Admin endpoints for MCP servers (/admin/api/mcp-servers): their configuration (secret values taken,
// never answered: only their names), their running status from the MCP gateway, their tools with an
// on/off switch each, a test call ("Try a tool") and the stderr of a stdio server.
import { GatewayError, invalidRequest } from '../core/errors.js';
import type { McpServerConfig, McpServerChange, NewMcpServer } from '../core/mcp-servers.js';
import { isPlainObject } from '../core/plain-object.js';
import type { AdminServices } from './services.js';
import type { AdminRoute } from './router.js';

/** A server as answered: its configuration and how it is doing. */
function describe(services: Pick<AdminServices, 'mcp'>, config: McpServerConfig) {
  const state = services.mcp.state(config.name);
  return {
    ...config,
    status: config.enabled ? state.status : 'disabled',
    lastError: state.lastError,
    toolCount: state.toolCount,
  };
}

/** A name → value map given in a body, for the OAuth probe only (create() checks it properly). */
function stringMap(value: unknown): Record<string, string> {
  if (!isPlainObject(value)) return {};
  return Object.fromEntries(Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

function objectBody(body: unknown): Record<string, unknown> {
  if (!isPlainObject(body)) throw invalidRequest('The body must be a JSON object');
  return body;
}

const CHANGEABLE = ['enabled', 'timeoutMs', 'disabledTools', 'args', 'env', 'headers', 'url', 'command', 'secretEnv', 'secretHeaders'] as const;

/** A server that cannot be reached, or a tool call that failed, is the server's failure: 502 with its words. */
function upstreamFailure(error: unknown): unknown {
  if (error instanceof GatewayError) return error;
  // The SDK's McpError (and the gateway's refusals built on it), known by name: importing the SDK here
  // would load it at start for every Gatehouse (mcp/on-demand.ts).
  if (error instanceof Error && error.name === 'McpError') {
    const status = (error as Error & { status?: number }).status;
    return new GatewayError(status === 404 ? 404 : status === 403 ? 403 : 502, status === 404 ? 'not_found_error' : 'gateway_error', error.message.replace(/^MCP error -?\d+: /, ''));
  }
  return new GatewayError(502, 'gateway_error', (error as Error).message);
}

export const mcpRoutes: AdminRoute[] = [
  {
    method: 'GET',
    path: '/mcp-servers',
    handle: async ({ services }) => ({ status: 200, body: { servers: (await services.mcpServers.list()).map((config) => describe(services, config)) } }),
  },
  {
    method: 'POST',
    path: '/mcp-servers',
    handle: async ({ services, body }) => {
      const input = objectBody(body);
      if ('oauth' in input) throw invalidRequest("'oauth' is found out by asking the server, not given", 'oauth');
      // A remote server is asked whether it wants OAuth sign-in (its 401 and metadata) before it is kept.
      const remote = typeof input.url === 'string' && input.transport !== 'stdio' && input.command === undefined;
      const oauth = remote && (await services.mcp.wantsOAuth(input.url as string, { ...stringMap(input.headers), ...stringMap(input.secretHeaders) }));
      const created = await services.mcpServers.create({ ...(input as unknown as NewMcpServer), oauth });
      return { status: 201, body: { server: describe(services, created) } };
    },
  },
  {
    method: 'GET',
    path: '/mcp-servers/:name',
    handle: async ({ services, params }) => ({ status: 200, body: { server: describe(services, await services.mcpServers.get(params.name)) } }),
  },
  {
    method: 'PATCH',
    path: '/mcp-servers/:name',
    handle: async ({ services, params, body }) => {
      const input = objectBody(body);
      const unknown = Object.keys(input).filter((field) => !(CHANGEABLE as readonly string[]).includes(field));
      if (unknown.length) throw invalidRequest(`'${unknown[0]}' cannot be changed; change any of ${CHANGEABLE.join(', ')}`, unknown[0]);
      const updated = await services.mcpServers.update(params.name, input as McpServerChange);
      return { status: 200, body: { server: describe(services, updated) } };
    },
  },
  {
    method: 'DELETE',
    path: '/mcp-servers/:name',
    handle: async ({ services, params }) => {
      await services.mcpServers.get(params.name);
      // The grant is revoked at its server where it offers revocation; a server that cannot be reached does
      // not keep the row: its tokens are forgotten with it, and the answer says they were not revoked.
      let revocation: string | null;
      try {
        revocation = await services.mcp.revokeSignIn(params.name);
      } catch (error) {
        revocation = `not revoked: ${(error as Error).message}`;
      }
      await services.mcpServers.remove(params.name);
      if (revocation && revocation !== 'nothing-to-revoke') return { status: 200, body: { removed: params.name, signIn: revocation } };
      return { status: 204, body: null };
    },
  },
  {
    method: 'GET',
    path: '/mcp-servers/:name/tools',
    handle: async ({ services, params }) => {
      await services.mcpServers.get(params.name);
      try {
        const tools = await services.mcp.tools(params.name);
        return { status: 200, body: { tools: tools.map((tool) => ({ name: tool.name, description: tool.description ?? null, inputSchema: tool.inputSchema, enabled: tool.enabled })) } };
      } catch (error) {
        throw upstreamFailure(error);
      }
    },
  },
  {
    method: 'POST',
    path: '/mcp-servers/:name/tools/:tool/call',
    handle: async ({ services, params, body }) => {
      await services.mcpServers.get(params.name);
      const input = body === undefined ? {} : objectBody(body);
      const args = input.arguments ?? {};
      if (!isPlainObject(args)) throw invalidRequest("'arguments' must be a JSON object", 'arguments');
      try {
        return { status: 200, body: await services.mcp.callTool(params.name, params.tool, args) };
      } catch (error) {
        throw upstreamFailure(error);
      }
    },
  },
  {
    method: 'GET',
    path: '/mcp-servers/:name/stderr',
    handle: async ({ services, params }) => {
      await services.mcpServers.get(params.name);
      return { status: 200, body: { lines: services.mcp.stderr(params.name) } };
    },
  },
];
