// Virtual keys and gateway API keys: stored as hashes, their provider secrets sealed (secret-box.ts),
// resolved from memory on every request and refreshed when any process (the CLI too) changes them.
import { randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';
import { hashKey, hashPresentedKey, VIRTUAL_KEY_PREFIX, type Caller, type KeyDirectory } from '../core/keys.js';
import { GatewayError, invalidRequest } from '../core/errors.js';
import { parseCustomHost } from '../core/custom-host.js';
import { getProvider } from '../providers/registry.js';
import type { CredentialField, ProviderAdapter, ProviderCredentials } from '../providers/types.js';
import type { SqliteDatabase } from './database.js';
import {
  describeProtectorMode,
  existingKeyFileProtector,
  masterKeyProtector,
  MASTER_KEY_ENV,
  retireKeyFile,
  type KeyProtector,
} from './key-protection.js';
import {
  deriveSealedValueKey,
  generateDataKeyPair,
  loadDataPrivateKey,
  openSealedValue,
  openSecret,
  publicKeyOf,
  sealSecret,
  SecretBoxError,
  type SecretContext,
} from './secret-box.js';

export const GATEWAY_KEY_PREFIX = 'gh-gk-';
/** 24 random bytes: 192 bits, above the 160 the contract asks for. */
const KEY_RANDOM_BYTES = 24;
/** Characters of the key kept for display: the prefix plus four random characters. */
const DISPLAY_PREFIX_RANDOM_CHARS = 4;
const KEY_STORE_FORMAT = 1;
const MAX_NAME_LENGTH = 100;

/** Credential fields by the names providers declare (`token`, `azure.resourceName` ...) → value. */
export type CredentialValues = Record<string, string>;

/** Spec §5.3 parameter names of the cloud headers, and the credential field each one fills. */
export const CLOUD_PARAMETERS: Readonly<Record<string, string>> = {
  cloud_a_resource_name: 'azure.resourceName',
  cloud_a_deployment_id: 'azure.deploymentId',
  cloud_a_api_version: 'azure.apiVersion',
  cloud_a_model_name: 'azure.modelName',
  cloud_b_project_id: 'vertex.projectId',
  cloud_b_region: 'vertex.region',
  cloud_b_llm_request_type: 'vertex.requestType',
  cloud_c_access_key_id: 'bedrock.accessKeyId',
  cloud_c_secret_access_key: 'bedrock.secretAccessKey',
  cloud_c_region: 'bedrock.region',
  cloud_c_session_token: 'bedrock.sessionToken',
};

const CREDENTIAL_GROUPS = ['azure', 'vertex', 'bedrock'] as const;

/** Accepts a credential field name, its spec parameter form (snake or camel case), or `token`. */
export function credentialFieldName(name: string): string | undefined {
  if (name === 'token' || name === 'secret') return 'token';
  const [group, field] = name.split('.');
  if (field !== undefined && (CREDENTIAL_GROUPS as readonly string[]).includes(group)) return name;
  const snake = name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  return CLOUD_PARAMETERS[snake];
}

export interface VirtualKeySummary {
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
}

export interface GatewayKeySummary {
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
}

export class KeyStoreLockedError extends Error {
  override name = 'KeyStoreLockedError';
}

interface KeyStoreRow {
  format: number;
  protector_mode: string;
  wrapped_private_key: Buffer;
  public_key: Buffer;
}

interface VirtualKeyRow {
  id: string;
  name: string;
  provider: string;
  custom_host: string | null;
  key_hash: Buffer;
  key_prefix: string;
  settings: string;
  credentials: Buffer | null;
  created_at: number;
  updated_at: number;
  revoked_at: number | null;
  default_model: string | null;
  /** JSON object; NULL when empty. */
  model_map: string | null;
  allow_routing: number;
}

interface GatewayKeyRow {
  id: string;
  name: string;
  key_hash: Buffer;
  key_prefix: string;
  created_at: number;
  updated_at: number;
  revoked_at: number | null;
}

interface ResolvedKey {
  keyHash: Buffer;
  caller: Caller;
}

export interface KeyStoreOpenOptions {
  /**
   * Protectors the data key may have been wrapped with before (say the key file, before the user
   * set GATEHOUSE_MASTER_KEY or moved to the desktop app). If the stored wrapping names one of
   * their modes, the key is unwrapped with it and rewrapped with the current protector.
   */
  previousProtectors?: readonly KeyProtector[];
  /** Called after a rewrap, e.g. to delete the key file that is no longer needed. */
  onRewrapped?(fromMode: string, toMode: string): void;
}

/**
 * Lets a store protected the headless way move to the protector in use now: from the key file to
 * GATEHOUSE_MASTER_KEY (the step the key-file warning recommends), or from either to the desktop
 * keychain. The key file is deleted once nothing depends on it.
 */
export function headlessProtectionUpgrade(dataDir: string, env: NodeJS.ProcessEnv): KeyStoreOpenOptions {
  const previousProtectors: KeyProtector[] = [];
  const masterKey = env[MASTER_KEY_ENV];
  if (masterKey !== undefined && masterKey.trim() !== '') previousProtectors.push(masterKeyProtector(masterKey));
  const keyFile = existingKeyFileProtector(dataDir);
  if (keyFile) previousProtectors.push(keyFile);
  return {
    previousProtectors,
    onRewrapped: (fromMode) => {
      if (fromMode === 'key-file') retireKeyFile(dataDir);
    },
  };
}

const isoTime = (ms: number) => new Date(ms).toISOString();
const isoTimeOrNull = (ms: number | null) => (ms === null ? null : isoTime(ms));

function newKey(prefix: string): { key: string; hash: Buffer; displayPrefix: string } {
  const key = `${prefix}${randomBytes(KEY_RANDOM_BYTES).toString('base64url')}`;
  return { key, hash: hashKey(key), displayPrefix: key.slice(0, prefix.length + DISPLAY_PREFIX_RANDOM_CHARS) };
}

function newId(kind: 'vk' | 'gk'): string {
  return `${kind}_${randomBytes(8).toString('hex')}`;
}

function validName(name: string): string {
  const trimmed = name.trim();
  if (!trimmed) throw invalidRequest("'name' must not be empty", 'name');
  if (trimmed.length > MAX_NAME_LENGTH) throw invalidRequest(`'name' must be at most ${MAX_NAME_LENGTH} characters`, 'name');
  return trimmed;
}

const MAX_MODEL_NAME_LENGTH = 256;
const MAX_MODEL_MAP_ENTRIES = 500;

function validModelName(value: string, param: string): string {
  const trimmed = value.trim();
  if (!trimmed) throw invalidRequest(`'${param}' must not be empty`, param);
  if (trimmed.length > MAX_MODEL_NAME_LENGTH) throw invalidRequest(`'${param}' must be at most ${MAX_MODEL_NAME_LENGTH} characters`, param);
  return trimmed;
}

function validDefaultModel(value: string | null | undefined): string | null {
  if (value === undefined || value === null || value.trim() === '') return null;
  return validModelName(value, 'defaultModel');
}

/** The map as stored: NULL when empty, else JSON of trimmed names. */
function validModelMap(map: Record<string, string> | undefined): string | null {
  if (map === undefined) return null;
  const entries = Object.entries(map);
  if (entries.length > MAX_MODEL_MAP_ENTRIES) throw invalidRequest(`'modelMap' may hold at most ${MAX_MODEL_MAP_ENTRIES} names`, 'modelMap');
  if (entries.length === 0) return null;
  const clean: Record<string, string> = {};
  for (const [from, to] of entries) {
    if (typeof to !== 'string') throw invalidRequest(`'modelMap.${from}' must be a model name`, `modelMap.${from}`);
    clean[validModelName(from, 'modelMap')] = validModelName(to, `modelMap.${from}`);
  }
  return JSON.stringify(clean);
}

function validCustomHost(customHost: string | null | undefined): string | null {
  if (customHost === undefined || customHost === null || customHost.trim() === '') return null;
  return parseCustomHost(customHost.trim(), 'customHost');
}

/** The field a bare "secret" fills: the token, or the first secret field (Bedrock's secret access key). */
export function mainSecretField(provider: ProviderAdapter): CredentialField | undefined {
  return provider.credentialFields.find((field) => field.name === 'token') ?? provider.credentialFields.find((field) => field.secret);
}

function toProviderCredentials(values: CredentialValues): ProviderCredentials {
  const credentials: ProviderCredentials = {};
  for (const [name, value] of Object.entries(values)) {
    if (name === 'token') {
      credentials.token = value;
      continue;
    }
    const [group, field] = name.split('.');
    if (field === undefined) continue;
    if (group === 'azure' || group === 'vertex' || group === 'bedrock') {
      const section: Record<string, string> = credentials[group] ?? {};
      section[field] = value;
      credentials[group] = section;
    }
  }
  return credentials;
}

/**
 * For a change of a key's host: each secret the key holds must be given again (400 naming the first one
 * missing), and the ones held are dropped from `current`, so the old secret is never sealed for the new host.
 */
function requireSecretsAgain(provider: ProviderAdapter, id: string, current: CredentialValues, change: VirtualKeyChange): void {
  const given = new Set(Object.keys(change.fields ?? {}).map((name) => credentialFieldName(name)));
  const main = mainSecretField(provider);
  if (change.secret !== undefined && change.secret !== '' && main) given.add(main.name);
  for (const field of provider.credentialFields) {
    if (!field.secret || !current[field.name]) continue;
    if (!given.has(field.name)) {
      const param = field.name === main?.name ? 'secret' : field.name;
      throw invalidRequest(`Changing the host of virtual key '${id}' needs its '${field.label}' again ('${param}'): a stored secret never follows a key to a new host`, param);
    }
    delete current[field.name];
  }
}

/** Checks credential fields against what the provider declares; returns them by canonical name. */
function validCredentials(provider: ProviderAdapter, secret: string | undefined, fields: Record<string, string | undefined>, base: CredentialValues, customHost: string | null): CredentialValues {
  const values: CredentialValues = { ...base };
  const declared = new Map(provider.credentialFields.map((field) => [field.name, field]));
  for (const [rawName, value] of Object.entries(fields)) {
    const name = credentialFieldName(rawName);
    if (!name || !declared.has(name)) {
      const known = [...declared.keys()].join(', ') || 'none';
      throw invalidRequest(`Provider '${provider.slug}' takes no credential field '${rawName}' (it takes: ${known})`, rawName);
    }
    if (value === undefined || value === '') delete values[name];
    else values[name] = value;
  }
  if (secret !== undefined && secret !== '') {
    const field = mainSecretField(provider);
    if (!field) throw invalidRequest(`Provider '${provider.slug}' takes no secret`, 'secret');
    values[field.name] = secret;
  }
  for (const field of provider.credentialFields) {
    // A custom host may be a local model that needs no token; the other fields still say where to go.
    const exempt = field.name === 'token' && customHost !== null;
    const standsIn = field.alternative !== undefined && Boolean(values[field.alternative]);
    if (field.required && !exempt && !standsIn && !values[field.name]) {
      throw invalidRequest(`A virtual key for '${provider.slug}' needs '${field.label}' (${field.name})`, field.name === mainSecretField(provider)?.name ? 'secret' : field.name);
    }
  }
  provider.checkCredentials?.(values);
  return values;
}

function nonSecretValues(provider: ProviderAdapter, values: CredentialValues): CredentialValues {
  const shown: CredentialValues = {};
  for (const field of provider.credentialFields) {
    if (!field.secret && values[field.name] !== undefined) shown[field.name] = values[field.name];
  }
  return shown;
}

function credentialsContext(id: string): SecretContext {
  return { table: 'virtual_keys', rowId: id, field: 'credentials' };
}

function undecryptable(id: string, error: unknown): unknown {
  if (!(error instanceof SecretBoxError)) return error;
  return new GatewayError(500, 'api_error', `The stored credentials of virtual key '${id}' cannot be decrypted (altered or moved); rotate its secret.`);
}

function notFound(kind: string, id: string): GatewayError {
  return new GatewayError(404, 'not_found_error', `No ${kind} with id '${id}'`, 'id');
}

export class KeyStore implements KeyDirectory {
  private virtualKeys = new Map<string, ResolvedKey>();
  private virtualKeysByName = new Map<string, Caller>();
  private gatewayKeys = new Map<string, ResolvedKey>();
  /** Names of the live keys by id, kept with the maps above: /metrics labels calls with them on every request. */
  private names = new Map<string, string>();
  private generation = -1;
  private stopWatching: (() => void) | undefined;
  private closed = false;

  private constructor(
    private readonly db: SqliteDatabase,
    private readonly publicKey: Buffer,
    /** Absent in a store opened only to add and revoke keys (the CLI): it never decrypts. */
    private privateKey: KeyObject | undefined,
    /** How the data key is protected, as recorded in the database. */
    readonly protectorMode: string,
  ) {
    this.reload();
  }

  /**
   * Opens the key store of a database for a server: creates the data key pair on first use, else
   * unwraps the private key. A wrong master key or another protector gives a KeyStoreLockedError.
   */
  static async open(db: SqliteDatabase, protector: KeyProtector, options: KeyStoreOpenOptions = {}): Promise<KeyStore> {
    let row = readKeyStoreRow(db);
    if (!row) {
      const pair = generateDataKeyPair();
      const wrapped = await protector.wrap(pair.privateKeyDer);
      // Another process may have initialised the store while we were wrapping: theirs wins.
      db.prepare('INSERT OR IGNORE INTO key_store (id, format, protector_mode, wrapped_private_key, public_key, created_at) VALUES (1, ?, ?, ?, ?, ?)').run(
        KEY_STORE_FORMAT,
        protector.mode,
        wrapped,
        pair.publicKey,
        Date.now(),
      );
      pair.privateKeyDer.fill(0);
      // Unwrapping what was just stored (below) also proves the protector can give the key back,
      // before any secret depends on it.
      row = readKeyStoreRow(db);
      if (!row) throw new Error('The key store could not be initialised');
    }
    if (row.format !== KEY_STORE_FORMAT) {
      throw new KeyStoreLockedError(`The key store was written in format ${row.format}, which this version of Gatehouse does not know. Update Gatehouse.`);
    }

    let unwrapWith = protector;
    if (row.protector_mode !== protector.mode) {
      const previous = options.previousProtectors?.find((candidate) => candidate.mode === row.protector_mode);
      if (!previous) {
        throw new KeyStoreLockedError(
          `The stored secrets are protected by ${describeProtectorMode(row.protector_mode)}, but this process uses ${describeProtectorMode(protector.mode)}. ` +
            `Start Gatehouse the way the keys were created (same ${row.protector_mode === 'key-file' ? 'data directory with its key file' : 'master key or desktop keychain'}); nothing was changed.`,
        );
      }
      unwrapWith = previous;
    }
    const privateKey = await unwrapPrivateKey(unwrapWith, row);
    if (unwrapWith !== protector) {
      const der = privateKey.export({ format: 'der', type: 'pkcs8' });
      const rewrapped = await protector.wrap(der);
      der.fill(0);
      // Durable before onRewrapped may delete the old key: WAL with synchronous=NORMAL does not fsync commits.
      const synchronous = db.pragma('synchronous', { simple: true }) as number;
      db.pragma('synchronous = FULL');
      try {
        db.prepare('UPDATE key_store SET protector_mode = ?, wrapped_private_key = ? WHERE id = 1').run(protector.mode, rewrapped);
      } finally {
        db.pragma(`synchronous = ${synchronous}`);
      }
      options.onRewrapped?.(row.protector_mode, protector.mode);
      return new KeyStore(db, row.public_key, privateKey, protector.mode);
    }
    return new KeyStore(db, row.public_key, privateKey, row.protector_mode);
  }

  /**
   * Opens the store to add, list and revoke keys without decrypting anything: sealing needs only
   * the public key. So the CLI works beside a desktop app whose data key is in the OS keychain.
   * Only an uninitialised store needs a protector (to wrap the new data key).
   */
  static async openForWriting(db: SqliteDatabase, protectorForFirstUse: () => Promise<KeyProtector>): Promise<KeyStore> {
    const row = readKeyStoreRow(db);
    if (!row) {
      const store = await KeyStore.open(db, await protectorForFirstUse());
      store.privateKey = undefined;
      return store;
    }
    return new KeyStore(db, row.public_key, undefined, row.protector_mode);
  }

  /** Whether a database already holds a data key (and so keys may depend on it). */
  static isInitialised(db: SqliteDatabase): boolean {
    return readKeyStoreRow(db) !== undefined;
  }

  // ---- lookups (hot path: memory only) ----

  resolve(presentedKey: string, keyHash?: Buffer): Caller | undefined {
    if (this.closed) return undefined;
    const hash = keyHash ?? hashPresentedKey(presentedKey);
    const map = presentedKey.startsWith(VIRTUAL_KEY_PREFIX) ? this.virtualKeys : this.gatewayKeys;
    const found = map.get(hash.toString('hex'));
    // The map is keyed by the hash, so timing reveals nothing about the key; compare anyway.
    if (!found || !timingSafeEqual(found.keyHash, hash)) return undefined;
    return found.caller;
  }

  /**
   * The active virtual key of this name, for route targets (memory only). Names are not unique in the
   * table: route validation refuses a name two active keys share, and here the newest wins.
   */
  virtualKeyByName(name: string): Caller | undefined {
    if (this.closed) return undefined;
    return this.virtualKeysByName.get(name);
  }

  /**
   * A key's name by its id (virtual or gateway key), from memory; a key revoked while its last calls
   * were in flight is read from the database. Undefined for an unknown id.
   */
  keyName(id: string): string | undefined {
    const known = this.names.get(id);
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
    for (const { caller } of this.virtualKeys.values()) if (caller.keyId === id) return caller;
    return undefined;
  }

  // ---- virtual keys ----

  createVirtualKey(input: NewVirtualKey): VirtualKeySummary & { key: string } {
    const name = validName(input.name);
    const provider = getProvider(input.provider.trim().toLowerCase());
    const customHost = validCustomHost(input.customHost);
    const values = validCredentials(provider, input.secret, input.fields ?? {}, {}, customHost);
    const defaultModel = validDefaultModel(input.defaultModel);
    const modelMap = validModelMap(input.modelMap);
    const id = newId('vk');
    const { key, hash, displayPrefix } = newKey(VIRTUAL_KEY_PREFIX);
    const now = Date.now();
    this.db
      .prepare(
        `INSERT INTO virtual_keys (id, name, provider, custom_host, key_hash, key_prefix, settings, credentials, created_at, updated_at, default_model, model_map, allow_routing)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(id, name, provider.slug, customHost, hash, displayPrefix, JSON.stringify(nonSecretValues(provider, values)), this.seal(id, values), now, now, defaultModel, modelMap, input.allowRouting ? 1 : 0);
    this.reload();
    return { ...this.getVirtualKey(id), key };
  }

  listVirtualKeys(options: { includeRevoked?: boolean } = {}): VirtualKeySummary[] {
    const rows = this.db
      .prepare(`SELECT * FROM virtual_keys ${options.includeRevoked ? '' : 'WHERE revoked_at IS NULL'} ORDER BY created_at DESC, id`)
      .all() as VirtualKeyRow[];
    return rows.map((row) => virtualKeySummary(row, this.lastUsed(row.id)));
  }

  getVirtualKey(id: string): VirtualKeySummary {
    return virtualKeySummary(this.virtualKeyRow(id), this.lastUsed(id));
  }

  /** Renames, replaces the credentials, rebinds the host or issues a new key string. */
  updateVirtualKey(id: string, change: VirtualKeyChange): VirtualKeySummary & { key?: string } {
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
      const current = this.privateKey && row.credentials ? this.openValues(id, row.credentials) : (JSON.parse(row.settings) as CredentialValues);
      // A key is bound to its host: a new host gets the secrets given with the change, never the old ones.
      if (customHost !== row.custom_host) requireSecretsAgain(provider, id, current, change);
      const values = validCredentials(provider, change.secret, change.fields ?? {}, current, customHost);
      sealed = this.seal(id, values);
      settings = JSON.stringify(nonSecretValues(provider, values));
    }
    const fresh = change.regenerateKey ? newKey(VIRTUAL_KEY_PREFIX) : undefined;
    const defaultModel = change.defaultModel === undefined ? row.default_model : validDefaultModel(change.defaultModel);
    const modelMap = change.modelMap === undefined ? row.model_map : validModelMap(change.modelMap);
    const allowRouting = change.allowRouting === undefined ? row.allow_routing : change.allowRouting ? 1 : 0;
    this.db
      .prepare('UPDATE virtual_keys SET name = ?, custom_host = ?, settings = ?, credentials = ?, key_hash = ?, key_prefix = ?, updated_at = ?, default_model = ?, model_map = ?, allow_routing = ? WHERE id = ?')
      .run(name, customHost, settings, sealed, fresh?.hash ?? row.key_hash, fresh?.displayPrefix ?? row.key_prefix, Date.now(), defaultModel, modelMap, allowRouting, id);
    this.reload();
    const summary = this.getVirtualKey(id);
    return fresh ? { ...summary, key: fresh.key } : summary;
  }

  /** Revoking forgets the sealed secret too: a revoked key has nothing left to decrypt. */
  revokeVirtualKey(id: string): VirtualKeySummary {
    const row = this.virtualKeyRow(id);
    if (row.revoked_at === null) {
      const now = Date.now();
      this.db.prepare('UPDATE virtual_keys SET revoked_at = ?, updated_at = ?, credentials = NULL WHERE id = ?').run(now, now, id);
      this.reload();
    }
    return this.getVirtualKey(id);
  }

  // ---- gateway API keys ----

  createGatewayKey(input: { name: string }): GatewayKeySummary & { key: string } {
    const name = validName(input.name);
    const id = newId('gk');
    const { key, hash, displayPrefix } = newKey(GATEWAY_KEY_PREFIX);
    const now = Date.now();
    this.db
      .prepare('INSERT INTO gateway_keys (id, name, key_hash, key_prefix, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(id, name, hash, displayPrefix, now, now);
    this.reload();
    return { ...this.getGatewayKey(id), key };
  }

  listGatewayKeys(options: { includeRevoked?: boolean } = {}): GatewayKeySummary[] {
    const rows = this.db
      .prepare(`SELECT * FROM gateway_keys ${options.includeRevoked ? '' : 'WHERE revoked_at IS NULL'} ORDER BY created_at DESC, id`)
      .all() as GatewayKeyRow[];
    return rows.map((row) => gatewayKeySummary(row, this.lastUsed(row.id)));
  }

  getGatewayKey(id: string): GatewayKeySummary {
    return gatewayKeySummary(this.gatewayKeyRow(id), this.lastUsed(id));
  }

  renameGatewayKey(id: string, newName: string): GatewayKeySummary {
    const row = this.gatewayKeyRow(id);
    this.db.prepare('UPDATE gateway_keys SET name = ?, updated_at = ? WHERE id = ?').run(validName(newName), Date.now(), row.id);
    this.reload();
    return this.getGatewayKey(id);
  }

  revokeGatewayKey(id: string): GatewayKeySummary {
    const row = this.gatewayKeyRow(id);
    if (row.revoked_at === null) {
      const now = Date.now();
      this.db.prepare('UPDATE gateway_keys SET revoked_at = ?, updated_at = ? WHERE id = ?').run(now, now, id);
      this.reload();
    }
    return this.getGatewayKey(id);
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
    this.virtualKeys = new Map();
    this.virtualKeysByName = new Map();
    this.gatewayKeys = new Map();
    this.names = new Map();
    this.privateKey = undefined;
  }

  // ---- internals ----

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
    const virtualKeys = new Map<string, ResolvedKey>();
    const virtualKeysByName = new Map<string, Caller>();
    // Oldest first, so the newest of a shared name is the one kept.
    virtual.sort((a, b) => a.created_at - b.created_at);
    for (const row of virtual) {
      const caller = this.virtualKeyCaller(row);
      virtualKeys.set(row.key_hash.toString('hex'), { keyHash: row.key_hash, caller });
      virtualKeysByName.set(row.name, caller);
    }
    this.virtualKeysByName = virtualKeysByName;
    const gatewayKeys = new Map<string, ResolvedKey>();
    for (const row of gateway) gatewayKeys.set(row.key_hash.toString('hex'), { keyHash: row.key_hash, caller: { kind: 'gateway-key', keyId: row.id } });
    this.virtualKeys = virtualKeys;
    this.gatewayKeys = gatewayKeys;
    this.names = new Map([...virtual, ...gateway].map((row) => [row.id, row.name]));
    this.generation = generation;
  }

  private virtualKeyCaller(row: VirtualKeyRow): Caller {
    const sealed = row.credentials;
    const id = row.id;
    // Only the ciphertext is held, plus (after first use) the key that opens this one value, which
    // spares the key agreement per request; the secret exists in clear for one request at a time.
    let valueKey: Buffer | undefined;
    return {
      kind: 'virtual-key',
      keyId: id,
      name: row.name,
      provider: row.provider,
      ...(row.custom_host ? { customHost: row.custom_host } : {}),
      ...(row.default_model ? { defaultModel: row.default_model } : {}),
      ...(row.model_map ? { modelMap: JSON.parse(row.model_map) as Record<string, string> } : {}),
      ...(row.allow_routing ? { allowRouting: true } : {}),
      loadCredentials: async () => {
        if (!sealed) return {};
        if (!this.privateKey) throw new Error('This key store was opened without the data key and cannot decrypt secrets');
        try {
          valueKey ??= deriveSealedValueKey(this.privateKey, this.publicKey, sealed);
          return toProviderCredentials(JSON.parse(openSealedValue(valueKey, sealed, credentialsContext(id))) as CredentialValues);
        } catch (error) {
          throw undecryptable(id, error);
        }
      },
    };
  }

  private seal(id: string, values: CredentialValues): Buffer {
    return sealSecret(this.publicKey, JSON.stringify(values), credentialsContext(id));
  }

  private openValues(id: string, sealed: Buffer): CredentialValues {
    if (!this.privateKey) throw new Error('This key store was opened without the data key and cannot decrypt secrets');
    try {
      return JSON.parse(openSecret(this.privateKey, this.publicKey, sealed, credentialsContext(id))) as CredentialValues;
    } catch (error) {
      throw undecryptable(id, error);
    }
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

function readKeyStoreRow(db: SqliteDatabase): KeyStoreRow | undefined {
  return db.prepare('SELECT format, protector_mode, wrapped_private_key, public_key FROM key_store WHERE id = 1').get() as KeyStoreRow | undefined;
}

async function unwrapPrivateKey(protector: KeyProtector, row: KeyStoreRow): Promise<KeyObject> {
  const lockedMessage =
    `Cannot unlock the stored secrets: they are protected by ${describeProtectorMode(row.protector_mode)}, and the key given does not open them. ` +
    (row.protector_mode === 'master-key' || row.protector_mode === 'passphrase'
      ? 'GATEHOUSE_MASTER_KEY is wrong or changed; start with the one the keys were created with. '
      : '') +
    'Nothing was changed; without that key the stored provider secrets cannot be recovered.';
  let der: Buffer;
  try {
    der = await protector.unwrap(row.wrapped_private_key);
  } catch (error) {
    // The protector's reason (a missing key file, a locked keychain) helps; it never holds key material.
    throw new KeyStoreLockedError(`${lockedMessage} (${(error as Error).message})`);
  }
  try {
    const privateKey = loadDataPrivateKey(der);
    // A protector that "unwraps" without authenticating (some keychains) must not hand back garbage.
    const derived = publicKeyOf(privateKey);
    if (derived.length !== row.public_key.length || !timingSafeEqual(derived, row.public_key)) throw new KeyStoreLockedError(lockedMessage);
    return privateKey;
  } catch (error) {
    if (error instanceof KeyStoreLockedError) throw error;
    throw new KeyStoreLockedError(lockedMessage);
  } finally {
    der.fill(0);
  }
}

function virtualKeySummary(row: VirtualKeyRow, lastUsedAt: number | null): VirtualKeySummary {
  return {
    id: row.id,
    name: row.name,
    provider: row.provider,
    customHost: row.custom_host,
    keyPrefix: row.key_prefix,
    settings: JSON.parse(row.settings) as CredentialValues,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
    revokedAt: isoTimeOrNull(row.revoked_at),
    lastUsedAt: isoTimeOrNull(lastUsedAt),
    defaultModel: row.default_model ?? null,
    modelMap: row.model_map ? (JSON.parse(row.model_map) as Record<string, string>) : {},
    allowRouting: row.allow_routing === 1,
  };
}

function gatewayKeySummary(row: GatewayKeyRow, lastUsedAt: number | null): GatewayKeySummary {
  return {
    id: row.id,
    name: row.name,
    keyPrefix: row.key_prefix,
    createdAt: isoTime(row.created_at),
    updatedAt: isoTime(row.updated_at),
    revokedAt: isoTimeOrNull(row.revoked_at),
    lastUsedAt: isoTimeOrNull(lastUsedAt),
  };
}
