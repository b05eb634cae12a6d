// Virtual keys and gateway API keys in SQLite: stored as hashes, their provider secrets sealed
// (sealed-credentials.ts), resolved from memory (memory-directory.ts) on every request and refreshed
// when any process (the CLI too) changes them.
import type { KeyObject } from 'node:crypto';
import { VIRTUAL_KEY_PREFIX, type Caller } from '../../core/keys.js';
import { GatewayError } from '../../core/errors.js';
import { GATEWAY_KEY_PREFIX, type CredentialValues, type GatewayKeySummary, type KeyRepository, type NewVirtualKey, type VirtualKeyChange, type VirtualKeySummary } from '../../core/key-repository.js';
import { validCustomHost, validDefaultModel, validModelMap, validName } from '../../core/key-input.js';
import { nonSecretValues, requireSecretsAgain, validCredentials } from '../../core/credential-values.js';
import { getProvider } from '../../providers/registry.js';
import type { SqliteDatabase } from '../database.js';
import type { KeyProtector } from '../key-protection.js';
import { hasDataKey, openDataKey, storedPublicKey, type DataKey, type KeyStoreOpenOptions } from './data-key.js';
import { gatewayKeySummary, virtualKeySummary, type GatewayKeyRow, type VirtualKeyRow } from './key-rows.js';
import { MemoryKeyDirectory } from './memory-directory.js';
import { newId, newKey } from './new-key.js';
import { credentialsLoader, openCredentials, sealCredentials } from './sealed-credentials.js';
import { openSecret, sealSecret, type SecretContext } from '../secret-box.js';
import { mcpAccessOfRow, storedMcpAccess, validMcpAccessChange, type McpAccessChange } from '../../core/mcp-access.js';

/** Seals and opens other tables' secrets (MCP servers') with the same data key as the keys' own. */
export interface ValueSealer {
  seal(context: SecretContext, plaintext: string): Buffer;
  /** Throws when the store was opened for writing only (the CLI): it never decrypts. */
  open(context: SecretContext, sealed: Buffer): string;
}


/** The model map as stored: NULL when empty, else JSON. */
const storedModelMap = (map: Record<string, string> | undefined): string | null => {
  const clean = validModelMap(map);
  return clean === null ? null : JSON.stringify(clean);
};

function notFound(kind: string, id: string): GatewayError {
  return new GatewayError(404, 'not_found_error', `No ${kind} with id '${id}'`, 'id');
}

/** Names compare without case: `Work` and `work` would read as one key in a list, a route or `keys limits`. */
const sameName = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

export class KeyStore implements KeyRepository {
  private readonly directory = new MemoryKeyDirectory();
  private generation = -1;
  private stopWatching: (() => void) | undefined;
  private closed = false;
  private readonly publicKey: Buffer;
  /** Absent in a store opened only to add and revoke keys (the CLI): it never decrypts. */
  private privateKey: KeyObject | undefined;
  /** How the data key is protected, as recorded in the database. */
  readonly protectorMode: string;

  private constructor(
    private readonly db: SqliteDatabase,
    dataKey: DataKey,
  ) {
    this.publicKey = dataKey.publicKey;
    this.privateKey = dataKey.privateKey;
    this.protectorMode = dataKey.protectorMode;
    this.reload();
  }

  /**
   * Opens the key store of a database for a server: creates the data key pair on first use, else
   * unwraps the private key. A wrong master key or another protector gives a KeyStoreLockedError.
   */
  static async open(db: SqliteDatabase, protector: KeyProtector, options: KeyStoreOpenOptions = {}): Promise<KeyStore> {
    return new KeyStore(db, await openDataKey(db, protector, options));
  }

  /**
   * Opens the store to add, list and revoke keys without decrypting anything: sealing needs only
   * the public key. So the CLI works beside a desktop app whose data key is in the OS keychain.
   * Only an uninitialised store needs a protector (to wrap the new data key).
   */
  static async openForWriting(db: SqliteDatabase, protectorForFirstUse: () => Promise<KeyProtector>): Promise<KeyStore> {
    const stored = storedPublicKey(db);
    if (!stored) {
      const store = await KeyStore.open(db, await protectorForFirstUse());
      store.privateKey = undefined;
      return store;
    }
    return new KeyStore(db, { ...stored, privateKey: undefined });
  }

  /** Whether a database already holds a data key (and so keys may depend on it). */
  static isInitialised(db: SqliteDatabase): boolean {
    return hasDataKey(db);
  }

  // ---- lookups (hot path: memory only) ----

  resolve(presentedKey: string, keyHash?: Buffer): Caller | undefined {
    if (this.closed) return undefined;
    return this.directory.resolve(presentedKey, keyHash);
  }

  /**
   * The active virtual key of this name, for route targets (memory only). Names are not unique in the
   * table: route validation refuses a name two active keys share, and here the newest wins.
   */
  virtualKeyByName(name: string): Caller | undefined {
    if (this.closed) return undefined;
    return this.directory.virtualKeyByName(name);
  }

  /**
   * A key's name by its id (virtual or gateway key), from memory; a key revoked while its last calls
   * were in flight is read from the database. Undefined for an unknown id.
   */
  keyName(id: string): string | undefined {
    const known = this.directory.name(id);
    if (known !== undefined || this.closed || !this.db.open) return known;
    const row = this.db.prepare('SELECT name FROM virtual_keys WHERE id = ? UNION ALL SELECT name FROM gateway_keys WHERE id = ?').get(id, id) as { name: string } | undefined;
    return row?.name;
  }

  /**
   * The caller a virtual key's own requests run as, found by its id instead of its key (which is
   * stored only hashed): how the admin Playground runs a key picked by name. Undefined for an
   * unknown or revoked key. Memory only, like resolve().
   */
  callerForVirtualKeyId(id: string): Caller | undefined {
    if (this.closed) return undefined;
    return this.directory.callerForVirtualKeyId(id);
  }

  // ---- virtual keys ----

  async createVirtualKey(input: NewVirtualKey): Promise<VirtualKeySummary & { key: string }> {
    const name = validName(input.name);
    const provider = getProvider(input.provider.trim().toLowerCase());
    const customHost = validCustomHost(input.customHost);
    const values = validCredentials(provider, input.secret, input.fields ?? {}, {}, customHost);
    const defaultModel = validDefaultModel(input.defaultModel);
    const modelMap = storedModelMap(input.modelMap);
    const id = newId('vk');
    const { key, hash, displayPrefix } = newKey(VIRTUAL_KEY_PREFIX);
    const now = Date.now();
    const sealed = this.seal(id, values);
    this.writeWithFreeName(name, undefined, () =>
      this.db
        .prepare(
          `INSERT INTO virtual_keys (id, name, provider, custom_host, key_hash, key_prefix, settings, credentials, created_at, updated_at, default_model, model_map, allow_routing, chat_only)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(id, name, provider.slug, customHost, hash, displayPrefix, JSON.stringify(nonSecretValues(provider, values)), sealed, now, now, defaultModel, modelMap, input.allowRouting ? 1 : 0, input.chatOnly ? 1 : 0),
    );
    this.reload();
    return { ...(await this.getVirtualKey(id)), key };
  }

  async listVirtualKeys(options: { includeRevoked?: boolean } = {}): Promise<VirtualKeySummary[]> {
    const rows = this.db
      .prepare(`SELECT * FROM virtual_keys ${options.includeRevoked ? '' : 'WHERE revoked_at IS NULL'} ORDER BY created_at DESC, id`)
      .all() as VirtualKeyRow[];
    return rows.map((row) => virtualKeySummary(row, this.lastUsed(row.id)));
  }

  async getVirtualKey(id: string): Promise<VirtualKeySummary> {
    return virtualKeySummary(this.virtualKeyRow(id), this.lastUsed(id));
  }

  /** Renames, replaces the credentials, rebinds the host or issues a new key string. */
  async updateVirtualKey(id: string, change: VirtualKeyChange): Promise<VirtualKeySummary & { key?: string }> {
    const row = this.virtualKeyRow(id);
    if (row.revoked_at !== null) throw new GatewayError(409, 'invalid_request_error', `Virtual key '${id}' is revoked`, 'id');
    const provider = getProvider(row.provider);
    const name = change.name === undefined ? row.name : validName(change.name);
    const customHost = change.customHost === undefined ? row.custom_host : validCustomHost(change.customHost);
    const changesCredentials = change.secret !== undefined || change.fields !== undefined || customHost !== row.custom_host;

    let sealed = row.credentials;
    let settings = row.settings;
    if (changesCredentials) {
      // Fields not named keep their value. A store opened only for writing (the CLI) cannot unseal
      // the old secrets: it keeps the non-secret fields, and the secrets must be given again.
      const current = this.privateKey && row.credentials ? openCredentials(this.privateKey, this.publicKey, id, row.credentials) : (JSON.parse(row.settings) as CredentialValues);
      // A key is bound to its host: a new host gets the secrets given with the change, never the old ones.
      if (customHost !== row.custom_host) requireSecretsAgain(provider, id, current, change);
      const values = validCredentials(provider, change.secret, change.fields ?? {}, current, customHost);
      sealed = this.seal(id, values);
      settings = JSON.stringify(nonSecretValues(provider, values));
    }
    const fresh = change.regenerateKey ? newKey(VIRTUAL_KEY_PREFIX) : undefined;
    const defaultModel = change.defaultModel === undefined ? row.default_model : validDefaultModel(change.defaultModel);
    const modelMap = change.modelMap === undefined ? row.model_map : storedModelMap(change.modelMap);
    const allowRouting = change.allowRouting === undefined ? row.allow_routing : change.allowRouting ? 1 : 0;
    const chatOnly = change.chatOnly === undefined ? row.chat_only : change.chatOnly ? 1 : 0;
    this.writeWithFreeName(name, id, () =>
      this.db
        .prepare(
          'UPDATE virtual_keys SET name = ?, custom_host = ?, settings = ?, credentials = ?, key_hash = ?, key_prefix = ?, updated_at = ?, default_model = ?, model_map = ?, allow_routing = ?, chat_only = ? WHERE id = ?',
        )
        .run(name, customHost, settings, sealed, fresh?.hash ?? row.key_hash, fresh?.displayPrefix ?? row.key_prefix, Date.now(), defaultModel, modelMap, allowRouting, chatOnly, id),
    );
    this.reload();
    const summary = await this.getVirtualKey(id);
    return fresh ? { ...summary, key: fresh.key } : summary;
  }

  /** Revoking forgets the sealed secret too: a revoked key has nothing left to decrypt. */
  async revokeVirtualKey(id: string): Promise<VirtualKeySummary> {
    const row = this.virtualKeyRow(id);
    if (row.revoked_at === null) {
      const now = Date.now();
      this.db.prepare('UPDATE virtual_keys SET revoked_at = ?, updated_at = ?, credentials = NULL WHERE id = ?').run(now, now, id);
      this.reload();
    }
    return this.getVirtualKey(id);
  }

  // ---- gateway API keys ----

  async createGatewayKey(input: { name: string }): Promise<GatewayKeySummary & { key: string }> {
    const name = validName(input.name);
    const id = newId('gk');
    const { key, hash, displayPrefix } = newKey(GATEWAY_KEY_PREFIX);
    const now = Date.now();
    this.writeWithFreeName(name, undefined, () =>
      this.db.prepare('INSERT INTO gateway_keys (id, name, key_hash, key_prefix, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)').run(id, name, hash, displayPrefix, now, now),
    );
    this.reload();
    return { ...(await this.getGatewayKey(id)), key };
  }

  async listGatewayKeys(options: { includeRevoked?: boolean } = {}): Promise<GatewayKeySummary[]> {
    const rows = this.db
      .prepare(`SELECT * FROM gateway_keys ${options.includeRevoked ? '' : 'WHERE revoked_at IS NULL'} ORDER BY created_at DESC, id`)
      .all() as GatewayKeyRow[];
    return rows.map((row) => gatewayKeySummary(row, this.lastUsed(row.id)));
  }

  async getGatewayKey(id: string): Promise<GatewayKeySummary> {
    return gatewayKeySummary(this.gatewayKeyRow(id), this.lastUsed(id));
  }

  async renameGatewayKey(id: string, newName: string): Promise<GatewayKeySummary> {
    const row = this.gatewayKeyRow(id);
    const name = validName(newName);
    this.writeWithFreeName(name, row.id, () => this.db.prepare('UPDATE gateway_keys SET name = ?, updated_at = ? WHERE id = ?').run(name, Date.now(), row.id));
    this.reload();
    return this.getGatewayKey(id);
  }

  async revokeGatewayKey(id: string): Promise<GatewayKeySummary> {
    const row = this.gatewayKeyRow(id);
    if (row.revoked_at === null) {
      const now = Date.now();
      this.db.prepare('UPDATE gateway_keys SET revoked_at = ?, updated_at = ? WHERE id = ?').run(now, now, id);
      this.reload();
    }
    return this.getGatewayKey(id);
  }

  // ---- the MCP servers a key may use ----

  /** Sets which MCP servers and tools a key (virtual `vk_` or gateway `gk_` id) may see and call; absent fields stay. */
  async setKeyMcpAccess(id: string, change: McpAccessChange): Promise<VirtualKeySummary | GatewayKeySummary> {
    const columns = Object.entries(storedMcpAccess(validMcpAccessChange(change)));
    const isGateway = id.startsWith('gk_');
    const row = isGateway ? this.gatewayKeyRow(id) : this.virtualKeyRow(id);
    if (row.revoked_at !== null) throw new GatewayError(409, 'invalid_request_error', `Key '${id}' is revoked`, 'id');
    // Column names come from storedMcpAccess's fixed set, never from the request.
    const sets = columns.map(([column]) => `${column} = ?, `).join('');
    this.db.prepare(`UPDATE ${isGateway ? 'gateway_keys' : 'virtual_keys'} SET ${sets}updated_at = ? WHERE id = ?`).run(...columns.map(([, value]) => value), Date.now(), id);
    this.reload();
    return isGateway ? this.getGatewayKey(id) : this.getVirtualKey(id);
  }

  /** Seals and opens secrets of other tables with this store's data key. */
  valueSealer(): ValueSealer {
    return {
      seal: (context, plaintext) => sealSecret(this.publicKey, plaintext, context),
      open: (context, sealed) => {
        if (!this.privateKey) throw new Error('This key store was opened without the data key and cannot decrypt secrets');
        return openSecret(this.privateKey, this.publicKey, sealed, context);
      },
    };
  }

  // ---- keeping memory in step with the database ----

  /**
   * Polls for changes committed by other connections (the CLI, a second server): `PRAGMA
   * data_version` is a memory read in WAL mode, and the tables are reread only when the key
   * generation counter moved. Returns a function that stops watching.
   */
  watchForExternalChanges(intervalMs = 500): () => void {
    this.stopWatching?.();
    let dataVersion = this.db.pragma('data_version', { simple: true }) as number;
    const timer = setInterval(() => {
      if (this.closed || !this.db.open) {
        clearInterval(timer);
        return;
      }
      try {
        const current = this.db.pragma('data_version', { simple: true }) as number;
        if (current === dataVersion) return;
        dataVersion = current;
        this.reloadIfChanged();
      } catch {
        // A busy or closing database: try again on the next tick rather than stop a running server.
      }
    }, intervalMs);
    timer.unref();
    const stop = () => clearInterval(timer);
    this.stopWatching = stop;
    return stop;
  }

  /** Rereads the key tables if any process changed them since the last read. */
  reloadIfChanged(): void {
    const generation = this.readGeneration();
    if (generation !== this.generation) this.reload();
  }

  close(): void {
    this.closed = true;
    this.stopWatching?.();
    this.directory.clear();
    this.privateKey = undefined;
  }

  // ---- internals ----

  /**
   * Runs `write` once no other active key of either kind has `name` (case aside), in one immediate
   * transaction: a CLI adding a key at the same moment waits for it rather than slipping a twin in.
   * `ownId` is the key being renamed, which may keep its own name.
   */
  private writeWithFreeName(name: string, ownId: string | undefined, write: () => void): void {
    const active = this.db.prepare(
      "SELECT id, name, 'virtual key' AS kind FROM virtual_keys WHERE revoked_at IS NULL UNION ALL SELECT id, name, 'gateway API key' AS kind FROM gateway_keys WHERE revoked_at IS NULL",
    );
    this.db
      .transaction(() => {
        const twin = (active.all() as { id: string; name: string; kind: string }[]).find((row) => row.id !== ownId && sameName(row.name, name));
        if (twin) {
          throw new GatewayError(
            409,
            'invalid_request_error',
            `A key named '${twin.name}' already exists (${twin.kind} ${twin.id}): key names are unique among active keys, whatever their case. Choose another name, or revoke that key first.`,
            'name',
            'key_name_taken',
          );
        }
        write();
      })
      .immediate();
  }

  /** One index lookup per key (request_log_key); only the admin API and the CLI ask. */
  private lastUsed(keyId: string): number | null {
    const row = this.db.prepare('SELECT MAX(created_at) AS at FROM request_log WHERE key_id = ?').get(keyId) as { at: number | null };
    return row.at;
  }

  private readGeneration(): number {
    return (this.db.prepare('SELECT value FROM key_generation WHERE id = 1').get() as { value: number }).value;
  }

  private reload(): void {
    const read = this.db.transaction(() => ({
      generation: this.readGeneration(),
      virtual: this.db.prepare('SELECT * FROM virtual_keys WHERE revoked_at IS NULL').all() as VirtualKeyRow[],
      gateway: this.db.prepare('SELECT * FROM gateway_keys WHERE revoked_at IS NULL').all() as GatewayKeyRow[],
    }));
    const { generation, virtual, gateway } = read();
    // Oldest first, so the newest of a shared name is the one kept.
    virtual.sort((a, b) => a.created_at - b.created_at);
    this.directory.replace(
      virtual.map((row) => ({ id: row.id, name: row.name, keyHash: row.key_hash, caller: this.virtualKeyCaller(row) })),
      gateway.map((row) => ({ id: row.id, name: row.name, keyHash: row.key_hash, caller: { kind: 'gateway-key', keyId: row.id, ...mcpAccessOfRow(row) } })),
    );
    this.generation = generation;
  }

  private virtualKeyCaller(row: VirtualKeyRow): Caller {
    return {
      kind: 'virtual-key',
      keyId: row.id,
      name: row.name,
      provider: row.provider,
      ...(row.custom_host ? { customHost: row.custom_host } : {}),
      ...(row.default_model ? { defaultModel: row.default_model } : {}),
      ...(row.model_map ? { modelMap: JSON.parse(row.model_map) as Record<string, string> } : {}),
      ...(row.allow_routing ? { allowRouting: true } : {}),
      ...(row.chat_only ? { chatOnly: true } : {}),
      learnChatOnly: () => this.learnChatOnly(row.id),
      ...mcpAccessOfRow(row),
      loadCredentials: credentialsLoader(() => this.privateKey, this.publicKey, row.id, row.credentials),
    };
  }

  /** The gateway saw the key's server answer 404 to /v1/responses: later calls go translated from the start. */
  private learnChatOnly(id: string): void {
    if (this.closed || !this.db.open) return;
    try {
      const changed = this.db.prepare('UPDATE virtual_keys SET chat_only = 1, updated_at = ? WHERE id = ? AND chat_only = 0 AND revoked_at IS NULL').run(Date.now(), id);
      if (changed.changes) this.reload();
    } catch {
      // A busy database: the next 404 teaches it again; the call itself has been retried translated already.
    }
  }

  private seal(id: string, values: CredentialValues): Buffer {
    return sealCredentials(this.publicKey, id, values);
  }

  private virtualKeyRow(id: string): VirtualKeyRow {
    const row = this.db.prepare('SELECT * FROM virtual_keys WHERE id = ?').get(id) as VirtualKeyRow | undefined;
    if (!row) throw notFound('virtual key', id);
    return row;
  }

  private gatewayKeyRow(id: string): GatewayKeyRow {
    const row = this.db.prepare('SELECT * FROM gateway_keys WHERE id = ?').get(id) as GatewayKeyRow | undefined;
    if (!row) throw notFound('gateway API key', id);
    return row;
  }
}
