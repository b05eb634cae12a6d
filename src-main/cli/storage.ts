// Where the CLI's commands read and write: the same repositories a server runs on, on the same backend
// and by the same rule as `gatehouse serve` (--database-url, else GATEHOUSE_DATABASE_URL: team mode's
// PostgreSQL; else SQLite in --data-dir). A server on that storage hears each change as it hears its own
// (SQLite: it polls within a second; PostgreSQL: the change feed's NOTIFY). Every repository is opened on
// first use, so a command opens only what it reads, and looking creates nothing it did not ask for.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defaultDataDir } from '../app.js';
import type { KeyRepository } from '../core/key-repository.js';
import type { KeyLimitsRepository } from '../core/limits.js';
import type { McpServerRepository } from '../core/mcp-servers.js';
import type { ModelAllowListRepository } from '../core/model-allow-lists.js';
import type { RouteRepository } from '../core/route-repository.js';
import type { SettingsRepository } from '../core/settings.js';
import { DATABASE_FILE, openDatabase, type SqliteDatabase } from '../store/database.js';
import { chooseHeadlessKeyProtector, keyFileWarning, KEY_FILE_NAME } from '../store/key-protection.js';
import { headlessProtectionUpgrade } from '../store/keys/data-key.js';
import { KeyStore } from '../store/keys/key-store.js';
import { KeyLimitsTable } from '../store/key-limits.js';
import { McpServerStore } from '../store/mcp-servers.js';
import { ModelAllowListTable } from '../store/model-allow-lists.js';
import { RouteStore } from '../store/routes.js';
import { SettingsStore } from '../store/settings.js';

/** The flags every storage command takes. */
export const STORAGE_OPTIONS = { 'data-dir': { type: 'string' }, 'database-url': { type: 'string' } } as const;

export interface StorageFlags {
  'data-dir'?: string;
  'database-url'?: string;
}

/** Which storage a command's flags and environment name. */
export type StoragePlace = { backend: 'sqlite'; dataDir: string } | { backend: 'postgresql'; url: string; dataDir: string };

export function storagePlace(flags: StorageFlags, env: NodeJS.ProcessEnv): StoragePlace {
  const dataDir = flags['data-dir'] ?? defaultDataDir(env);
  const url = flags['database-url'] ?? (env.GATEHOUSE_DATABASE_URL || undefined);
  return url === undefined ? { backend: 'sqlite', dataDir } : { backend: 'postgresql', url, dataDir };
}

export interface KeysOpening {
  /** A store without a data key gets one (commands that add); else undefined for it, rather than a data key made as a side effect of looking. */
  create?: boolean;
  /** The data key's private half too, to open stored secrets (`mcp tools` connecting to a server itself). */
  unlock?: boolean;
}

export interface CliStorage {
  readonly place: StoragePlace;
  keys(opening?: KeysOpening): Promise<KeyRepository | undefined>;
  /** MCP servers, their secrets sealed with the keys' data key: undefined where keys(opening) is. */
  mcpServers(opening?: KeysOpening): Promise<McpServerRepository | undefined>;
  routes(): Promise<RouteRepository>;
  limits(): Promise<KeyLimitsRepository>;
  modelAllowLists(): Promise<ModelAllowListRepository>;
  settings(): Promise<SettingsRepository>;
  /** Said on stderr by commands that store a secret: null unless the data key sits beside the data (SQLite's key file). */
  protectionWarning(): Promise<string | null>;
}

/**
 * Opens the storage of `place` for `use` and closes it afterwards. Without `create`, a data dir that holds
 * no database yet gives undefined rather than a new one; a team database is always there to open.
 */
export async function withStorage<T>(place: StoragePlace, env: NodeJS.ProcessEnv, create: boolean, use: (storage: CliStorage | undefined) => Promise<T>): Promise<T> {
  if (place.backend === 'sqlite' && !create && !existsSync(join(place.dataDir, DATABASE_FILE))) return use(undefined);
  // PostgreSQL's stores and driver are loaded only for a team database: a command on a data dir starts without them.
  const opened = place.backend === 'sqlite' ? sqliteStorage(place, env) : await (await import('./postgres-storage.js')).postgresStorage(place, env);
  try {
    return await use(opened.storage);
  } finally {
    await opened.close();
  }
}

/** One value made on first use, and the same one after. */
export function once<T>(make: () => Promise<T>): () => Promise<T> {
  let made: Promise<T> | undefined;
  return () => (made ??= make());
}

/** A backend's storage for one command, and how to close what it opened. */
export interface OpenedStorage {
  storage: CliStorage;
  close(): void | Promise<void>;
}

function sqliteStorage(place: StoragePlace & { backend: 'sqlite' }, env: NodeJS.ProcessEnv): OpenedStorage {
  const db: SqliteDatabase = openDatabase(place.dataDir);
  const opened: KeyStore[] = [];
  // Sealing needs only the public half (so the CLI works beside a desktop app whose data key is in the OS keychain); opening a secret needs the whole key.
  const openKeys = async ({ create = false, unlock = false }: KeysOpening): Promise<KeyStore | undefined> => {
    if (!create && !KeyStore.isInitialised(db)) return undefined;
    const store = unlock
      ? await KeyStore.open(db, await chooseHeadlessKeyProtector(place.dataDir, env), headlessProtectionUpgrade(place.dataDir, env))
      : await KeyStore.openForWriting(db, () => chooseHeadlessKeyProtector(place.dataDir, env));
    opened.push(store);
    return store;
  };
  const storage: CliStorage = {
    place,
    keys: (opening = {}) => openKeys(opening),
    mcpServers: async (opening = {}) => {
      const keys = await openKeys(opening);
      return keys && new McpServerStore(db, keys.valueSealer());
    },
    routes: once(async () => new RouteStore(db)),
    limits: once(async () => new KeyLimitsTable(db)),
    modelAllowLists: once(async () => new ModelAllowListTable(db)),
    settings: once(async () => new SettingsStore(db)),
    protectionWarning: async () => (opened.some((store) => store.protectorMode === 'key-file') ? keyFileWarning(join(place.dataDir, KEY_FILE_NAME)) : null),
  };
  return {
    storage,
    close: () => {
      for (const store of opened) store.close();
      db.close();
    },
  };
}
