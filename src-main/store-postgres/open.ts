// Team mode's storage: every contract of core/ on one PostgreSQL database, opened for one instance. The
// schema is migrated (under a lock), the instance registered, and a LISTEN connection keeps this
// instance's in-memory keys, routes, limits, settings and MCP servers in step with every other instance's changes.
import type { KeyProtector } from '../store/key-protection.js';
import { closeAll } from '../core/close-all.js';
import { RequestLog } from '../store/request-log.js';
import { ChangeFeed } from './change-feed.js';
import { InstanceRegistration, instanceNameOf, newInstanceId } from './instances.js';
import { PgKeyLimitsStore } from './key-limits.js';
import { PgModelAllowListStore } from './model-allow-lists.js';
import { PgKeyStore } from './key-store.js';
import { PgMcpServerStore } from './mcp-servers.js';
import { PgBridge } from './pg-bridge.js';
import { PgLogQueries, PgLogWriter } from './request-log.js';
import { PgRouteStore } from './routes.js';
import { PgSavedPromptStore } from './saved-prompts.js';
import { migrate } from './schema.js';
import { PgModelOverrideStore, PgSettingsStore } from './settings.js';
import { PgUsageStore } from './usage.js';
import { replaySpills, spillSpend } from './spill.js';
import { spillRows } from '../store/spill-file.js';

export interface PostgresStoreOptions {
  url: string;
  protector: KeyProtector;
  /** Whether limits are shared across instances (Redis): without, a second live instance is refused. */
  sharedLimits: boolean;
  instanceId?: string;
  /** The name the Logs page shows for this instance's rows (--instance-name); default the host name. */
  instanceName?: string;
  /**
   * The instance's data dir: log rows and key spend PostgreSQL did not take by the end of a stop are kept
   * there (spill.ts) and written at the next start, before anything is served. Without it they are lost.
   */
  dataDir?: string;
}

export interface PostgresStore {
  instanceId: string;
  instanceName: string;
  bridge: PgBridge;
  settings: PgSettingsStore;
  modelOverrides: PgModelOverrideStore;
  usage: PgUsageStore;
  keys: PgKeyStore;
  routes: PgRouteStore;
  limits: PgKeyLimitsStore;
  modelAllowLists: PgModelAllowListStore;
  savedPrompts: PgSavedPromptStore;
  mcpServers: PgMcpServerStore;
  requestLog: RequestLog;
  instances: InstanceRegistration;
  changes: ChangeFeed;
  /**
   * Stops listening, flushes the log, leaves the instances table and closes the pool (the limiter is
   * closed first by the caller). Each step waits off the serving thread, within the admin bound; what a
   * PostgreSQL that hangs did not take is spilled.
   */
  close(): Promise<void>;
}

/** A URL is a PostgreSQL one (postgres:// or postgresql://); the message names what is wrong. */
export function checkDatabaseUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`--database-url is not a URL: expected postgres://user:password@host:port/database`);
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') throw new Error(`--database-url must start with postgres:// (got ${parsed.protocol}//)`);
  return url;
}

/** The URL with its password hidden, for status lines. */
export function describeDatabaseUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

export async function openPostgresStore(options: PostgresStoreOptions): Promise<PostgresStore> {
  checkDatabaseUrl(options.url);
  await migrate(options.url);
  const bridge = new PgBridge({ url: options.url });
  const closers: (() => void | Promise<void>)[] = [() => bridge.close()];
  try {
    const instanceId = options.instanceId ?? newInstanceId();
    const instanceName = instanceNameOf(options.instanceName);
    // What an earlier stop could not write: before the limiter reads the spend, and before any call; and
    // before registering, since it also takes back the registration of the instance that stopped.
    if (options.dataDir) {
      const written = await replaySpills(bridge, options.dataDir);
      if (written > 0) console.error(`Gatehouse: ${written} request log rows kept by an earlier stop were written to PostgreSQL.`);
    }
    const instances = await InstanceRegistration.register(bridge, { id: instanceId, name: instanceName, sharedLimits: options.sharedLimits });
    closers.unshift(() => instances.close());
    const changes = new ChangeFeed(options.url);
    // Listening before the first reads: a change committed in between is heard, not missed.
    await changes.start();
    closers.unshift(() => changes.stop());
    const settings = await PgSettingsStore.open(bridge);
    const modelOverrides = await PgModelOverrideStore.open(bridge);
    const keys = await PgKeyStore.open(bridge, options.protector);
    closers.unshift(() => keys.close());
    const routes = await PgRouteStore.open(bridge);
    const limits = new PgKeyLimitsStore(bridge, options.dataDir ? spillSpend(options.dataDir, instanceId) : undefined, instanceId);
    const modelAllowLists = new PgModelAllowListStore(bridge);
    // Sealed with the keys' data key, as on SQLite.
    const mcpServers = new PgMcpServerStore(bridge, keys.valueSealer());
    closers.unshift(() => limits.close());
    let logClosed = false;
    const requestLog = new RequestLog(null, {
      // Larger batches than SQLite's: each is one round trip, and the writing is on another thread anyway.
      batchSize: 256,
      storeBodies: () => settings.get().storeBodies,
      writer: new PgLogWriter(bridge, instanceId),
      queries: new PgLogQueries(bridge, () => logClosed),
      // Rows told to the live feed as they are written name the instance as rows read back do.
      instance: { id: instanceId, name: instanceName },
      spill: options.dataDir ? spillRows(options.dataDir, instanceId) : undefined,
    });
    closers.unshift(() => {
      logClosed = true;
      return requestLog.close();
    });
    const refresh = (work: Promise<void>) => work.catch((error: unknown) => console.error(`Gatehouse: reloading from PostgreSQL failed: ${(error as Error).message}`));
    changes.on((topic) => {
      if (topic === 'keys') {
        void refresh(keys.reload());
        limits.markChanged();
        modelAllowLists.markChanged();
      } else if (topic === 'routes') void refresh(routes.reload());
      else if (topic === 'limits') {
        limits.markChanged();
        modelAllowLists.markChanged();
      }
      else if (topic === 'settings') void refresh(Promise.all([settings.reload(), modelOverrides.reload()]).then(() => undefined));
      else if (topic === 'mcp_servers') void refresh(mcpServers.reload());
    });
    return {
      instanceId,
      instanceName,
      bridge,
      settings,
      modelOverrides,
      usage: new PgUsageStore(bridge),
      keys,
      routes,
      limits,
      modelAllowLists,
      savedPrompts: new PgSavedPromptStore(bridge),
      mcpServers,
      requestLog,
      instances,
      changes,
      close: () => closeAll(closers, (error) => console.error(`Gatehouse: closing the PostgreSQL store: ${error.message}`)),
    };
  } catch (error) {
    // Already failing; the first error is the one to report.
    await closeAll(closers, () => undefined);
    throw error;
  }
}

