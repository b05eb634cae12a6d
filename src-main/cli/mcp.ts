// `gatehouse mcp add|list|tools|remove` (issue 25). Like `keys`, it writes through the server's repository
// (storage.ts), and a running server picks the change up within a second. Secret env values and
// headers come from stdin (one line each, in the order their flags were given) or a hidden prompt on
// a terminal, never from the command line; they are sealed with the data key's public half, so adding
// a server needs no master key. `mcp tools` asks the running server, or connects to the MCP server
// itself when none runs (then it needs the data key to open the server's secrets).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { packageVersion } from '../app.js';
import { runReportingErrors, UsageError, type CommandIOWithInput } from './command.js';
import { readAll, readHiddenLine } from './stdin.js';
import type { McpServerConfig, McpServerRepository, McpTransport } from '../core/mcp-servers.js';
import { STORAGE_OPTIONS, storagePlace, withStorage, type StorageFlags, type StoragePlace } from './storage.js';

export const MCP_USAGE = `Usage:
  gatehouse mcp add NAME --command CMD [--arg A]... [--env K=V]... [--secret-env K]... [--timeout-ms N]
  gatehouse mcp add NAME --url URL [--transport http|sse] [--header 'K: V']... [--secret-header K]... [--timeout-ms N]
      A stdio server (started when first needed) or a remote one (Streamable HTTP, or legacy SSE). The value
      of each --secret-env / --secret-header is read from stdin, one line each in the order given (a hidden
      prompt on a terminal), and sealed at rest: never give secrets as flags.
      A remote server that answers 401 with OAuth metadata is marked "sign-in needed".
  gatehouse mcp login NAME [--client-id ID [--client-secret]] [--callback-port N] [--wait-s N]
      Signs in to a server that wants OAuth: prints the address to open in a browser and waits for its
      answer on a loopback port of its own (127.0.0.1). Dynamic registration where the server offers it;
      else the client id you registered, its secret (if any) read from stdin or GATEHOUSE_MCP_CLIENT_SECRET.
  gatehouse mcp list [--json]
  gatehouse mcp tools NAME [--json]     (asks the running server; starts the MCP server itself if none runs)
  gatehouse mcp remove NAME             (revokes its OAuth grant at the server where it offers revocation)
  gatehouse keys mcp NAME --servers a,b | --all     (which MCP servers a key may use)
Every command takes --data-dir D, or --database-url for a team database. Tools connect to http://127.0.0.1:PORT/mcp (every server, names
prefixed <server>__<tool>) or /mcp/NAME, with a gateway or virtual key as Authorization: Bearer.`;

export async function runMcpCommand(args: string[], io: CommandIOWithInput): Promise<number> {
  const [subcommand, ...options] = args;
  return runReportingErrors(MCP_USAGE, io, async () => {
    switch (subcommand) {
      case 'add':
        return await addServer(options, io);
      case 'list':
        return await listServers(options, io);
      case 'tools':
        return await listTools(options, io);
      case 'remove':
        return await removeServer(options, io);
      case 'login':
        return await login(options, io);
      case 'help':
      case '--help':
      case '-h':
        io.stdout.write(`${MCP_USAGE}\n`);
        return 0;
      default:
        throw new UsageError(subcommand ? `Unknown command 'mcp ${subcommand}'.` : "'mcp' needs a command.");
    }
  });
}

function oneName(positionals: string[], command: string): string {
  if (positionals.length !== 1) throw new UsageError(`mcp ${command} takes one server name.`);
  return positionals[0];
}

function pairs(values: string[] | undefined, separator: string, flag: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const value of values ?? []) {
    const at = value.indexOf(separator);
    if (at <= 0) throw new UsageError(`--${flag} '${value}' must be NAME${separator.trim()}VALUE.`);
    result[value.slice(0, at).trim()] = value.slice(at + separator.length).trim();
  }
  return result;
}

/** One secret value per name, in order: a hidden prompt each on a terminal, else one line each from stdin. */
async function readSecretValues(names: string[], io: CommandIOWithInput): Promise<Record<string, string>> {
  if (names.length === 0) return {};
  const values: Record<string, string> = {};
  if (io.stdin.isTTY && io.stdin.setRawMode) {
    for (const name of names) values[name] = await readHiddenLine(io, `${name}: `);
  } else {
    const lines = (await readAll(io.stdin)).split(/\r?\n/);
    names.forEach((name, index) => (values[name] = (lines[index] ?? '').trim()));
  }
  const missing = names.filter((name) => !values[name]);
  if (missing.length) throw new Error(`No value on stdin for ${missing.join(', ')}: pipe one line per secret, in the order of the flags.`);
  return values;
}

async function addServer(args: string[], io: CommandIOWithInput): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      ...STORAGE_OPTIONS,
      command: { type: 'string' },
      arg: { type: 'string', multiple: true },
      env: { type: 'string', multiple: true },
      'secret-env': { type: 'string', multiple: true },
      url: { type: 'string' },
      transport: { type: 'string' },
      header: { type: 'string', multiple: true },
      'secret-header': { type: 'string', multiple: true },
      'timeout-ms': { type: 'string' },
    },
    strict: true,
    allowPositionals: true,
  });
  const name = oneName(positionals, 'add');
  if ((values.command === undefined) === (values.url === undefined)) throw new UsageError('mcp add takes --command (a stdio server) or --url (a remote one).');
  if (values.command !== undefined && (values.header || values['secret-header'] || values.transport)) throw new UsageError('--header, --secret-header and --transport go with --url.');
  if (values.url !== undefined && (values.arg || values.env || values['secret-env'])) throw new UsageError('--arg, --env and --secret-env go with --command.');
  for (const given of [...(values['secret-env'] ?? []), ...(values['secret-header'] ?? [])]) {
    if (/[=:]/.test(given)) throw new UsageError(`--secret-env and --secret-header take a name only ('${given.split(/[=:]/)[0]}'): a secret on the command line stays in shell history, so its value is read from stdin.`);
  }
  const transport = (values.url === undefined ? 'stdio' : (values.transport ?? 'http')) as McpTransport;
  const timeoutMs = values['timeout-ms'] === undefined ? undefined : Number(values['timeout-ms']);
  const secretEnv = await readSecretValues(values['secret-env'] ?? [], io);
  const secretHeaders = await readSecretValues(values['secret-header'] ?? [], io);
  const oauth = values.url !== undefined && (await askWantsOAuth(values.url, { ...(values.header ? pairs(values.header, ':', 'header') : {}), ...secretHeaders }, io));
  return withMcpStore(values, io, true, async (store) => {
    const created = await store!.create({
      name,
      transport,
      command: values.command,
      args: values.arg,
      env: values.env ? pairs(values.env, '=', 'env') : undefined,
      secretEnv,
      url: values.url,
      headers: values.header ? pairs(values.header, ':', 'header') : undefined,
      secretHeaders,
      timeoutMs,
      oauth,
    });
    io.stderr.write(`Added MCP server '${created.name}' (${created.transport}). Tools reach it at /mcp/${created.name}, or as ${created.name}__<tool> on /mcp.\n`);
    if (created.oauth) io.stderr.write(`It wants OAuth sign-in: run 'gatehouse mcp login ${created.name}'. Until then its tools answer that sign-in is needed.\n`);
    return 0;
  });
}

/**
 * The MCP server store of the command's storage, with the key store opened for writing only (sealing needs
 * only the public key). Without `create`, a data dir that holds no keys yet gives undefined rather than a new database.
 */
async function withMcpStore<T>(flags: StorageFlags, io: CommandIOWithInput, create: boolean, use: (store: McpServerRepository | undefined) => Promise<T>): Promise<T> {
  return withStorage(storagePlace(flags, io.env), io.env, create, async (storage) => use(await storage?.mcpServers({ create })));
}

async function withServers<T>(flags: StorageFlags, io: CommandIOWithInput, use: (servers: McpServerConfig[], store: McpServerRepository | undefined) => Promise<T>): Promise<T> {
  return withMcpStore(flags, io, false, async (store) => use((await store?.list()) ?? [], store));
}

async function listServers(args: string[], io: CommandIOWithInput): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { ...STORAGE_OPTIONS, json: { type: 'boolean', default: false } }, strict: true, allowPositionals: true });
  if (positionals.length) throw new UsageError('mcp list takes no names.');
  return withServers(values, io, async (servers) => {
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ servers }, null, 2)}\n`);
      return 0;
    }
    if (servers.length === 0) {
      io.stderr.write('No MCP servers. Add one with: gatehouse mcp add NAME --command CMD | --url URL\n');
      return 0;
    }
    for (const server of servers) {
      const target = server.transport === 'stdio' ? [server.command, ...server.args].join(' ') : server.url;
      const secrets = [...server.secretEnv, ...server.secretHeaders];
      const signIn = server.oauth ? `\t${server.oauth.state}${server.oauth.expiresAt ? ` (token until ${server.oauth.expiresAt})` : ''}` : '';
      io.stdout.write(
        `${server.name}\t${server.transport}\t${server.enabled ? 'on' : 'off'}\t${target}${signIn}${secrets.length ? `\tsecrets: ${secrets.join(', ')}` : ''}${server.disabledTools.length ? `\toff: ${server.disabledTools.join(', ')}` : ''}\n`,
      );
    }
    return 0;
  });
}

async function removeServer(args: string[], io: CommandIOWithInput): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { ...STORAGE_OPTIONS }, strict: true, allowPositionals: true });
  const name = oneName(positionals, 'remove');
  await revokeBeforeRemoval(values, name, io);
  return withMcpStore(values, io, false, async (store) => {
    if (!store) throw new Error(`No MCP server named '${name}'`);
    await store.remove(name);
    io.stderr.write(`Removed MCP server '${name}'. A running server stops it within a second.\n`);
    return 0;
  });
}

interface ToolLine {
  name: string;
  description?: string | null;
  enabled?: boolean;
}

async function listTools(args: string[], io: CommandIOWithInput): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { ...STORAGE_OPTIONS, json: { type: 'boolean', default: false } }, strict: true, allowPositionals: true });
  const name = oneName(positionals, 'tools');
  const place = storagePlace(values, io.env);
  const tools = (await toolsFromRunningServer(place, name, io)) ?? (await toolsDirectly(place, name, io));
  if (values.json) io.stdout.write(`${JSON.stringify({ tools }, null, 2)}\n`);
  else for (const tool of tools) io.stdout.write(`${tool.name}${tool.enabled === false ? ' (off)' : ''}\t${(tool.description ?? '').split('\n')[0]}\n`);
  return 0;
}

/** The tools as the running server lists them (its admin API); undefined when no server answers. */
async function toolsFromRunningServer(place: StoragePlace, name: string, io: CommandIOWithInput): Promise<ToolLine[] | undefined> {
  const tokenFile = join(place.dataDir, 'admin-token');
  const token = io.env.GATEHOUSE_ADMIN_TOKEN ?? (existsSync(tokenFile) ? readFileSync(tokenFile, 'utf8').trim() : undefined);
  if (!token) return undefined;
  // Where `gatehouse serve` listens without flags: the environment, else Settings.
  const saved = await withStorage(place, io.env, false, async (storage) => storage && (await (await storage.settings()).get()));
  if (!saved) return undefined;
  const host = io.env.GATEHOUSE_HOST ?? saved.host;
  const port = io.env.GATEHOUSE_PORT !== undefined ? Number(io.env.GATEHOUSE_PORT) : saved.port;
  const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
  let response: Response;
  try {
    response = await fetch(`http://${urlHost}:${port}/admin/api/mcp-servers/${encodeURIComponent(name)}/tools`, { headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(130_000) });
  } catch {
    return undefined;
  }
  const body = (await response.json().catch(() => ({}))) as { tools?: ToolLine[]; error?: { message?: string } };
  if (!response.ok) throw new Error(body.error?.message ?? `The running server answered ${response.status}`);
  return body.tools ?? [];
}

/** No server runs: connect to the MCP server here, with its secrets opened by the data key. */
async function toolsDirectly(place: StoragePlace, name: string, io: CommandIOWithInput): Promise<ToolLine[]> {
  return withStorage(place, io.env, false, async (storage) => {
    const config = (await (await storage?.mcpServers({ unlock: true }))?.connections())?.find((server) => server.name === name);
    if (!config) throw new Error(`No MCP server named '${name}'`);
    const { McpUpstream } = await import('../mcp/upstream.js');
    const upstream = new McpUpstream(config, { onServerRequest: async (_server, request) => Promise.reject(new Error(`${request.method} is not answered by the command line`)), onServerNotification: () => undefined }, packageVersion());
    try {
      const off = new Set(config.disabledTools);
      return (await upstream.tools()).map((tool) => ({ name: tool.name, description: tool.description ?? null, enabled: !off.has(tool.name) }));
    } finally {
      await upstream.stop();
    }
  });
}

/** Asks a remote server whether it wants OAuth (mcp/oauth/detect.ts); loads the OAuth client only here. */
async function askWantsOAuth(url: string, headers: Record<string, string>, io: CommandIOWithInput): Promise<boolean> {
  const [{ wantsOAuth }, { oauthTimeoutMs }] = await Promise.all([import('../mcp/oauth/detect.js'), import('../mcp/oauth/http.js')]);
  return wantsOAuth(url, headers, oauthTimeoutMs(io.env));
}

/**
 * A signed-in server's grant is revoked at its authorization server before the row goes. That needs the data
 * key to open the grant; without it (or with the server away) the row is removed all the same and the
 * output says the grant was not revoked.
 */
async function revokeBeforeRemoval(flags: StorageFlags, name: string, io: CommandIOWithInput): Promise<void> {
  const config = await withServers(flags, io, async (servers) => servers.find((server) => server.name === name));
  if (!config?.oauth || config.oauth.state !== 'signed-in') return;
  try {
    const grant = await withStorage(storagePlace(flags, io.env), io.env, false, async (storage) =>
      ((await (await storage?.mcpServers({ unlock: true }))?.connections()) ?? []).find((server) => server.name === name)?.oauthGrant ?? null,
    );
    const [{ revokeGrant }, { oauthTimeoutMs }] = await Promise.all([import('../mcp/oauth/revoke.js'), import('../mcp/oauth/http.js')]);
    const revocation = await revokeGrant(grant, oauthTimeoutMs(io.env));
    io.stderr.write(revocation === 'revoked' ? `Revoked the OAuth grant of '${name}' at its server.\n` : revocation === 'not-offered' ? `The server of '${name}' offers no revocation; its tokens are forgotten here.\n` : '');
  } catch (error) {
    io.stderr.write(`The OAuth grant of '${name}' was not revoked at its server (${(error as Error).message}); its tokens are forgotten here.\n`);
  }
}

async function login(args: string[], io: CommandIOWithInput): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { ...STORAGE_OPTIONS, 'client-id': { type: 'string' }, 'client-secret': { type: 'boolean', default: false }, 'callback-port': { type: 'string' }, 'wait-s': { type: 'string' } },
    strict: true,
    allowPositionals: true,
  });
  const name = oneName(positionals, 'login');
  if (values['client-secret'] && !values['client-id']) throw new UsageError('--client-secret goes with --client-id.');
  const port = values['callback-port'] === undefined ? 0 : Number(values['callback-port']);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new UsageError('--callback-port takes a port number.');
  const waitS = values['wait-s'] === undefined ? 300 : Number(values['wait-s']);
  if (!Number.isFinite(waitS) || waitS <= 0 || waitS > 3_600) throw new UsageError('--wait-s takes seconds, up to 3600.');
  const config = await withServers(values, io, async (servers) => servers.find((server) => server.name === name));
  if (!config) throw new Error(`No MCP server named '${name}'`);
  if (config.transport === 'stdio' || !config.url) throw new Error(`MCP server '${name}' is a stdio server; only remote servers sign in.`);
  let client: { client_id: string; client_secret?: string } | undefined;
  if (values['client-id']) {
    const secret = values['client-secret'] ? (io.env.GATEHOUSE_MCP_CLIENT_SECRET ?? (await readSecretValues(['client secret'], io))['client secret']) : undefined;
    client = { client_id: values['client-id'], ...(secret ? { client_secret: secret } : {}) };
  }
  const [{ beginSignIn }, { LoopbackCallback }, { oauthTimeoutMs }] = await Promise.all([
    import('../mcp/oauth/sign-in.js'),
    import('../mcp/oauth/loopback-callback.js'),
    import('../mcp/oauth/http.js'),
  ]);
  const callback = await LoopbackCallback.open(port);
  try {
    const signIn = await beginSignIn({ server: name, serverUrl: config.url, redirectUrl: callback.redirectUrl, client, timeoutMs: oauthTimeoutMs(io.env) });
    io.stderr.write(`Open this address in a browser to sign in to '${name}' (waiting up to ${waitS} s for its answer on ${callback.redirectUrl}):\n`);
    io.stdout.write(`${signIn.authorizationUrl.href}\n`);
    const grant = await callback.wait(signIn.finish, waitS * 1000, (reason) => io.stderr.write(`${reason}\n`));
    await withMcpStore(values, io, false, async (store) => store!.saveOAuth(name, { state: 'signed-in', grant }));
    io.stderr.write(`Signed in to MCP server '${name}'. A running Gatehouse uses the sign-in within a second.\n`);
    return 0;
  } finally {
    await callback.close();
  }
}
