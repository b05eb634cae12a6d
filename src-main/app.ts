// Composes Gatehouse from its parts: data dir, database, key store, request log, gateway server and
// admin API. The CLI (`gatehouse serve`) and the Electron main process both start it through here.
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync, chmodSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { AddressInfo } from 'node:net';
import { DATABASE_FILE, DatabaseOpenError, isSqliteDamage, openDatabase } from './store/database.js';
import { ThreadLogWriter } from './store/log-writer-thread.js';
import { replaySqliteSpills, spillSqliteRows } from './store/log-spill.js';
import { RequestLog } from './store/request-log.js';
import { SettingsStore } from './store/settings.js';
import { closeAll, type Closer } from './core/close-all.js';
import { DEFAULT_SETTINGS } from './core/settings.js';
import { KeyStore } from './store/keys/key-store.js';
import { headlessProtectionUpgrade } from './store/keys/data-key.js';
import { chooseHeadlessKeyProtector, type KeyProtector } from './store/key-protection.js';
import { chainKeyDirectories, environmentKeyDirectory } from './gateway/auth.js';
import { createGatewayServer, type ClientTimeouts } from './gateway/server.js';
import type { ConnectionLimits } from './gateway/connection-guard.js';
import { createMetricsHandler, GatewayMetrics } from './gateway/metrics.js';
import { RefusalCoalescer } from './gateway/refusal-log.js';
import { AgentSessions } from './gateway/agent-session.js';
import { clientOf } from './store/usage-client.js';
import { AdminTokenGuard, type AdminTokenGuardOptions } from './gateway/admin-token-guard.js';
import { createAdminHandler } from './admin/router.js';
import { isLoopbackHostname } from './core/loopback.js';
import { MIN_EXPOSED_TOKEN_BITS, estimateTokenBits } from './core/token-strength.js';
import { coreRoutes } from './admin/core-routes.js';
import { keyRoutes } from './admin/key-routes.js';
import { routeRoutes } from './admin/route-routes.js';
import { RouteStore } from './store/routes.js';
import { Router } from './gateway/routing/router.js';
import { usageRoutes } from './admin/usage-routes.js';
import { sessionRoutes } from './admin/session-routes.js';
import { SqliteSessions } from './store/session-queries.js';
import { PgSessions } from './store-postgres/sessions.js';
import type { SessionRepository } from './core/agent-sessions.js';
import { UsageStore } from './store/usage.js';
import { ModelOverrideStore } from './store/model-overrides.js';
import { backfillCosts } from './store/usage-backfill.js';
import { limitRoutes } from './admin/limit-routes.js';
import { modelAccessRoutes } from './admin/model-access-routes.js';
import { KeyLimitsService } from './gateway/limits/limits-service.js';
import { KeyLimitsTable } from './store/key-limits.js';
import type { KeyLimitCounters } from './gateway/limits/limit-counters.js';
import { openRedisLimits } from './gateway/limits/redis/open-redis-limits.js';
import { ModelAccess } from './gateway/model-access.js';
import { ModelAllowListTable } from './store/model-allow-lists.js';
import type { ModelAllowListRepository } from './core/model-allow-lists.js';
import { localRoutes } from './admin/local-routes.js';
import { DiscoveryService } from './discovery/service.js';
import { DEFAULT_PROBE_TIMEOUT_MS } from './discovery/probe.js';
import { DISCOVERY_PORTS_ENV, probePorts, probeTimeoutFrom, USUAL_PORTS, usualPorts } from './discovery/ports.js';
import { playgroundRoutes } from './admin/playground-routes.js';
import { SavedPromptStore } from './store/saved-prompts.js';
import type { AdminServices } from './admin/services.js';
import type { KeyProtection, KeyRepository } from './core/key-repository.js';
import type { RouteRepository } from './core/route-repository.js';
import type { SettingsRepository } from './core/settings.js';
import type { ModelOverrideRepository } from './core/model-overrides.js';
import type { UsageRepository } from './core/usage.js';
import type { KeyLimitsRepository } from './core/limits.js';
import type { SavedPromptRepository } from './core/saved-prompts.js';
import { masterKeyProtector, MASTER_KEY_ENV } from './store/key-protection.js';
import { checkDatabaseUrl, describeDatabaseUrl, openPostgresStore } from './store-postgres/open.js';
import type { McpServerRepository } from './core/mcp-servers.js';
import { McpServerStore } from './store/mcp-servers.js';
import { OnDemandMcpGateway } from './mcp/on-demand.js';
import { mcpRoutes } from './admin/mcp-routes.js';
import { teamGatewayRoutes } from './admin/team-gateway-routes.js';
import { teamRelayRoute } from './admin/team-relay.js';
import { TeamGatewayStore } from './store/team-gateway.js';
import type { TeamGatewayRepository } from './core/team-gateway.js';
import { DEFAULT_PREPARE_LIMITS, type PrepareLimits } from './gateway/prepare/prepare-pool.js';

export interface StartOptions {
  host?: string;
  port?: number;
  dataDir?: string;
  allowRemote?: boolean;
  keyProtection?: KeyProtector;
  /** A better-sqlite3 addon built for Electron's ABI (see STACK.md). */
  sqliteNativeBinding?: string;
  env?: NodeJS.ProcessEnv;
  /** Where status lines go (the CLI prints them; Electron may show them). */
  log?: (line: string) => void;
  maxBodyBytes?: number;
  /** How long refusals without a valid key are coalesced into one log row (refusal-log.ts); tests shorten it. */
  refusalWindowMs?: number;
  /** Tests shorten the admin token guard's windows (gateway/admin-token-guard.ts). */
  adminTokenGuard?: Partial<AdminTokenGuardOptions>;
  /** Tests shorten these to prove slow clients are cut off. */
  clientTimeouts?: Partial<ClientTimeouts>;
  /** Tests lower these to prove silent and surplus connections are closed. */
  connectionLimits?: Partial<ConnectionLimits>;
  /** The preparing threads' limits (gateway/prepare/prepare-pool.ts); tests lower them to prove a body cannot hold or blow up a thread. */
  prepareLimits?: Partial<PrepareLimits>;
  /** The clock of key limits (budget days and months, minute windows); tests pass a fake one. */
  limitsClock?: () => number;
  /** Team mode: how long Redis keeps a running call's reservation unrenewed (default 60 s; renewed every third of it). Tests shorten it. */
  reservationTtlMs?: number;
  /** Local server discovery: the probe's deadline per port and the time between sweeps. */
  discovery?: { timeoutMs?: number; intervalMs?: number };
  /**
   * A port kept outside Settings by an earlier version (the desktop app's desktop-settings.json): moved
   * into Settings → Network, the one place the port lives, unless that was changed from the default since.
   */
  adoptPort?: number;
  /** `port` is the person's new choice (the desktop's "Use port N" after a clash): saved in Settings → Network once bound. */
  rememberPort?: boolean;
  /** Team mode: PostgreSQL holds keys, routes, settings, the log and spend (else GATEHOUSE_DATABASE_URL; else SQLite in the data dir). */
  databaseUrl?: string;
  /** Limits decided in this Redis, shared by every instance on it (else GATEHOUSE_REDIS_URL; else in this process). */
  redisUrl?: string;
  /** Team mode: the name this instance's log rows show (else GATEHOUSE_INSTANCE_NAME; else the host name). */
  instanceName?: string;
}

/** Where an instance keeps its data: SQLite in the data dir, or team mode's PostgreSQL. */
interface Storage {
  /** For the status line: "SQLite (<file>)" or "PostgreSQL (<url without password>)". */
  description: string;
  /** Team mode: this instance's id, as its log rows name it. */
  instanceId: string | null;
  /** Team mode: the name it runs under (the Logs page's Instance column). */
  instanceName: string | null;
  settings: SettingsRepository;
  modelOverrides: ModelOverrideRepository;
  usage: UsageRepository;
  /** Agent sessions, read from the request log. */
  sessions: SessionRepository;
  keys: KeyRepository;
  keyProtection: KeyProtection;
  routes: RouteRepository;
  requestLog: RequestLog;
  limits: KeyLimitsRepository;
  modelAllowLists: ModelAllowListRepository;
  savedPrompts: SavedPromptRepository;
  /** MCP servers, their secrets sealed like provider secrets. */
  mcpServers: McpServerRepository;
  /** The desktop app's team gateway, its token sealed like provider secrets; null on a team instance. */
  teamGateway: TeamGatewayRepository | null;
  /** Work started once the server is up (SQLite: pricing rows of older versions). */
  background(stopped: AbortSignal): void;
  /** The closers, in the order they run. */
  closers: Closer[];
}

/** A port is a whole number from 0 to 65535; the message says which setting held the bad value, as written ("abc", not NaN). */
function checkPort(port: number, source: string): void {
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`Invalid port (${source}): a port is a whole number from 0 to 65535, e.g. GATEHOUSE_PORT=8787`);
}

/** A redis:// or rediss:// URL; the message names what is wrong. */
export function checkRedisUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error('--redis-url is not a URL: expected redis://host:port');
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') throw new Error(`--redis-url must start with redis:// or rediss:// (got ${parsed.protocol}//)`);
  return url;
}

async function openSqliteStorage(dataDir: string, options: StartOptions, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<Storage> {
  const db = openDatabase(dataDir, { nativeBinding: options.sqliteNativeBinding });
  const closers: Closer[] = [() => { db.close(); }];
  try {
    const settings = new SettingsStore(db);
    // The user's model prices and context windows reach the catalog before the first call is priced.
    const modelOverrides = new ModelOverrideStore(db);
    const protector = options.keyProtection ?? (await chooseHeadlessKeyProtector(dataDir, env));
    if (protector.warning) log(`Warning: ${protector.warning}`);
    // A store made with the key file moves to GATEHOUSE_MASTER_KEY (or the keychain) when one is set.
    const keys = await KeyStore.open(db, protector, headlessProtectionUpgrade(dataDir, env));
    closers.unshift(() => keys.close());
    // keys.close() stops the watching too.
    keys.watchForExternalChanges();
    // Rows the database refused until the last stop, kept in the data dir: written once, before any new row.
    const replayed = await replaySqliteSpills(db, dataDir);
    if (replayed > 0) log(`${replayed} request log rows kept by an earlier stop were written to the database.`);
    // Rows are written on a worker thread, so the SQLite work never comes out of a request's time.
    const writer = new ThreadLogWriter(db, { file: db.name, nativeBinding: options.sqliteNativeBinding });
    const requestLog = new RequestLog(db, { storeBodies: () => settings.get().storeBodies, writer, spill: spillSqliteRows(dataDir) });
    closers.unshift(() => requestLog.close());
    return {
      description: `SQLite (${join(dataDir, DATABASE_FILE)})`,
      instanceId: null,
      instanceName: null,
      settings,
      modelOverrides,
      usage: new UsageStore(db),
      sessions: new SqliteSessions(db),
      keys,
      keyProtection: protector,
      routes: new RouteStore(db),
      requestLog,
      limits: new KeyLimitsTable(db),
      modelAllowLists: new ModelAllowListTable(db),
      savedPrompts: new SavedPromptStore(db),
      mcpServers: new McpServerStore(db, keys.valueSealer()),
      teamGateway: new TeamGatewayStore(db, keys.valueSealer()),
      background: (stopped) => {
        // Rows logged by a version before costs were get theirs, a slice at a time, once.
        const costBackfill = setTimeout(() => {
          backfillCosts(db, () => stopped.aborted).catch((error: unknown) => log(`Pricing earlier log rows failed: ${(error as Error).message}`));
        }, 2_000);
        costBackfill.unref();
        stopped.addEventListener('abort', () => clearTimeout(costBackfill));
      },
      closers,
    };
  } catch (error) {
    // Already failing; the first error is the one to report.
    await closeAll(closers, () => undefined);
    throw error;
  }
}

/** Team mode: PostgreSQL, with GATEHOUSE_MASTER_KEY (the same on every instance) and never a key file. */
async function openTeamStorage(databaseUrl: string, redisUrl: string | undefined, instanceName: string | undefined, dataDir: string, env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<Storage> {
  checkDatabaseUrl(databaseUrl);
  const masterKey = env[MASTER_KEY_ENV];
  if (masterKey === undefined || masterKey.trim() === '') {
    throw new Error(
      `Team mode (--database-url) needs ${MASTER_KEY_ENV}: the provider secrets in PostgreSQL are sealed with it, and every instance must use the same one. ` +
        'Set it (32 random bytes in hex or base64, or a long passphrase); there is no key file in team mode.',
    );
  }
  const protector = masterKeyProtector(masterKey);
  if (!redisUrl) log('No --redis-url: limits are counted by this instance alone, so no other instance may serve from this database.');
  // The data dir keeps what PostgreSQL could not take by the end of a stop (store-postgres/spill.ts).
  const store = await openPostgresStore({ url: databaseUrl, protector, sharedLimits: Boolean(redisUrl), dataDir, instanceName });
  return {
    description: `PostgreSQL (${describeDatabaseUrl(databaseUrl)}), instance ${store.instanceName} (${store.instanceId})${redisUrl ? `, Redis (${describeDatabaseUrl(redisUrl)})` : ''}`,
    instanceId: store.instanceId,
    instanceName: store.instanceName,
    settings: store.settings,
    modelOverrides: store.modelOverrides,
    usage: store.usage,
    sessions: new PgSessions(store.bridge),
    keys: store.keys,
    keyProtection: protector,
    routes: store.routes,
    requestLog: store.requestLog,
    limits: store.limits,
    modelAllowLists: store.modelAllowLists,
    savedPrompts: store.savedPrompts,
    mcpServers: store.mcpServers,
    teamGateway: null,
    background: () => undefined,
    closers: [() => store.close()],
  };
}

export interface RunningGatehouse {
  url: string;
  host: string;
  port: number;
  adminToken: string;
  adminTokenSource: AdminTokenSource;
  dataDir: string;
  /** Where this instance keeps its data, for the status line: SQLite (file) or PostgreSQL (URL without password). */
  storage: string;
  /** Team mode: this instance's id, as its log rows name it; null on SQLite. */
  instanceId: string | null;
  services: AdminServices;
  stop(): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
/** In-flight requests get this long on shutdown; with the log flush after it, a stop stays within the contract's 5 s. */
const SHUTDOWN_GRACE_MS = 4_000;
/** A request cut at the deadline still writes its log row; its handler gets this long to do so. */
const HANDLER_SETTLE_MS = 500;

/** The folder that holds package.json, from the sources (tsx) or from the build (out/main). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    dir = dirname(dir);
  }
  throw new Error('Cannot find the Gatehouse package folder');
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string }).version;
}

export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.GATEHOUSE_DATA_DIR) return env.GATEHOUSE_DATA_DIR;
  const home = env.HOME ?? env.USERPROFILE ?? '.';
  if (process.platform === 'darwin') return join(home, 'Library', 'Application Support', 'Gatehouse');
  if (process.platform === 'win32') return join(env.APPDATA ?? join(home, 'AppData', 'Roaming'), 'Gatehouse');
  return join(env.XDG_CONFIG_HOME ?? join(home, '.config'), 'Gatehouse');
}


/** Where the admin token came from: `serve` prints it only when it made it, and never its value otherwise. */
export type AdminTokenSource = { kind: 'environment' } | { kind: 'file' | 'generated'; file: string };

/** `GATEHOUSE_ADMIN_TOKEN`, or one generated once into `<data dir>/admin-token` (mode 0600). */
export function loadAdminToken(dataDir: string, env: NodeJS.ProcessEnv): { token: string; source: AdminTokenSource } {
  if (env.GATEHOUSE_ADMIN_TOKEN) return { token: env.GATEHOUSE_ADMIN_TOKEN, source: { kind: 'environment' } };
  const file = join(dataDir, 'admin-token');
  if (existsSync(file)) {
    chmodSync(file, 0o600);
    return { token: readFileSync(file, 'utf8').trim(), source: { kind: 'file', file } };
  }
  const token = randomBytes(32).toString('base64url');
  writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  return { token, source: { kind: 'generated', file } };
}

/**
 * With --allow-remote or in team mode other machines reach the admin API, which can run commands (a
 * stdio MCP server): a token a machine could guess is refused before anything listens.
 */
function refuseWeakAdminToken(token: string, source: AdminTokenSource, exposedBy: string): void {
  const bits = estimateTokenBits(token);
  if (bits >= MIN_EXPOSED_TOKEN_BITS) return;
  const where = source.kind === 'environment' ? 'GATEHOUSE_ADMIN_TOKEN' : source.file;
  const fix =
    source.kind === 'environment'
      ? 'set a random one, e.g. GATEHOUSE_ADMIN_TOKEN=$(openssl rand -base64 32), or unset it to have one generated into the data dir'
      : `replace it with a random one (e.g. openssl rand -base64 32), or delete the file to have one generated`;
  throw new Error(
    `Refusing to start ${exposedBy}: the admin token in ${where} is too easy to guess (about ${Math.floor(bits)} bits; ` +
      `at least ${MIN_EXPOSED_TOKEN_BITS} are needed when other machines can reach the admin API). To fix it, ${fix}.`,
  );
}

/** The log's queue in Prometheus text: rows waiting to be written, and rows lost (the queue was full, or a stop could neither write nor keep them). */
function logQueueMetrics(log: RequestLog): string {
  return [
    '# HELP gatehouse_log_queue_rows Request log rows waiting in memory to be written (queued, or refused by the database and kept for a retry).',
    '# TYPE gatehouse_log_queue_rows gauge',
    `gatehouse_log_queue_rows ${log.pendingCount}`,
    '# HELP gatehouse_log_dropped_rows_total Request log rows lost since start: the waiting rows passed their bound, or the log closed with rows it could neither write nor keep.',
    '# TYPE gatehouse_log_dropped_rows_total counter',
    `gatehouse_log_dropped_rows_total ${log.droppedCount}`,
    '',
  ].join('\n');
}

export async function startGatehouse(options: StartOptions = {}): Promise<RunningGatehouse> {
  const env = options.env ?? process.env;
  const dataDir = options.dataDir ?? defaultDataDir(env);
  const log = options.log ?? (() => undefined);

  // A port given by flag or environment is checked before any storage is opened: its mistake is the one to report.
  const givenPort = options.port ?? (env.GATEHOUSE_PORT !== undefined ? Number(env.GATEHOUSE_PORT) : undefined);
  if (givenPort !== undefined) checkPort(givenPort, options.port !== undefined ? `--port ${options.port}` : `GATEHOUSE_PORT=${env.GATEHOUSE_PORT}`);
  const databaseUrl = options.databaseUrl ?? (env.GATEHOUSE_DATABASE_URL || undefined);
  const redisUrl = options.redisUrl ?? (env.GATEHOUSE_REDIS_URL || undefined);
  if (redisUrl !== undefined) checkRedisUrl(redisUrl);
  const exposedBy = options.allowRemote ? 'with --allow-remote' : databaseUrl ? 'in team mode' : undefined;
  // A weak token from the environment is reported before any storage is opened (or waited for).
  if (exposedBy && env.GATEHOUSE_ADMIN_TOKEN) refuseWeakAdminToken(env.GATEHOUSE_ADMIN_TOKEN, { kind: 'environment' }, exposedBy);
  const storage = databaseUrl ? await openTeamStorage(databaseUrl, redisUrl, options.instanceName ?? (env.GATEHOUSE_INSTANCE_NAME || undefined), dataDir, env, log) : await openSqliteStorage(dataDir, options, env, log);
  const closers = storage.closers;
  try {
    log(`Storage: ${storage.description}`);
    const { settings, modelOverrides, usage, sessions: sessionReads, keys, routes, requestLog } = storage;
    const protector = storage.keyProtection;
    // The caller's choice (flags, the desktop's own), then the environment, then what was saved in Settings.
    let saved = settings.get();
    if (options.adoptPort !== undefined && options.adoptPort !== saved.port && saved.port === DEFAULT_SETTINGS.port) {
      saved = await settings.update({ port: options.adoptPort });
    }
    const host = options.host ?? env.GATEHOUSE_HOST ?? saved.host;
    const port = givenPort ?? saved.port;
    checkPort(port, `the saved port ${saved.port}`);
    if (!isLoopbackHostname(host) && !options.allowRemote) {
      throw new Error(`Refusing to listen on ${host}: it is not a loopback address. Pass --allow-remote to expose Gatehouse to other machines.`);
    }
    const keyDirectory = chainKeyDirectories(keys, environmentKeyDirectory(env.GATEWAY_API_KEY));
    // The route table lives in memory; changes from the admin API reach it at once, the CLI's within a second.
    const router = new Router({ keyByName: (name) => keys.virtualKeyByName(name) });
    router.setRoutes(routes.definitions());
    closers.unshift(routes.watch((table) => router.setRoutes(table)));
    const { token: adminToken, source: adminTokenSource } = loadAdminToken(dataDir, env);
    if (exposedBy) refuseWeakAdminToken(adminToken, adminTokenSource, exposedBy);
    // Limits per key: checked in memory, or in Redis when instances share them; spend written back about
    // once a second and on stop either way.
    const redisLimits = redisUrl
      ? await openRedisLimits(redisUrl, { log, now: options.limitsClock, reservationTtlMs: options.reservationTtlMs, whenDown: () => settings.get().teamLimitsWhenRedisDown })
      : undefined;
    if (redisLimits) {
      closers.unshift(() => redisLimits.close());
      log(`Limits: decided in Redis at ${redisLimits.where}`);
    }
    const limits = await KeyLimitsService.start<KeyLimitCounters>(storage.limits, { now: options.limitsClock, counters: redisLimits?.counters });
    closers.unshift(() => limits.close());
    // Which models each key may call: in memory, reloaded when the lists change.
    const modelAccess = await ModelAccess.open(storage.modelAllowLists);
    closers.unshift(() => modelAccess.close());

    let usual: number[];
    try {
      usual = usualPorts(env);
    } catch (error) {
      log(`Warning: ${DISCOVERY_PORTS_ENV} ignored: ${(error as Error).message}`);
      usual = [...USUAL_PORTS];
    }
    const discovery = new DiscoveryService({
      // Read at each sweep: Settings may have added ports; the gateway never probes itself.
      ports: () => probePorts(usual, settings.get().discoveryPorts, [services.listening.port]),
      timeoutMs: options.discovery?.timeoutMs ?? probeTimeoutFrom(env, DEFAULT_PROBE_TIMEOUT_MS),
      intervalMs: options.discovery?.intervalMs,
      log,
    });
    closers.unshift(() => discovery.stop());

    // Counted from each call's log entry as it is handed over (no work of its own on the request's path).
    const metrics = new GatewayMetrics({ keyName: (id) => keys.keyName(id), hasEnvironmentKey: Boolean(env.GATEWAY_API_KEY), extraFamilies: redisLimits?.metrics });
    // A burst of refusals without a valid key is one row per window, so it cannot push real history out.
    const refusals = new RefusalCoalescer((entry) => requestLog.append(entry), options.refusalWindowMs);
    closers.unshift(() => refusals.flush());
    const shutdown = new AbortController();
    // MCP servers: the configuration in storage (secrets sealed with the keys' data key); the CLI's changes,
    // and other team instances', reach the running gateway within a second, as keys' do.
    const mcpServers = storage.mcpServers;
    // Every row's agent session, given once here, where every kind of call is logged (gateway/agent-session.ts).
    const sessions = new AgentSessions((userAgent) => clientOf(userAgent, null));
    const logCall = (record: Parameters<AdminServices['proxy']['log']>[0]) => {
      const entry = sessions.stamp(record);
      metrics.observe(entry);
      if (!refusals.absorb(entry)) requestLog.append(entry);
    };
    // The one check of the admin token, for the admin API and /metrics: wrong tokens throttled per address.
    const adminTokenGuard = new AdminTokenGuard(adminToken, logCall, options.adminTokenGuard);
    const mcp = new OnDemandMcpGateway(
      { version: packageVersion(), log: logCall, keyDefault: () => settings.get().mcpKeyDefault, saveOAuth: (server, change) => mcpServers.saveOAuth(server, change) },
      { keys: keyDirectory, limits: limits.limiter, maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES, allowRemote: options.allowRemote, onBrowserRefused: (reason) => metrics.refused(reason) },
      (message) => log(`Warning: ${message}`),
    );
    try {
      mcp.setServers(await mcpServers.connections());
    } catch (error) {
      log(`Warning: MCP servers not loaded: ${(error as Error).message}`);
    }
    closers.unshift(mcpServers.watch((servers) => mcp.setServers(servers)));
    const services: AdminServices = {
      version: packageVersion(),
      dataDir,
      adminToken,
      listening: { host, port },
      requestLog,
      settings,
      keys,
      routes,
      router,
      limits,
      modelAccess,
      keyProtection: protector,
      discovery,
      // What every proxied call needs; the admin Playground runs its calls with the same.
      proxy: {
        keys: keyDirectory,
        router,
        log: logCall,
        maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
        limits: limits.limiter,
        modelAccess,
        prepareLimits: options.prepareLimits && { ...DEFAULT_PREPARE_LIMITS, ...options.prepareLimits },
      },
      savedPrompts: storage.savedPrompts,
      mcpServers,
      mcp,
      teamGateway: storage.teamGateway,
      storage: { backend: databaseUrl ? 'postgresql' : 'sqlite', instanceId: storage.instanceId, instanceName: storage.instanceName },
      shutdown: shutdown.signal,
    };
    const uiDir = join(packageRoot(), 'out', 'renderer');
    const inFlight = new Set<Promise<void>>();
    const server = createGatewayServer({
      trackRequest: (handled) => {
        inFlight.add(handled);
        // then() with both handlers is what finally() does here, with two promises fewer per request.
        const untrack = () => inFlight.delete(handled);
        void handled.then(untrack, (error: unknown) => {
          untrack();
          throw error;
        });
      },
      clientTimeouts: options.clientTimeouts,
      allowRemote: options.allowRemote,
      onBrowserRefused: (reason) => metrics.refused(reason),
      connectionLimits: options.connectionLimits,
      ...services.proxy,
      handleAdmin: createAdminHandler([...coreRoutes, ...keyRoutes, ...routeRoutes, ...usageRoutes(usage, modelOverrides), ...sessionRoutes(sessionReads), ...limitRoutes, ...modelAccessRoutes, ...playgroundRoutes, ...localRoutes, ...mcpRoutes, ...teamGatewayRoutes, teamRelayRoute], services, { allowRemote: options.allowRemote, tokenGuard: adminTokenGuard }),
      handleMcp: mcp.handle,
      handleMetrics: createMetricsHandler(metrics, adminTokenGuard, () => logQueueMetrics(requestLog)),
      uiDir: existsSync(join(uiDir, 'index.html')) ? uiDir : undefined,
    });

    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    const bound = (server.address() as AddressInfo).port;
    if (options.rememberPort && options.port !== undefined) await settings.update({ port: bound });
    services.listening = { host, port: bound };
    const urlHost = host.includes(':') ? `[${host}]` : host;
    const url = `http://${urlHost}:${bound}`;

    const prune = () => {
      const { retentionDays, maxLogRows } = settings.get();
      void requestLog.prune(retentionDays * 86_400_000, maxLogRows).catch((error: unknown) => log(`Log pruning failed: ${(error as Error).message}`));
    };
    const pruneTimer = setInterval(prune, 10 * 60_000);
    pruneTimer.unref();
    const firstPrune = setTimeout(prune, 5_000);
    firstPrune.unref();
    storage.background(shutdown.signal);
    // Once the port is known (so it is left out); in the background, so it never delays serving.
    discovery.start();

    let stopping: Promise<void> | undefined;
    const stop = () =>
      (stopping ??= (async () => {
        clearInterval(pruneTimer);
        clearTimeout(firstPrune);
        discovery.stop();
        shutdown.abort();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        // A keep-alive connection whose request ends during the grace period would otherwise idle on for
        // the keep-alive timeout and hold the stop up.
        server.closeIdleConnections();
        const sweep = setInterval(() => server.closeIdleConnections(), 50);
        // In-flight calls get a grace period, then their connections are cut (which aborts the provider calls).
        const grace = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
        await closed;
        clearTimeout(grace);
        clearInterval(sweep);
        let settleTimer: NodeJS.Timeout | undefined;
        await Promise.race([Promise.allSettled(inFlight), new Promise((resolve) => (settleTimer = setTimeout(resolve, HANDLER_SETTLE_MS)))]);
        clearTimeout(settleTimer);
        // Stdio servers are ended (stdin closed, then signals) before the database closes.
        await mcp.close();
        // Each closer runs whatever an earlier one threw: the log's close (its flush, its spill) must run.
        await closeAll(closers, (error) => log(`Stopping: ${error.message}`));
      })());

    return { url, host, port: bound, adminToken, adminTokenSource, dataDir, storage: storage.description, instanceId: storage.instanceId, services, stop };
  } catch (error) {
    // Already failing; the first error is the one to report.
    await closeAll(closers, () => undefined);
    // Damage found past the first reads (in the key tables, say) gets the same clear words as at open.
    if (isSqliteDamage(error)) {
      throw new DatabaseOpenError(`${join(dataDir, DATABASE_FILE)} is damaged (${(error as Error).message}). It was left untouched; move it away, or restore a backup, to start afresh.`);
    }
    throw error;
  }
}
