// Virtual keys and gateway API keys in PostgreSQL, sealed exactly as the SQLite store seals them (the same
// data key pair, wrapped by GATEHOUSE_MASTER_KEY; the same sealed-value format and context), so a desktop
// data dir's rows move over as they are. Requests are authenticated from memory (MemoryKeyDirectory),
// reloaded when any instance changes a key (NOTIFY 'keys').
import { timingSafeEqual, type KeyObject } from 'node:crypto';
import { VIRTUAL_KEY_PREFIX, type Caller } from '../core/keys.js';
import { GatewayError } from '../core/errors.js';
import { GATEWAY_KEY_PREFIX, type CredentialValues, type GatewayKeySummary, type KeyRepository, type NewVirtualKey, type VirtualKeyChange, type VirtualKeySummary } from '../core/key-repository.js';
import { validCustomHost, validDefaultModel, validModelMap, validName } from '../core/key-input.js';
import { nonSecretValues, requireSecretsAgain, validCredentials } from '../core/credential-values.js';
import { getProvider } from '../providers/registry.js';
import { describeProtectorMode, type KeyProtector } from '../store/key-protection.js';
import { KeyStoreLockedError } from '../store/keys/data-key.js';
import { generateDataKeyPair, loadDataPrivateKey, openSecret, publicKeyOf, sealSecret } from '../store/secret-box.js';
import type { ValueSealer } from '../store/keys/key-store.js';
import { mcpAccessOfRow, storedMcpAccess, validMcpAccessChange, type McpAccessChange } from '../core/mcp-access.js';
import { gatewayKeySummary, virtualKeySummary, type GatewayKeyRow, type VirtualKeyRow } from '../store/keys/key-rows.js';
import { MemoryKeyDirectory } from '../store/keys/memory-directory.js';
import { newId, newKey } from '../store/keys/new-key.js';
import { credentialsLoader, openCredentials, sealCredentials } from '../store/keys/sealed-credentials.js';
import { bytes, type PgBridge, type Statement } from './pg-bridge.js';
import { CLAIM_KEY_NAME, NAME_TAKEN_STATE } from './schema.js';

const KEY_STORE_FORMAT = 1;
/** A key's last call, read with the key in the same query: one step back through request_log (key_id, created_at) per key. */
const LAST_USED = (alias: string) => `(SELECT max(created_at) FROM request_log WHERE key_id = ${alias}.id) AS last_used`;

const storedModelMap = (map: Record<string, string> | undefined): string | null => {
  const clean = validModelMap(map);
  return clean === null ? null : JSON.stringify(clean);
};


function notFound(kind: string, id: string): GatewayError {
  return new GatewayError(404, 'not_found_error', `No ${kind} with id '${id}'`, 'id');
}

/** The 409 SQLite answers for a taken name, from PostgreSQL's refusal: the claim's (naming the twin) or the constraint's. */
function nameTaken(error: unknown, name: string): GatewayError | undefined {
  const { code, message } = error as { code?: string; message?: string };
  const refuse = (says: string) => new GatewayError(409, 'invalid_request_error', `${says}: key names are unique among active keys, whatever their case. Choose another name, or revoke that key first.`, 'name', 'key_name_taken');
  if (code === NAME_TAKEN_STATE) {
    const twin = JSON.parse(message ?? '{}') as { id: string; name: string; kind: string };
    return refuse(`A key named '${twin.name}' already exists (${twin.kind} ${twin.id})`);
  }
  // A writer that did not claim the name first (psql, or a race the claim did not see): the constraint's.
  if (code === '23P01') return refuse(`A key named '${name}' already exists`);
  return undefined;
}

function virtualRow(row: Record<string, unknown>): VirtualKeyRow {
  return { ...(row as unknown as VirtualKeyRow), key_hash: bytes(row.key_hash), credentials: row.credentials == null ? null : bytes(row.credentials) };
}

function gatewayRow(row: Record<string, unknown>): GatewayKeyRow {
  return { ...(row as unknown as GatewayKeyRow), key_hash: bytes(row.key_hash) };
}

/**
 * The data key pair of the team database: made on first use by whichever instance comes first (the
 * others find it), then unwrapped with the protector. A wrong master key is a KeyStoreLockedError.
 */
async function openDataKey(bridge: PgBridge, protector: KeyProtector): Promise<{ publicKey: Buffer; privateKey: KeyObject; mode: string }> {
  const read = async () => (await bridge.query('SELECT format, protector_mode, wrapped_private_key, public_key FROM key_store WHERE id = 1'))[0];
  let row = await read();
  if (!row) {
    const pair = generateDataKeyPair();
    const wrapped = await protector.wrap(pair.privateKeyDer);
    pair.privateKeyDer.fill(0);
    await bridge.query(
      'INSERT INTO key_store (id, format, protector_mode, wrapped_private_key, public_key, created_at) VALUES (1, $1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING',
      [KEY_STORE_FORMAT, protector.mode, wrapped, pair.publicKey, Date.now()],
    );
    row = await read();
    if (!row) throw new Error('The key store could not be initialised');
  }
  if (row.format !== KEY_STORE_FORMAT) throw new KeyStoreLockedError(`The key store was written in format ${String(row.format)}, which this version of Gatehouse does not know. Update Gatehouse.`);
  const mode = String(row.protector_mode);
  if (mode !== protector.mode) {
    throw new KeyStoreLockedError(
      `The team database's secrets are protected by ${describeProtectorMode(mode)}, but this instance uses ${describeProtectorMode(protector.mode)}. Start every instance with the same GATEHOUSE_MASTER_KEY; nothing was changed.`,
    );
  }
  const publicKey = bytes(row.public_key);
  const locked = `Cannot unlock the team database's secrets: GATEHOUSE_MASTER_KEY is not the one they were created with. Start every instance with the same key; nothing was changed.`;
  let der: Buffer;
  try {
    der = await protector.unwrap(bytes(row.wrapped_private_key));
  } catch {
    throw new KeyStoreLockedError(locked);
  }
  try {
    const privateKey = loadDataPrivateKey(der);
    const derived = publicKeyOf(privateKey);
    if (derived.length !== publicKey.length || !timingSafeEqual(derived, publicKey)) throw new KeyStoreLockedError(locked);
    return { publicKey, privateKey, mode };
  } catch (error) {
    if (error instanceof KeyStoreLockedError) throw error;
    throw new KeyStoreLockedError(locked);
  } finally {
    der.fill(0);
  }
}

export class PgKeyStore implements KeyRepository {
  private readonly directory = new MemoryKeyDirectory();
  /** Every key's name by id, revoked ones too: /metrics labels a call that finished after its key was revoked. */
  private allNames = new Map<string, string>();
  private closed = false;
  /** Bumped per reload: a slower reload started earlier never replaces a newer one. */
  private reloads = 0;
  private applied = 0;

  private constructor(
    private readonly bridge: PgBridge,
    private readonly publicKey: Buffer,
    private privateKey: KeyObject | undefined,
    readonly protectorMode: string,
  ) {}

  static async open(bridge: PgBridge, protector: KeyProtector): Promise<PgKeyStore> {
    const key = await openDataKey(bridge, protector);
    const store = new PgKeyStore(bridge, key.publicKey, key.privateKey, key.mode);
    await store.reload();
    return store;
  }

  // ---- lookups (hot path: memory only) ----

  resolve(presentedKey: string, keyHash?: Buffer): Caller | undefined {
    if (this.closed) return undefined;
    return this.directory.resolve(presentedKey, keyHash);
  }

  virtualKeyByName(name: string): Caller | undefined {
    if (this.closed) return undefined;
    return this.directory.virtualKeyByName(name);
  }

  keyName(id: string): string | undefined {
    return this.directory.name(id) ?? this.allNames.get(id);
  }

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
    await this.writeWithFreeName(name, undefined, {
      sql: `INSERT INTO virtual_keys (id, name, provider, custom_host, key_hash, key_prefix, settings, credentials, created_at, updated_at, default_model, model_map, allow_routing, chat_only)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      params: [id, name, provider.slug, customHost, hash, displayPrefix, JSON.stringify(nonSecretValues(provider, values)), sealCredentials(this.publicKey, id, values), now, now, defaultModel, modelMap, input.allowRouting ? 1 : 0, input.chatOnly ? 1 : 0],
    });
    await this.reloadNow();
    return { ...(await this.getVirtualKey(id)), key };
  }

  async listVirtualKeys(options: { includeRevoked?: boolean } = {}): Promise<VirtualKeySummary[]> {
    const rows = await this.bridge.queryForAdmin(
      `SELECT v.*, ${LAST_USED('v')} FROM virtual_keys v
       ${options.includeRevoked ? '' : 'WHERE revoked_at IS NULL'} ORDER BY created_at DESC, id`,
    );
    return rows.map((row) => virtualKeySummary(virtualRow(row), (row.last_used as number | null) ?? null));
  }

  async getVirtualKey(id: string): Promise<VirtualKeySummary> {
    const row = (await this.bridge.queryForAdmin(`SELECT v.*, ${LAST_USED('v')} FROM virtual_keys v WHERE id = $1`, [id]))[0];
    if (!row) throw notFound('virtual key', id);
    return virtualKeySummary(virtualRow(row), (row.last_used as number | null) ?? null);
  }

  async updateVirtualKey(id: string, change: VirtualKeyChange): Promise<VirtualKeySummary & { key?: string }> {
    const row = await this.virtualKeyRow(id);
    if (row.revoked_at !== null) throw new GatewayError(409, 'invalid_request_error', `Virtual key '${id}' is revoked`, 'id');
    const provider = getProvider(row.provider);
    const name = change.name === undefined ? row.name : validName(change.name);
    const customHost = change.customHost === undefined ? row.custom_host : validCustomHost(change.customHost);
    const changesCredentials = change.secret !== undefined || change.fields !== undefined || customHost !== row.custom_host;
    let sealed = row.credentials;
    let settings = row.settings;
    if (changesCredentials) {
      const current = this.privateKey && row.credentials ? openCredentials(this.privateKey, this.publicKey, id, row.credentials) : (JSON.parse(row.settings) as CredentialValues);
      if (customHost !== row.custom_host) requireSecretsAgain(provider, id, current, change);
      const values = validCredentials(provider, change.secret, change.fields ?? {}, current, customHost);
      sealed = sealCredentials(this.publicKey, id, values);
      settings = JSON.stringify(nonSecretValues(provider, values));
    }
    const fresh = change.regenerateKey ? newKey(VIRTUAL_KEY_PREFIX) : undefined;
    const defaultModel = change.defaultModel === undefined ? row.default_model : validDefaultModel(change.defaultModel);
    const modelMap = change.modelMap === undefined ? row.model_map : storedModelMap(change.modelMap);
    const allowRouting = change.allowRouting === undefined ? row.allow_routing : change.allowRouting ? 1 : 0;
    const chatOnly = change.chatOnly === undefined ? row.chat_only : change.chatOnly ? 1 : 0;
    // Only while still active: a revoke on another instance in between wins.
    const updated = await this.writeWithFreeName(name, id, {
      sql: `UPDATE virtual_keys SET name = $1, custom_host = $2, settings = $3, credentials = $4, key_hash = $5, key_prefix = $6, updated_at = $7,
              default_model = $8, model_map = $9, allow_routing = $10, chat_only = $11 WHERE id = $12 AND revoked_at IS NULL RETURNING id`,
      params: [name, customHost, settings, sealed, fresh?.hash ?? row.key_hash, fresh?.displayPrefix ?? row.key_prefix, Date.now(), defaultModel, modelMap, allowRouting, chatOnly, id],
    });
    if (updated.length === 0) throw new GatewayError(409, 'invalid_request_error', `Virtual key '${id}' is revoked`, 'id');
    await this.reloadNow();
    const summary = await this.getVirtualKey(id);
    return fresh ? { ...summary, key: fresh.key } : summary;
  }

  async revokeVirtualKey(id: string): Promise<VirtualKeySummary> {
    await this.virtualKeyRow(id);
    const now = Date.now();
    const changed = await this.bridge.queryForAdmin('UPDATE virtual_keys SET revoked_at = $1, updated_at = $1, credentials = NULL WHERE id = $2 AND revoked_at IS NULL RETURNING id', [now, id]);
    if (changed.length) await this.reloadNow();
    return this.getVirtualKey(id);
  }

  // ---- gateway API keys ----

  async createGatewayKey(input: { name: string }): Promise<GatewayKeySummary & { key: string }> {
    const name = validName(input.name);
    const id = newId('gk');
    const { key, hash, displayPrefix } = newKey(GATEWAY_KEY_PREFIX);
    const now = Date.now();
    await this.writeWithFreeName(name, undefined, { sql: 'INSERT INTO gateway_keys (id, name, key_hash, key_prefix, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)', params: [id, name, hash, displayPrefix, now] });
    await this.reloadNow();
    return { ...(await this.getGatewayKey(id)), key };
  }

  async listGatewayKeys(options: { includeRevoked?: boolean } = {}): Promise<GatewayKeySummary[]> {
    const rows = await this.bridge.queryForAdmin(
      `SELECT g.*, ${LAST_USED('g')} FROM gateway_keys g
       ${options.includeRevoked ? '' : 'WHERE revoked_at IS NULL'} ORDER BY created_at DESC, id`,
    );
    return rows.map((row) => gatewayKeySummary(gatewayRow(row), (row.last_used as number | null) ?? null));
  }

  async getGatewayKey(id: string): Promise<GatewayKeySummary> {
    const row = (await this.bridge.queryForAdmin(`SELECT g.*, ${LAST_USED('g')} FROM gateway_keys g WHERE id = $1`, [id]))[0];
    if (!row) throw notFound('gateway API key', id);
    return gatewayKeySummary(gatewayRow(row), (row.last_used as number | null) ?? null);
  }

  async renameGatewayKey(id: string, newName: string): Promise<GatewayKeySummary> {
    await this.gatewayKeyRow(id);
    const name = validName(newName);
    await this.writeWithFreeName(name, id, { sql: 'UPDATE gateway_keys SET name = $1, updated_at = $2 WHERE id = $3', params: [name, Date.now(), id] });
    await this.reloadNow();
    return this.getGatewayKey(id);
  }

  async revokeGatewayKey(id: string): Promise<GatewayKeySummary> {
    await this.gatewayKeyRow(id);
    const now = Date.now();
    const changed = await this.bridge.queryForAdmin('UPDATE gateway_keys SET revoked_at = $1, updated_at = $1 WHERE id = $2 AND revoked_at IS NULL RETURNING id', [now, id]);
    if (changed.length) await this.reloadNow();
    return this.getGatewayKey(id);
  }

  // ---- the MCP servers a key may use ----

  /** Sets which MCP servers and tools a key (virtual `vk_` or gateway `gk_` id) may see and call; absent fields stay (as on SQLite). */
  async setKeyMcpAccess(id: string, change: McpAccessChange): Promise<VirtualKeySummary | GatewayKeySummary> {
    const columns = Object.entries(storedMcpAccess(validMcpAccessChange(change)));
    const isGateway = id.startsWith('gk_');
    const row = isGateway ? await this.gatewayKeyRow(id) : await this.virtualKeyRow(id);
    const revoked = () => new GatewayError(409, 'invalid_request_error', `Key '${id}' is revoked`, 'id');
    if (row.revoked_at !== null) throw revoked();
    // Only while still active: a revoke on another instance in between wins.
    // Column names come from storedMcpAccess's fixed set, never from the request.
    const sets = columns.map(([column], index) => `${column} = $${index + 1}, `).join('');
    const changed = await this.bridge.queryForAdmin(
      `UPDATE ${isGateway ? 'gateway_keys' : 'virtual_keys'} SET ${sets}updated_at = $${columns.length + 1} WHERE id = $${columns.length + 2} AND revoked_at IS NULL RETURNING id`,
      [...columns.map(([, value]) => value), Date.now(), id],
    );
    if (changed.length === 0) throw revoked();
    await this.reloadNow();
    return isGateway ? this.getGatewayKey(id) : this.getVirtualKey(id);
  }

  /** Seals and opens other tables' secrets (MCP servers') with the team's data key, exactly as the SQLite store does. */
  valueSealer(): ValueSealer {
    return {
      seal: (context, plaintext) => sealSecret(this.publicKey, plaintext, context),
      open: (context, sealed) => {
        if (!this.privateKey) throw new Error('This key store is closed and cannot decrypt secrets');
        return openSecret(this.privateKey, this.publicKey, sealed, context);
      },
    };
  }

  // ---- keeping memory in step with the database ----

  /** Rereads the keys off this thread (a NOTIFY from another instance, or PostgreSQL back after an outage). */
  async reload(): Promise<void> {
    const ticket = ++this.reloads;
    const [virtual, gateway, names] = await this.bridge.run(this.reloadStatements(), { transaction: true });
    if (ticket < this.applied || this.closed) return;
    this.apply(ticket, virtual, gateway, names);
  }

  close(): void {
    this.closed = true;
    this.directory.clear();
    this.privateKey = undefined;
  }

  // ---- internals ----

  /**
   * Runs `write` once no other active key of either kind has `name` (case aside), in one transaction that
   * claims the name first (schema version 5): a taken name is the same 409 `key_name_taken` as on SQLite.
   * `ownId` is the key being renamed, which may keep its own name. Returns the write's rows.
   */
  private async writeWithFreeName(name: string, ownId: string | undefined, write: Statement): Promise<Record<string, unknown>[]> {
    try {
      return (await this.bridge.runForAdmin([{ sql: `SELECT ${CLAIM_KEY_NAME}($1, $2)`, params: [name, ownId ?? ''] }, write], { transaction: true }))[1];
    } catch (error) {
      throw nameTaken(error, name) ?? error;
    }
  }

  /** The gateway saw the key's server answer 404 to /v1/responses: later calls, on every instance, go translated from the start. */
  private learnChatOnly(id: string): void {
    if (this.closed) return;
    // Off the serving thread; a failed write is taught again by the next 404 (the call itself was already retried as Chat).
    void this.bridge
      .query('UPDATE virtual_keys SET chat_only = 1, updated_at = $1 WHERE id = $2 AND chat_only = 0 AND revoked_at IS NULL RETURNING id', [Date.now(), id])
      .then((changed) => (changed.length && !this.closed ? this.reload() : undefined))
      .catch(() => undefined);
  }

  /** After this instance's own change: the admin API's next read and the next request see it at once. */
  private async reloadNow(): Promise<void> {
    const ticket = ++this.reloads;
    const [virtual, gateway, names] = await this.bridge.runForAdmin(this.reloadStatements(), { transaction: true });
    if (ticket < this.applied || this.closed) return;
    this.apply(ticket, virtual, gateway, names);
  }

  private reloadStatements() {
    return [
      { sql: 'SELECT * FROM virtual_keys WHERE revoked_at IS NULL ORDER BY created_at, id' },
      { sql: 'SELECT * FROM gateway_keys WHERE revoked_at IS NULL' },
      { sql: 'SELECT id, name FROM virtual_keys UNION ALL SELECT id, name FROM gateway_keys' },
    ];
  }

  private apply(ticket: number, virtualRows: Record<string, unknown>[], gatewayRows: Record<string, unknown>[], names: Record<string, unknown>[]): void {
    this.applied = ticket;
    const virtual = virtualRows.map(virtualRow);
    const gateway = gatewayRows.map(gatewayRow);
    this.directory.replace(
      virtual.map((row) => ({ id: row.id, name: row.name, keyHash: row.key_hash, caller: this.virtualKeyCaller(row) })),
      gateway.map((row) => ({ id: row.id, name: row.name, keyHash: row.key_hash, caller: { kind: 'gateway-key', keyId: row.id, ...mcpAccessOfRow(row) } })),
    );
    this.allNames = new Map(names.map((row) => [String(row.id), String(row.name)]));
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

  private async virtualKeyRow(id: string): Promise<VirtualKeyRow> {
    const row = (await this.bridge.queryForAdmin('SELECT * FROM virtual_keys WHERE id = $1', [id]))[0];
    if (!row) throw notFound('virtual key', id);
    return virtualRow(row);
  }

  private async gatewayKeyRow(id: string): Promise<GatewayKeyRow> {
    const row = (await this.bridge.queryForAdmin('SELECT * FROM gateway_keys WHERE id = $1', [id]))[0];
    if (!row) throw notFound('gateway API key', id);
    return gatewayRow(row);
  }
}
