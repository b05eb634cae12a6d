// `gatehouse keys ...` and `gatehouse gateway-keys ...` (CONTRACT §1). Secrets come from stdin (a
// hidden prompt on a terminal), never from flags, which would land in shell history. The command
// writes through the server's key repository (storage.ts); a server on the same data dir picks the change
// up within a second (KeyStore.watchForExternalChanges), a team instance through its change feed. On a data
// dir it never decrypts anything, so it needs no master key once the store exists, and works beside a
// desktop app that keeps its key in a keychain.
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { mainSecretField } from '../core/credential-values.js';
import { credentialParameter } from '../core/credentials.js';
import type { GatewayKeySummary, KeyRepository, VirtualKeySummary } from '../core/key-repository.js';
import type { McpAccessChange, McpAccessSummary, McpDefault } from '../core/mcp-access.js';
import { CREDENTIAL_FIELD_HEADERS, getProvider } from '../providers/registry.js';
import type { ProviderAdapter } from '../providers/types.js';
import { describeHostCheck } from './host-check.js';
import { runReportingErrors, UsageError, type CommandIOWithInput as KeysCommandIO } from './command.js';
import { readAll, readHiddenLine } from './stdin.js';
import { STORAGE_OPTIONS, storagePlace, withStorage, type CliStorage, type StorageFlags } from './storage.js';

/** Secret credential flags exist only to explain why they are refused. */
/** Spec §5.3 parameter names of the cloud credential headers (`cloud_a_resource_name` …) → the field each fills. */
const CLOUD_PARAMETERS: Readonly<Record<string, string>> = Object.fromEntries(
  [...CREDENTIAL_FIELD_HEADERS].map(([header, field]) => [credentialParameter(header), field]).sort(([a], [b]) => a.localeCompare(b)),
);

const SECRET_FLAGS = new Set(['cloud-c-secret-access-key', 'cloud-c-session-token', 'secret', 'token', 'api-key']);

/** The usage of `keys` and `gateway-keys`, the settings of a key (limits, models) included: main.ts prints it for those too. */
export const KEYS_USAGE = `Usage:
  gatehouse keys add --name N --provider SLUG [--custom-host URL] [--cloud-a-resource-name V ...] [--no-secret] [--allow-routing] [--chat-only]
      Reads the provider secret from stdin (hidden prompt on a terminal; one line per secret field
      when piped, e.g. Bedrock: secret access key, then an optional session token) and prints the
      new virtual key once. Cloud flags: ${Object.keys(CLOUD_PARAMETERS)
        .filter((name) => !SECRET_FLAGS.has(flagOf(name)))
        .map((name) => `--${flagOf(name)}`)
        .join(', ')}
      Vertex AI: --service-account-key FILE (its key file) makes and renews access tokens; no token is read then.
      --allow-routing lets routes serve other virtual keys' calls with this key's credentials (see keys routing).
      --chat-only: the server speaks Chat Completions but not Responses (see keys chat-only).
      Names are unique among active keys of both kinds, whatever their case.
      With --custom-host, the host is tried with a model list and the answer printed (a warning, never a refusal).
  gatehouse keys list [--all] [--json]
  gatehouse keys rotate ID            (the new secret from stdin, as for add)
  gatehouse keys host NAME URL        (moves a virtual key to another host, by name or id; the key string
      stays the same, and its secret is read again from stdin as for add: a secret never follows a key to a new host)
  gatehouse keys chat-only NAME [--on | --off] [--json]
      Whether the key's server speaks Chat Completions only: Responses calls (/v1/responses, Codex) are then
      translated to Chat. Learnt by itself when the server answers 404 there. No flag shows it.
  gatehouse keys revoke ID            (a virtual key vk_..., or a gateway key gk_...)
  gatehouse keys routing NAME [--allow | --deny] [--json]
      Whether routes may serve other virtual keys' calls with this virtual key's credentials (by name or
      id). Off for a new key: gateway keys and the key itself always reach it through routes. No flag shows it.
  gatehouse keys limits NAME [--rpm N] [--tpm N] [--daily-usd X] [--monthly-usd X] [--clear] [--json]
      Limits of a virtual or gateway key, by name (or id): requests and tokens per minute, USD per
      local day and month. Given flags change those limits ('none' removes one); no flags shows them.
  gatehouse keys models NAME [--allow MODEL,GLOB,route:NAME,... | --all] [--json]
      Which models a virtual or gateway key may call (by name or id); --all lets it call every model
      again. Others get a 403 naming the model. No flag shows the list.
  gatehouse keys mcp NAME [--servers a,b | --all] [--tools server:tool,... | --all-tools] [--default allow|deny|global] [--json]
      Which MCP servers and tools a virtual or gateway key (by name or id) may see and call through /mcp;
      --all lets it use every server; --tools limits the named servers to those tools (others keep all of
      theirs); --default says what a key without --servers gets (global: the Settings' default, which is
      every server unless switched to none). No flag shows it.
  gatehouse gateway-keys add --name N | gateway-keys list [--all] [--json] | gateway-keys revoke ID
Every command takes --data-dir D (default: GATEHOUSE_DATA_DIR, else the desktop app's folder).
Team mode: --database-url postgres://… (else GATEHOUSE_DATABASE_URL) and GATEHOUSE_MASTER_KEY, as the team's instances run with.`;

function flagOf(parameter: string): string {
  return parameter.replace(/_/g, '-');
}

/** `keys …` and `gateway-keys …`, but for the settings of a key that have files of their own (main.ts sends `keys limits` and `keys models` there). */
export async function runKeysCommand(args: string[], io: KeysCommandIO): Promise<number> {
  const [first, ...rest] = args;
  const group = first === 'gateway-keys' ? 'gateway-keys' : 'keys';
  const commandArgs = first === 'keys' || first === 'gateway-keys' ? rest : args;
  const [subcommand, ...options] = commandArgs;
  return runReportingErrors(KEYS_USAGE, io, async () => {
    switch (`${group} ${subcommand ?? ''}`) {
      case 'keys add':
        return await addVirtualKey(options, io);
      case 'keys list':
        return await listKeys(options, io, 'virtual');
      case 'keys rotate':
        return await rotateVirtualKey(options, io);
      case 'keys routing':
        return await setRouting(options, io);
      case 'keys host':
        return await changeHost(options, io);
      case 'keys chat-only':
        return await setChatOnly(options, io);
      case 'keys mcp':
      case 'gateway-keys mcp':
        return await setMcpServers(options, io);
      case 'keys revoke':
      case 'gateway-keys revoke':
        return await revokeKey(options, io);
      case 'gateway-keys add':
        return await addGatewayKey(options, io);
      case 'gateway-keys list':
        return await listKeys(options, io, 'gateway');
      case 'keys help':
      case 'keys --help':
      case 'gateway-keys help':
      case 'gateway-keys --help':
        io.stdout.write(`${KEYS_USAGE}\n`);
        return 0;
      default:
        throw new UsageError(subcommand ? `Unknown command '${group} ${subcommand}'.` : `'${group}' needs a command.`);
    }
  });
}

const commonOptions = STORAGE_OPTIONS;

/**
 * The key store of the command's storage, closed afterwards. With `create` a data dir without keys gets
 * its data key (commands that add keys); without, such a data dir gives undefined rather than a database
 * and a key file made as a side effect of looking.
 */
async function withKeys<T>(flags: StorageFlags, io: KeysCommandIO, create: boolean, use: (store: KeyRepository | undefined, storage: CliStorage | undefined) => Promise<T>): Promise<T> {
  return withStorage(storagePlace(flags, io.env), io.env, create, async (storage) => use(await storage?.keys({ create }), storage));
}

/** For commands that add keys: the store is always there. */
async function withKeyStore<T>(flags: StorageFlags, io: KeysCommandIO, use: (store: KeyRepository, storage: CliStorage) => Promise<T>): Promise<T> {
  return withKeys(flags, io, true, (store, storage) => {
    if (!store || !storage) throw new Error('The key store could not be opened');
    return use(store, storage);
  });
}

async function warnIfUnprotected(storage: CliStorage, io: KeysCommandIO): Promise<void> {
  const warning = await storage.protectionWarning();
  if (warning) io.stderr.write(`Warning: ${warning}\n`);
}

async function addVirtualKey(args: string[], io: KeysCommandIO): Promise<number> {
  const cloudOptions = Object.fromEntries(Object.keys(CLOUD_PARAMETERS).map((name) => [flagOf(name), { type: 'string' } as const]));
  const secretOptions = Object.fromEntries([...SECRET_FLAGS].map((name) => [name, { type: 'string' } as const]));
  const { values } = parseArgs({
    args,
    options: {
      ...commonOptions,
      ...cloudOptions,
      ...secretOptions,
      name: { type: 'string' },
      provider: { type: 'string' },
      'custom-host': { type: 'string' },
      'service-account-key': { type: 'string' },
      'no-secret': { type: 'boolean', default: false },
      'allow-routing': { type: 'boolean', default: false },
      'chat-only': { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  const options = values as Record<string, string | boolean | undefined>;
  for (const flag of SECRET_FLAGS) {
    if (options[flag] !== undefined) {
      throw new UsageError(`--${flag} is not accepted: a secret on the command line stays in shell history. Pipe it to stdin instead.`);
    }
  }
  if (typeof values.name !== 'string') throw new UsageError('keys add needs --name.');
  if (typeof values.provider !== 'string') throw new UsageError('keys add needs --provider (for example openai or anthropic).');

  const provider = getProvider(values.provider.trim().toLowerCase());
  const fields: Record<string, string> = {};
  for (const parameter of Object.keys(CLOUD_PARAMETERS)) {
    const value = options[flagOf(parameter)];
    if (typeof value === 'string') fields[CLOUD_PARAMETERS[parameter]] = value;
  }
  if (typeof values['service-account-key'] === 'string') {
    const field = provider.credentialFields.find((candidate) => candidate.name.endsWith('.serviceAccountJson'));
    if (!field) throw new UsageError(`--service-account-key is for vertex-ai; '${provider.slug}' takes no service account.`);
    // A path is no secret; the file's content goes straight into the sealed credentials.
    fields[field.name] = readFileSync(values['service-account-key'], 'utf8');
  }
  const mayOmitToken = typeof values['custom-host'] === 'string';
  const secrets = values['no-secret'] ? {} : await readSecrets(provider, fields, io, mayOmitToken);

  const created = await withKeyStore(values, io, async (store, storage) => {
    const created = await store.createVirtualKey({
      name: values.name as string,
      provider: provider.slug,
      customHost: values['custom-host'],
      fields: { ...fields, ...secrets },
      allowRouting: values['allow-routing'] === true,
      chatOnly: values['chat-only'] === true,
    });
    await warnIfUnprotected(storage, io);
    io.stderr.write(
      `Created virtual key ${created.id} '${created.name}' for ${created.provider}${created.customHost ? ` at ${created.customHost}` : ''}. ` +
        'It is shown only this once:\n',
    );
    io.stdout.write(`${created.key}\n`);
    return created;
  });
  if (created.customHost) await reportHostCheck(created.provider, { ...created.settings, ...fields, ...secrets }, created.customHost, io);
  return 0;
}

/** The model-list check of a key's host, on stderr: advice, whatever it finds. */
async function reportHostCheck(provider: string, values: Record<string, string>, host: string, io: KeysCommandIO): Promise<void> {
  if (getProvider(provider).defaultBaseUrl.endsWith('/v1') && new URL(host).pathname.replace(/\/+$/, '') === '') {
    io.stderr.write(`Warning: ${host} has no path: ${provider} servers usually answer under /v1 (e.g. ${host}/v1).\n`);
  }
  const line = await describeHostCheck(provider, values, host);
  if (line) io.stderr.write(`${line}\n`);
}

/** `keys host NAME URL`: the same key string at a new host; the secrets are asked for again (a key is bound to its host). */
async function changeHost(args: string[], io: KeysCommandIO): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { ...commonOptions }, strict: true, allowPositionals: true });
  if (positionals.length !== 2) throw new UsageError('keys host takes a virtual key name (or id) and the new host, e.g. gatehouse keys host lm-studio http://127.0.0.1:1234/v1');
  const [nameOrId, host] = positionals;
  const found = await withKeys(values, io, false, async (store) => (store ? findVirtualKey(store, nameOrId) : undefined));
  if (!found) throw new Error(`No active virtual key named '${nameOrId}' (see 'gatehouse keys list').`);
  const provider = getProvider(found.provider);
  const secrets = await readSecrets(provider, {}, io, true);
  const updated = await withKeys(values, io, false, async (store) => store!.updateVirtualKey(found.id, { customHost: host, fields: secrets }));
  io.stderr.write(`Virtual key ${updated.id} '${updated.name}' now calls ${updated.customHost ?? provider.defaultBaseUrl}. The key itself is unchanged.\n`);
  if (updated.customHost) await reportHostCheck(updated.provider, { ...updated.settings, ...secrets }, updated.customHost, io);
  return 0;
}

/** `keys chat-only NAME [--on | --off]`: shows or sets whether Responses calls are translated to Chat for the key. */
async function setChatOnly(args: string[], io: KeysCommandIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { ...commonOptions, on: { type: 'boolean', default: false }, off: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new UsageError('keys chat-only takes one virtual key name (or id), e.g. gatehouse keys chat-only lm-studio --on');
  if (values.on && values.off) throw new UsageError('keys chat-only takes --on or --off, not both.');
  return withKeys(values, io, false, async (store) => {
    const key = store ? await findVirtualKey(store, positionals[0]) : undefined;
    if (!store || !key) throw new Error(`No active virtual key named '${positionals[0]}' (see 'gatehouse keys list').`);
    const changed = values.on || values.off ? await store.updateVirtualKey(key.id, { chatOnly: values.on === true }) : key;
    const says = changed.chatOnly ? 'its server speaks Chat only: Responses calls are translated to Chat' : 'Responses calls are passed through to its server';
    if (values.json) io.stdout.write(`${JSON.stringify({ id: changed.id, name: changed.name, chatOnly: changed.chatOnly }, null, 2)}\n`);
    else if (changed === key) io.stdout.write(`${key.id} '${key.name}': ${says}\n`);
    else io.stderr.write(`Virtual key ${changed.id} '${changed.name}': ${says}.\n`);
    return 0;
  });
}

async function rotateVirtualKey(args: string[], io: KeysCommandIO): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { ...commonOptions }, strict: true, allowPositionals: true });
  const id = singleId(positionals, 'keys rotate');
  return withKeys(values, io, false, async (store) => {
    if (!store) throw new Error(`No virtual key with id '${id}'`);
    const key = await store.getVirtualKey(id);
    const provider = getProvider(key.provider);
    // The store cannot read old secrets here (no data key in the CLI), so every secret field is asked for again.
    const secrets = await readSecrets(provider, {}, io, key.customHost !== null);
    const updated = await store.updateVirtualKey(id, { fields: secrets });
    io.stderr.write(`Replaced the secret of virtual key ${updated.id} '${updated.name}'. The key itself is unchanged.\n`);
    return 0;
  });
}

/** `keys routing NAME [--allow | --deny]`: shows or changes whether routes may lend the key to other keys' calls. */
async function setRouting(args: string[], io: KeysCommandIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: { ...commonOptions, allow: { type: 'boolean', default: false }, deny: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new UsageError('keys routing takes one virtual key name (or id), e.g. gatehouse keys routing anthropic-main --allow');
  if (values.allow && values.deny) throw new UsageError('keys routing takes --allow or --deny, not both.');
  return withKeys(values, io, false, async (store) => {
    const key = store ? await findVirtualKey(store, positionals[0]) : undefined;
    if (!store || !key) throw new Error(`No active virtual key named '${positionals[0]}' (see 'gatehouse keys list').`);
    const changed = values.allow || values.deny ? await store.updateVirtualKey(key.id, { allowRouting: values.allow === true }) : key;
    const says = changed.allowRouting ? "routes may serve other keys' calls with its credentials" : "only gateway keys and the key itself reach its credentials through routes";
    if (values.json) io.stdout.write(`${JSON.stringify({ id: changed.id, name: changed.name, allowRouting: changed.allowRouting }, null, 2)}\n`);
    else if (changed === key) io.stdout.write(`${key.id} '${key.name}': ${says}\n`);
    else io.stderr.write(`Virtual key ${changed.id} '${changed.name}': ${says}.\n`);
    return 0;
  });
}

/** `keys mcp NAME [--servers a,b | --all] [--tools s:t,… | --all-tools] [--default allow|deny|global]`: shows or changes what MCP a key may use. */
async function setMcpServers(args: string[], io: KeysCommandIO): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    options: {
      ...commonOptions,
      servers: { type: 'string' },
      all: { type: 'boolean', default: false },
      tools: { type: 'string' },
      'all-tools': { type: 'boolean', default: false },
      default: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
    strict: true,
    allowPositionals: true,
  });
  if (positionals.length !== 1) throw new UsageError('keys mcp takes one key name (or id), e.g. gatehouse keys mcp laptop --servers github,fetch');
  if (values.all && values.servers !== undefined) throw new UsageError('keys mcp takes --servers or --all, not both.');
  if (values['all-tools'] && values.tools !== undefined) throw new UsageError('keys mcp takes --tools or --all-tools, not both.');
  const change = mcpAccessFlags(values);
  return withKeys(values, io, false, async (store) => {
    const wanted = positionals[0];
    const key = store ? ((await findVirtualKey(store, wanted)) ?? (await findGatewayKey(store, wanted))) : undefined;
    if (!store || !key) throw new Error(`No active key named '${wanted}' (see 'gatehouse keys list' and 'gatehouse gateway-keys list').`);
    const changed = Object.keys(change).length > 0 ? await store.setKeyMcpAccess(key.id, change) : key;
    const says = describeMcpAccess(changed);
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ id: changed.id, name: changed.name, mcpServers: changed.mcpServers ?? null, mcpTools: changed.mcpTools ?? null, mcpDefault: changed.mcpDefault ?? null }, null, 2)}\n`);
    } else if (changed === key) io.stdout.write(`${key.id} '${key.name}' ${says}\n`);
    else io.stderr.write(`Key ${changed.id} '${changed.name}' ${says}. A running server applies it within a second.\n`);
    return 0;
  });
}

/** The change `keys mcp`'s flags ask for. --all means every server, whatever the global default. */
function mcpAccessFlags(values: { servers?: string; all?: boolean; tools?: string; 'all-tools'?: boolean; default?: string }): McpAccessChange {
  const list = (text: string) => text.split(',').map((item) => item.trim()).filter(Boolean);
  const change: McpAccessChange = {};
  if (values.all) Object.assign(change, { mcpServers: null, mcpDefault: 'allow' });
  if (values.servers !== undefined) change.mcpServers = list(values.servers);
  if (values['all-tools']) change.mcpTools = null;
  if (values.tools !== undefined) {
    const grant: Record<string, string[]> = {};
    for (const item of list(values.tools)) {
      const colon = item.indexOf(':');
      if (colon <= 0 || colon === item.length - 1) throw new UsageError(`keys mcp --tools takes server:tool pairs separated by commas (got '${item}'), e.g. --tools github:create_issue,github:get_issue`);
      (grant[item.slice(0, colon)] ??= []).push(item.slice(colon + 1));
    }
    change.mcpTools = grant;
  }
  if (values.default !== undefined) {
    if (!['allow', 'deny', 'global'].includes(values.default)) throw new UsageError("keys mcp --default takes allow, deny or global (follow the Settings' default).");
    change.mcpDefault = values.default === 'global' ? null : (values.default as McpDefault);
  }
  return change;
}

/** What a key's MCP fields let it use, in a sentence. */
function describeMcpAccess(key: Partial<McpAccessSummary>): string {
  const fallback = key.mcpDefault === 'deny' ? 'no MCP server until one is allowed' : key.mcpDefault === 'allow' ? 'every MCP server' : "the MCP servers the global default allows (Settings: every server, or none)";
  const servers = key.mcpServers ? `the MCP servers ${key.mcpServers.join(', ') || '(none)'}` : fallback;
  const tools = key.mcpTools ? Object.entries(key.mcpTools).map(([server, names]) => `${server}: ${names.join(', ') || '(no tool)'}`) : [];
  return `may use ${servers}${tools.length ? `; of their tools only ${tools.join('; ')}` : ''}`;
}

async function findGatewayKey(store: KeyRepository, nameOrId: string): Promise<GatewayKeySummary | undefined> {
  const keys = await store.listGatewayKeys();
  const byId = keys.find((key) => key.id === nameOrId);
  if (byId) return byId;
  const named = keys.filter((key) => key.name === nameOrId);
  if (named.length > 1) throw new Error(`${named.length} gateway keys are named '${nameOrId}': ${named.map((key) => key.id).join(', ')}. Give the id instead of the name.`);
  return named[0];
}

/** An active virtual key by id or name; several of one name must be told apart by id. */
async function findVirtualKey(store: KeyRepository, nameOrId: string): Promise<VirtualKeySummary | undefined> {
  const keys = await store.listVirtualKeys();
  const byId = keys.find((key) => key.id === nameOrId);
  if (byId) return byId;
  const exact = keys.filter((key) => key.name === nameOrId);
  // Names are unique case aside (older data dirs may still hold twins): an exact match first.
  const named = exact.length ? exact : keys.filter((key) => key.name.toLowerCase() === nameOrId.toLowerCase());
  if (named.length > 1) throw new Error(`${named.length} virtual keys are named '${nameOrId}': ${named.map((key) => key.id).join(', ')}. Give the id instead of the name.`);
  return named[0];
}

async function addGatewayKey(args: string[], io: KeysCommandIO): Promise<number> {
  const { values } = parseArgs({ args, options: { ...commonOptions, name: { type: 'string' } }, strict: true });
  if (typeof values.name !== 'string') throw new UsageError('gateway-keys add needs --name.');
  return withKeyStore(values, io, async (store) => {
    const created = await store.createGatewayKey({ name: values.name as string });
    io.stderr.write(`Created gateway API key ${created.id} '${created.name}'. It is shown only this once:\n`);
    io.stdout.write(`${created.key}\n`);
    return 0;
  });
}

async function listKeys(args: string[], io: KeysCommandIO, kind: 'virtual' | 'gateway'): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { ...commonOptions, all: { type: 'boolean', default: false }, json: { type: 'boolean', default: false } },
    strict: true,
  });
  return withKeys(values, io, false, async (store) => {
    const includeRevoked = values.all === true;
    const items = !store ? [] : kind === 'virtual' ? await store.listVirtualKeys({ includeRevoked }) : await store.listGatewayKeys({ includeRevoked });
    if (values.json) {
      io.stdout.write(`${JSON.stringify({ items }, null, 2)}\n`);
      return 0;
    }
    if (items.length === 0) {
      io.stderr.write(kind === 'virtual' ? 'No virtual keys. Create one with: gatehouse keys add --name N --provider SLUG\n' : 'No gateway API keys.\n');
      return 0;
    }
    io.stdout.write(formatTable(kind === 'virtual' ? virtualKeyRows(items as VirtualKeySummary[]) : gatewayKeyRows(items as GatewayKeySummary[])));
    return 0;
  });
}

async function revokeKey(args: string[], io: KeysCommandIO): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: { ...commonOptions }, strict: true, allowPositionals: true });
  const id = singleId(positionals, 'revoke');
  return withKeys(values, io, false, async (store) => {
    if (!store) throw new Error(`No ${id.startsWith('gk_') ? 'gateway API key' : 'virtual key'} with id '${id}'`);
    const revoked = id.startsWith('gk_') ? await store.revokeGatewayKey(id) : await store.revokeVirtualKey(id);
    io.stderr.write(`Revoked ${id.startsWith('gk_') ? 'gateway API key' : 'virtual key'} ${revoked.id} '${revoked.name}'.\n`);
    return 0;
  });
}

function singleId(positionals: string[], command: string): string {
  if (positionals.length !== 1) throw new UsageError(`${command} takes one key id (see 'gatehouse keys list').`);
  return positionals[0];
}

function virtualKeyRows(items: VirtualKeySummary[]): string[][] {
  return [
    ['ID', 'NAME', 'PROVIDER', 'KEY', 'HOST', 'CHAT ONLY', 'CREATED', 'LAST USED', 'REVOKED'],
    ...items.map((item) => [item.id, item.name, item.provider, `${item.keyPrefix}…`, item.customHost ?? '-', item.chatOnly ? 'yes' : '-', item.createdAt, item.lastUsedAt ?? '-', item.revokedAt ?? '-']),
  ];
}

function gatewayKeyRows(items: GatewayKeySummary[]): string[][] {
  return [
    ['ID', 'NAME', 'KEY', 'CREATED', 'LAST USED', 'REVOKED'],
    ...items.map((item) => [item.id, item.name, `${item.keyPrefix}…`, item.createdAt, item.lastUsedAt ?? '-', item.revokedAt ?? '-']),
  ];
}

function formatTable(rows: string[][]): string {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  return rows.map((row) => row.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd()).join('\n') + '\n';
}

/**
 * The provider's secret fields not given as flags, main secret first: from a hidden prompt each on
 * a terminal, else one line each from stdin. Optional ones may be left empty.
 */
async function readSecrets(provider: ProviderAdapter, givenByFlag: Record<string, string>, io: KeysCommandIO, mayOmitToken: boolean): Promise<Record<string, string>> {
  const main = mainSecretField(provider);
  // A field given by flag is not asked for, nor one that a given field stands in for (a token, when a service account key is given).
  const isGiven = (name: string) => givenByFlag[name] !== undefined;
  const wanted = provider.credentialFields.filter((field) => field.secret && !isGiven(field.name) && !(field.alternative && isGiven(field.alternative)));
  wanted.sort((a, b) => Number(b === main) - Number(a === main));
  if (wanted.length === 0) return {};

  const secrets: Record<string, string> = {};
  if (io.stdin.isTTY && io.stdin.setRawMode) {
    for (const field of wanted) {
      const hint = field.required ? '' : ' (Enter for none)';
      const value = await readHiddenLine(io, `${field.label}${hint}: `);
      if (value) secrets[field.name] = value;
    }
    return secrets;
  }
  const lines = (await readAll(io.stdin)).split(/\r?\n/).map((line) => line.trim());
  wanted.forEach((field, index) => {
    if (lines[index]) secrets[field.name] = lines[index];
  });
  if (main && wanted.includes(main) && !secrets[main.name] && main.required && !(mayOmitToken && main.name === 'token')) {
    throw new Error(`No ${main.label} on stdin. Pipe it in, e.g.: printf '%s' "$KEY" | gatehouse keys add ...`);
  }
  return secrets;
}
