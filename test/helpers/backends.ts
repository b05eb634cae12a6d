// The storage backends a suite runs on: SQLite in a data dir (the desktop) and PostgreSQL (team mode), so
// one suite checks both against the same contract (`describe.each(backends())`). PostgreSQL is a private
// cluster started on the first use in a test file and stopped by that backend's close(); each gateway or
// set of stores gets a fresh database in it. GATEHOUSE_TEST_BACKENDS=sqlite runs the SQLite half alone.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { DATABASE_FILE, openDatabase, type SqliteDatabase } from '../../src-main/store/database.js';
import { RequestLog } from '../../src-main/store/request-log.js';
import { UsageStore } from '../../src-main/store/usage.js';
import { masterKeyProtector } from '../../src-main/store/key-protection.js';
import { openPostgresStore } from '../../src-main/store-postgres/open.js';
import { PgUsageStore } from '../../src-main/store-postgres/usage.js';
import type { UsageRepository } from '../../src-main/core/usage.js';
import { startGateway, TEST_MASTER_KEY, type StartGatewayOptions, type TestGateway } from './gateway.js';
import { startPostgres, type TestPostgres } from './postgres.js';

export type BackendName = 'SQLite' | 'PostgreSQL';

/** The storage contracts opened directly, without a gateway. */
export interface BackendStores {
  requestLog: RequestLog;
  /** The Usage report over this database, with the clock given (local days). */
  usage(now?: () => Date): UsageRepository;
  /** SQL in this backend's dialect (`?` placeholders for both), for what a test checks beneath the contract. */
  sql<Row = Record<string, unknown>>(text: string, params?: unknown[]): Promise<Row[]>;
  /** The SQLite database itself, for what only SQLite has (undefined on PostgreSQL). */
  db?: SqliteDatabase;
  close(): Promise<void>;
}

export interface SharedGateways {
  gateways: TestGateway[];
  close(): Promise<void>;
}

/** Started one after another: each migrates or finds the schema in place before the next one starts. */
async function startEach(count: number, start: () => Promise<TestGateway>): Promise<TestGateway[]> {
  const gateways: TestGateway[] = [];
  try {
    for (let i = 0; i < count; i++) gateways.push(await start());
  } catch (error) {
    await Promise.all(gateways.map((gateway) => gateway.close().catch(() => undefined)));
    throw error;
  }
  return gateways;
}

const closeAll = (gateways: TestGateway[]) => Promise.all(gateways.map((gateway) => gateway.close().catch(() => undefined))).then(() => undefined);

export interface Backend {
  name: BackendName;
  /** A gateway on a fresh database of this backend. */
  gateway(options?: StartGatewayOptions): Promise<TestGateway>;
  /** SQL against a gateway's database (started by `gateway()`), `?` placeholders. */
  sql<Row = Record<string, unknown>>(gateway: TestGateway, text: string, params?: unknown[]): Promise<Row[]>;
  stores(): Promise<BackendStores>;
  /** `count` gateways on one database of this backend (SQLite: one data dir; PostgreSQL: one database), as
   *  instances of one deployment; close() stops them and drops what they shared. */
  sharedGateways(count: number, options?: StartGatewayOptions): Promise<SharedGateways>;
  /** Stops what the backend started for this file (the PostgreSQL cluster). */
  close(): Promise<void>;
}

/** `?` placeholders numbered as PostgreSQL wants them. */
const numbered = (text: string) => {
  let index = 0;
  return text.replace(/\?/g, () => `$${++index}`);
};

async function pgQuery<Row>(url: string, text: string, params: unknown[]): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url, types: { getTypeParser: (oid, format) => (oid === 20 || oid === 1700 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format)) } });
  await client.connect();
  try {
    return (await client.query(numbered(text), params)).rows as Row[];
  } finally {
    await client.end();
  }
}

function sqliteQuery<Row>(file: string, text: string, params: unknown[]): Row[] {
  const db = new Database(file);
  try {
    const statement = db.prepare(text);
    return (statement.reader ? statement.all(...params) : (statement.run(...params), [])) as Row[];
  } finally {
    db.close();
  }
}

function sqliteBackend(): Backend {
  return {
    name: 'SQLite',
    gateway: (options = {}) => startGateway(options),
    sql: async (gateway, text, params = []) => sqliteQuery(join(gateway.dataDir, DATABASE_FILE), text, params),
    stores: async () => {
      const dir = mkdtempSync(join(tmpdir(), 'gatehouse-backend-'));
      const db: SqliteDatabase = openDatabase(dir);
      const requestLog = new RequestLog(db);
      return {
        requestLog,
        db,
        usage: (now) => new UsageStore(db, now),
        sql: async (text, params = []) => {
          const statement = db.prepare(text);
          return (statement.reader ? statement.all(...params) : (statement.run(...params), [])) as never;
        },
        close: async () => {
          await requestLog.close();
          db.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
    sharedGateways: async (count, options = {}) => {
      const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-shared-'));
      const gateways = await startEach(count, () => startGateway({ ...options, dataDir }));
      return {
        gateways,
        close: async () => {
          await closeAll(gateways);
          rmSync(dataDir, { recursive: true, force: true });
        },
      };
    },
    close: async () => undefined,
  };
}

function postgresBackend(): Backend {
  let cluster: Promise<TestPostgres> | undefined;
  const urls = new WeakMap<TestGateway, string>();
  const database = async () => (await (cluster ??= startPostgres())).newDatabase();
  return {
    name: 'PostgreSQL',
    gateway: async (options = {}) => {
      const url = await database();
      const gateway = await startGateway({ ...options, databaseUrl: url });
      urls.set(gateway, url);
      return gateway;
    },
    sql: (gateway, text, params = []) => {
      const url = urls.get(gateway);
      if (!url) throw new Error('Not a gateway started by this backend');
      return pgQuery(url, text, params);
    },
    stores: async () => {
      const url = await database();
      const store = await openPostgresStore({ url, protector: masterKeyProtector(TEST_MASTER_KEY), sharedLimits: true });
      return {
        requestLog: store.requestLog,
        usage: (now) => new PgUsageStore(store.bridge, now),
        sql: (text, params = []) => pgQuery(url, text, params),
        close: async () => store.close(),
      };
    },
    sharedGateways: async (count, options = {}) => {
      const url = await database();
      const gateways = await startEach(count, () => startGateway({ ...options, databaseUrl: url }));
      for (const gateway of gateways) urls.set(gateway, url);
      return { gateways, close: () => closeAll(gateways) };
    },
    close: async () => {
      if (cluster) await (await cluster).close();
      cluster = undefined;
    },
  };
}

/** The backends to run a suite on: both, or those GATEHOUSE_TEST_BACKENDS names (`sqlite`, `postgres`). */
export function backends(): Backend[] {
  const wanted = (process.env.GATEHOUSE_TEST_BACKENDS ?? 'sqlite,postgres').toLowerCase().split(',').map((name) => name.trim());
  return [sqliteBackend(), postgresBackend()].filter((backend) => wanted.includes(backend.name === 'SQLite' ? 'sqlite' : 'postgres'));
}
