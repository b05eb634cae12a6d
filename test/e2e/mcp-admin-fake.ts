// An in-test stand-in for the MCP part of the admin API (/work/mcp-admin-api.md → docs/contract-additions.md),
// served through Playwright's route interception while the rest of the UI talks to a real `gatehouse
// serve`. It answers exactly the documented shapes: servers without secret values (only their names),
// 201 / 204 / 400 / 404 / 409 / 502 as the other admin routes answer, errors as {error:{message,type,param}},
// and `mcpServers` on virtual and gateway keys (null = every server). Once the backend is merged, a spec
// drops `install` and seeds through the real API instead; the assertions stay as they are.
import type { Page, Route } from '@playwright/test';

export interface FakeTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; properties: Record<string, unknown>; required?: string[] };
  /** The CallToolResult the tool answers with. */
  run(args: Record<string, unknown>): Record<string, unknown>;
}

interface StoredServer {
  name: string;
  transport: 'stdio' | 'http' | 'sse';
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
  enabled: boolean;
  timeoutMs: number;
  disabledTools: string[];
  status: 'stopped' | 'starting' | 'running' | 'restarting' | 'failed' | 'disabled';
  lastError: string | null;
  toolCount: number | null;
  createdAt: string;
  /** Sealed values: kept here only to assert they were sent; never answered. */
  secretEnv: Record<string, string>;
  secretHeaders: Record<string, string>;
}

/** What the UI sent, for assertions. */
export interface RecordedRequest {
  method: string;
  path: string;
  body: unknown;
}

/** Tools like @modelcontextprotocol/server-everything's: an echo, a sum, and one that reports an error. */
export const DEFAULT_TOOLS: FakeTool[] = [
  {
    name: 'echo',
    description: 'Echoes back the input',
    inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'Message to echo' } }, required: ['message'] },
    run: (args) => ({ content: [{ type: 'text', text: `Echo: ${String(args.message)}` }] }),
  },
  {
    name: 'add',
    description: 'Adds two numbers',
    inputSchema: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
    run: (args) => ({ content: [{ type: 'text', text: `The sum of ${String(args.a)} and ${String(args.b)} is ${Number(args.a) + Number(args.b)}.` }] }),
  },
  {
    name: 'read_secret_file',
    description: 'Reads a file the server is not allowed to read',
    inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
    run: (args) => ({ content: [{ type: 'text', text: `Access denied: ${String(args.path ?? '')} is outside the allowed directories` }], isError: true }),
  },
];

/** A stdio command that does not exist: the server fails to start, as a real one would. */
export const MISSING_COMMAND = 'no-such-mcp-server';

const NAME_RULE = /^[a-z0-9-]{1,32}$/;

function answer(route: Route, status: number, body?: unknown): Promise<void> {
  return route.fulfill({ status, contentType: 'application/json', body: body === undefined ? '' : JSON.stringify(body) });
}

function error(route: Route, status: number, message: string, param: string | null = null, type = status === 404 ? 'not_found_error' : 'invalid_request_error'): Promise<void> {
  return answer(route, status, { error: { message, type, param, code: null } });
}

export class McpAdminFake {
  readonly servers = new Map<string, StoredServer>();
  readonly requests: RecordedRequest[] = [];
  readonly calls: Array<{ server: string; tool: string; arguments: unknown }> = [];
  /** Key id → mcpServers as set through PATCH (absent = null, every server). */
  readonly keyAccess = new Map<string, string[] | null>();

  constructor(private readonly tools: FakeTool[] = DEFAULT_TOOLS) {}

  /** A server as the admin API answers it: secret names, never their values. */
  view(server: StoredServer): Record<string, unknown> {
    const { secretEnv, secretHeaders, ...rest } = server;
    return server.transport === 'stdio' ? { ...rest, secretEnv: Object.keys(secretEnv) } : { ...rest, secretHeaders: Object.keys(secretHeaders) };
  }

  /** Seeds a server directly, as if added earlier through the API or the CLI. */
  seed(input: Partial<StoredServer> & { name: string }): void {
    this.servers.set(input.name, {
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-everything'],
      env: {},
      enabled: true,
      timeoutMs: 60_000,
      disabledTools: [],
      status: 'stopped',
      lastError: null,
      toolCount: null,
      createdAt: new Date().toISOString(),
      secretEnv: {},
      secretHeaders: {},
      ...input,
    });
  }

  private startsOrFails(server: StoredServer): boolean {
    if (server.transport === 'stdio' && server.command === MISSING_COMMAND) {
      server.status = 'failed';
      server.lastError = `spawn ${MISSING_COMMAND} ENOENT`;
      return false;
    }
    server.status = 'running';
    server.lastError = null;
    server.toolCount = this.tools.length;
    return true;
  }

  async install(page: Page): Promise<void> {
    await page.route(/\/admin\/api\/mcp-servers(?:\/[^?]*)?(?:\?.*)?$/, (route) => this.serveMcp(route));
    await page.route(/\/admin\/api\/(virtual-keys|gateway-keys)(?:\/[^/?]+)?(?:\?.*)?$/, (route) => this.serveKeys(route));
  }

  private async serveMcp(route: Route): Promise<void> {
    const request = route.request();
    if (!/^Bearer \S+/.test(request.headers().authorization ?? '')) return error(route, 401, 'The admin token is missing', null, 'authentication_error');
    const path = new URL(request.url()).pathname.replace(/^\/admin\/api\/mcp-servers/, '');
    const method = request.method();
    let body: Record<string, unknown> = {};
    if (method === 'POST' || method === 'PATCH') {
      try {
        body = (request.postDataJSON() ?? {}) as Record<string, unknown>;
      } catch {
        return error(route, 400, 'The body is not JSON');
      }
    }
    this.requests.push({ method, path, body: method === 'POST' || method === 'PATCH' ? body : undefined });
    const [, rawName, sub, rawTool, action] = path.split('/');
    const name = rawName ? decodeURIComponent(rawName) : undefined;

    if (!name) {
      if (method === 'GET') return answer(route, 200, { servers: [...this.servers.values()].map((server) => this.view(server)) });
      if (method === 'POST') return this.create(route, body);
      return error(route, 405, `${method} is not allowed here`);
    }
    const server = this.servers.get(name);
    if (!server) return error(route, 404, `No MCP server named ${name}`, 'name');

    if (!sub) {
      if (method === 'PATCH') return this.patch(route, server, body);
      if (method === 'DELETE') {
        this.servers.delete(name);
        return route.fulfill({ status: 204 });
      }
      return error(route, 405, `${method} is not allowed here`);
    }
    if (sub === 'tools' && !rawTool && method === 'GET') {
      if (!server.enabled) return error(route, 409, `${name} is switched off`);
      if (!this.startsOrFails(server)) return error(route, 502, `${name} could not start: ${server.lastError}`, null, 'api_error');
      return answer(route, 200, { tools: this.tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema, enabled: !server.disabledTools.includes(tool.name) })) });
    }
    if (sub === 'tools' && rawTool && action === 'call' && method === 'POST') {
      const toolName = decodeURIComponent(rawTool);
      const tool = this.tools.find((item) => item.name === toolName);
      if (!tool) return error(route, 404, `${name} has no tool named ${toolName}`, 'tool');
      if (server.disabledTools.includes(toolName)) return error(route, 403, `${toolName} of ${name} is switched off`, 'tool', 'permission_error');
      const args = body.arguments ?? {};
      if (typeof args !== 'object' || args === null || Array.isArray(args)) return error(route, 400, 'arguments must be an object', 'arguments');
      if (!this.startsOrFails(server)) return error(route, 502, `${name} could not start: ${server.lastError}`, null, 'api_error');
      this.calls.push({ server: name, tool: toolName, arguments: args });
      return answer(route, 200, { result: tool.run(args as Record<string, unknown>), durationMs: 42 });
    }
    if (sub === 'stderr' && method === 'GET') {
      if (server.transport !== 'stdio') return answer(route, 200, { lines: [] });
      return answer(route, 200, { lines: server.status === 'stopped' ? [] : [`${server.args?.at(-1) ?? server.command}: Secure MCP Server running on stdio`] });
    }
    return error(route, 404, `No such route: ${method} /admin/api/mcp-servers${path}`);
  }

  private create(route: Route, body: Record<string, unknown>): Promise<void> {
    const name = body.name;
    if (typeof name !== 'string' || !NAME_RULE.test(name) || name.includes('__')) return error(route, 400, 'name: lower-case letters, digits and "-", at most 32 characters, no "__"', 'name');
    if (this.servers.has(name)) return error(route, 409, `An MCP server named ${name} exists`, 'name');
    const transport = body.transport;
    if (transport !== 'stdio' && transport !== 'http' && transport !== 'sse') return error(route, 400, 'transport must be stdio, http or sse', 'transport');
    if (transport === 'stdio' && (typeof body.command !== 'string' || !body.command)) return error(route, 400, 'command is required for a stdio server', 'command');
    if (transport !== 'stdio' && (typeof body.url !== 'string' || !/^https?:\/\//.test(body.url))) return error(route, 400, 'url must be an http(s) URL', 'url');
    this.seed({
      name,
      transport,
      command: transport === 'stdio' ? (body.command as string) : undefined,
      args: transport === 'stdio' ? ((body.args as string[] | undefined) ?? []) : undefined,
      env: transport === 'stdio' ? ((body.env as Record<string, string> | undefined) ?? {}) : undefined,
      url: transport === 'stdio' ? undefined : (body.url as string),
      headers: transport === 'stdio' ? undefined : ((body.headers as Record<string, string> | undefined) ?? {}),
      enabled: body.enabled === undefined ? true : Boolean(body.enabled),
      timeoutMs: typeof body.timeoutMs === 'number' ? body.timeoutMs : 60_000,
      secretEnv: (body.secretEnv as Record<string, string> | undefined) ?? {},
      secretHeaders: (body.secretHeaders as Record<string, string> | undefined) ?? {},
    });
    return answer(route, 201, { server: this.view(this.servers.get(name)!) });
  }

  private patch(route: Route, server: StoredServer, body: Record<string, unknown>): Promise<void> {
    if ('timeoutMs' in body && (typeof body.timeoutMs !== 'number' || body.timeoutMs <= 0)) return error(route, 400, 'timeoutMs must be a positive number', 'timeoutMs');
    if ('disabledTools' in body && (!Array.isArray(body.disabledTools) || body.disabledTools.some((tool) => typeof tool !== 'string'))) return error(route, 400, 'disabledTools must be a list of tool names', 'disabledTools');
    for (const field of ['enabled', 'timeoutMs', 'disabledTools', 'args', 'env', 'headers', 'url', 'command'] as const) {
      if (field in body) (server as unknown as Record<string, unknown>)[field] = body[field];
    }
    if (body.secretEnv) Object.assign(server.secretEnv, body.secretEnv);
    if (body.secretHeaders) Object.assign(server.secretHeaders, body.secretHeaders);
    if ('enabled' in body) server.status = server.enabled ? 'stopped' : 'disabled';
    return answer(route, 200, { server: this.view(server) });
  }

  /** Key lists and key PATCHes go to the real server; `mcpServers` is answered and kept here. */
  private async serveKeys(route: Route): Promise<void> {
    const request = route.request();
    const method = request.method();
    const [, , , kind, rawId] = new URL(request.url()).pathname.split('/');
    if (method === 'GET' && !rawId) {
      const response = await route.fetch();
      const list = (await response.json()) as { items: Array<{ id: string }> };
      return route.fulfill({ response, json: { ...list, items: list.items.map((key) => ({ ...key, mcpServers: this.keyAccess.get(key.id) ?? null })) } });
    }
    const body = method === 'PATCH' ? ((request.postDataJSON() ?? {}) as Record<string, unknown>) : {};
    if (method !== 'PATCH' || !('mcpServers' in body)) return route.fallback();
    this.requests.push({ method, path: `/${kind}/${rawId}`, body });
    const access = body.mcpServers;
    if (access !== null && (!Array.isArray(access) || access.some((name) => typeof name !== 'string'))) return error(route, 400, 'mcpServers must be a list of server names or null', 'mcpServers');
    const id = decodeURIComponent(rawId);
    const listed = await route.fetch({ url: request.url().replace(/\/[^/]+$/, ''), method: 'GET', postData: undefined });
    const key = ((await listed.json()) as { items: Array<{ id: string }> }).items.find((item) => item.id === id);
    if (!key) return error(route, 404, `No key with id ${id}`, 'id');
    this.keyAccess.set(id, access as string[] | null);
    return answer(route, 200, { ...key, mcpServers: access });
  }
}
