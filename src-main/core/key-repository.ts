// Virtual keys and gateway API keys as the admin API, the CLI and the gateway know them: the rows they
// read and write, and the contract of the store that keeps them (SQLite in store/keys/; a second backend
// implements KeyRepository and reuses the input rules of key-input.ts and credential-values.ts).
import type { Caller, KeyDirectory } from './keys.js';
import type { McpAccessChange, McpAccessSummary } from './mcp-access.js';

export const GATEWAY_KEY_PREFIX = 'gh-gk-';

/** Credential fields by the names providers declare (`token`, `azure.resourceName` ...) → value. */
export type CredentialValues = Record<string, string>;

/** Every summary carries the key's MCP access (mcpServers, mcpTools, mcpDefault; null = not set), always set by the store. */
export interface VirtualKeySummary extends Partial<McpAccessSummary> {
  id: string;
  name: string;
  provider: string;
  customHost: string | null;
  keyPrefix: string;
  /** The non-secret credential fields (resource, region ...), for display. */
  settings: CredentialValues;
  createdAt: string;
  updatedAt: string;
  revokedAt: string | null;
  /** The newest request logged with this key; null if none (or the log was pruned). */
  lastUsedAt: string | null;
  /** The model sent when a request names none; null for none. */
  defaultModel: string | null;
  /** Requested model name → the name sent to the provider. */
  modelMap: Record<string, string>;
  /** Whether a route may serve another virtual key's call with this key's credentials. */
  allowRouting: boolean;
  /**
   * The key's server speaks Chat Completions but not Responses: a `/v1/responses` call is translated to
   * Chat for it (as for `ollama` keys). Set by hand, by Make a key from discovery, or learnt when the
   * server answers 404 to a passed-through `/v1/responses`.
   */
  chatOnly: boolean;
}

export interface GatewayKeySummary extends Partial<McpAccessSummary> {
  id: string;
  name: string;
  keyPrefix: string;
  createdAt: string;
  updatedAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export interface NewVirtualKey {
  name: string;
  provider: string;
  customHost?: string | null;
  /** The provider's main secret (its API key); goes to `token`, or its first secret field. */
  secret?: string;
  /** Further credential fields, by any name credentialFieldName accepts. */
  fields?: Record<string, string | undefined>;
  defaultModel?: string | null;
  modelMap?: Record<string, string>;
  /** Lets routes serve other virtual keys' calls with this key's credentials; false when left out. */
  allowRouting?: boolean;
  /** The server speaks Chat Completions only; false when left out. */
  chatOnly?: boolean;
}

export interface VirtualKeyChange {
  name?: string;
  /** Replaces the stored credentials: the new secret, with the other fields kept unless given. */
  secret?: string;
  fields?: Record<string, string | undefined>;
  customHost?: string | null;
  /** Issues a new `gh-vk-` key for the same credentials; the old one stops working at once. */
  regenerateKey?: boolean;
  /** null clears it. */
  defaultModel?: string | null;
  /** Replaces the whole map; {} clears it. */
  modelMap?: Record<string, string>;
  allowRouting?: boolean;
  chatOnly?: boolean;
}

/**
 * Where keys are kept. The lookups inherited from KeyDirectory, keyName and callerForVirtualKeyId run
 * on every request (or every /metrics line) and must answer from memory, never from the database: an
 * implementation keeps the active keys in memory and refreshes them when any process changes them.
 * The rest is the admin API's and the CLI's: promises, which may wait for the database (never holding the
 * serving thread). Errors (the promises' rejections) are GatewayErrors
 * (400 for bad input, 404 for an unknown id, 409 for a change to a revoked key or for a name an active key
 * of either kind has, compared case-insensitively: a revoked key's name is free again).
 */
export interface KeyRepository extends KeyDirectory {
  /** The active virtual key of a name (route targets name their key); memory only. */
  virtualKeyByName(name: string): Caller | undefined;
  /** A key's name by its id (virtual or gateway key); undefined for an unknown id. */
  keyName(id: string): string | undefined;
  /** The caller a virtual key's own requests run as, by its id (the Playground); memory only. */
  callerForVirtualKeyId(id: string): Caller | undefined;

  createVirtualKey(input: NewVirtualKey): Promise<VirtualKeySummary & { key: string }>;
  listVirtualKeys(options?: { includeRevoked?: boolean }): Promise<VirtualKeySummary[]>;
  getVirtualKey(id: string): Promise<VirtualKeySummary>;
  /** Renames, replaces the credentials, rebinds the host or issues a new key string. */
  updateVirtualKey(id: string, change: VirtualKeyChange): Promise<VirtualKeySummary & { key?: string }>;
  /** Revoking forgets the sealed secret too: a revoked key has nothing left to decrypt. */
  revokeVirtualKey(id: string): Promise<VirtualKeySummary>;

  createGatewayKey(input: { name: string }): Promise<GatewayKeySummary & { key: string }>;
  listGatewayKeys(options?: { includeRevoked?: boolean }): Promise<GatewayKeySummary[]>;
  getGatewayKey(id: string): Promise<GatewayKeySummary>;
  renameGatewayKey(id: string, newName: string): Promise<GatewayKeySummary>;
  revokeGatewayKey(id: string): Promise<GatewayKeySummary>;

  /** Which MCP servers and tools a key (virtual or gateway, by id) may see and call (core/mcp-access.ts); absent fields stay. */
  setKeyMcpAccess(id: string, change: McpAccessChange): Promise<VirtualKeySummary | GatewayKeySummary>;
}

/** How the stored secrets are protected, as Settings shows it (a store's KeyProtector says). */
export interface KeyProtection {
  /** A stable name for how the data key is protected (key-file, master-key, a keychain ...). */
  readonly mode: string;
  /** False when the wrapping key sits beside the data (key file, `basic_text` keychain). */
  readonly isProtected: boolean;
  /** Shown to the user when protection is weak; null when there is nothing to say. */
  readonly warning: string | null;
}
