// `gatehouse migrate`: a desktop data dir's SQLite database copied into an empty team database, in one
// PostgreSQL transaction: the data key (wrapped by GATEHOUSE_MASTER_KEY) and the keys with their secrets
// still sealed (the same sealed format, so nothing is decrypted), MCP servers (their secrets sealed the same
// way), routes, settings and overrides, saved prompts, limits and spend, and the request log with its usage totals (streamed with COPY).
import pg from 'pg';
import type { SqliteDatabase } from '../store/database.js';
import { openDataKey, KeyStoreLockedError } from '../store/keys/data-key.js';
import type { KeyProtector } from '../store/key-protection.js';
import { MCP_SERVER_COLUMNS } from '../store/mcp-server-rows.js';
import { searchVector } from './search-vector.js';
import { copyRows } from './copy-in.js';
import { checkDatabaseUrl } from './open.js';
import { migrate, RENAME_TWIN_KEYS } from './schema.js';

/** Tables a team database holds data in: any row in one means it is not empty. */
/**
 * Gatehouse's own bookkeeping, which an instance that only started (or stopped cleanly) leaves behind: the
 * schema version, change counters, live instances and their names, spend writers' marks. Not data to lose.
 */
const BOOKKEEPING_TABLES = ['gatehouse_schema', 'generations', 'instances', 'instance_names', 'spend_writes', 'log_batches'];
const TEAM_TABLES = ['key_store', 'virtual_keys', 'gateway_keys', 'settings', 'routes', 'saved_prompts', 'key_limits', 'key_allowed_models', 'key_spend', 'mcp_servers', 'request_log', 'usage_daily', 'usage_monthly', 'log_spills'];
const ROWS_PER_INSERT = 500;

const LOG_COLUMNS = [
  'id', 'created_at', 'trace_id', 'metadata', 'key_id', 'provider', 'model', 'path', 'status', 'latency_ms', 'ttfb_ms', 'prompt_tokens', 'completion_tokens',
  'stream', 'error', 'attempts', 'attempt_log', 'request_headers', 'request_body', 'response_body', 'dialect', 'provider_format', 'dropped',
  'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'cost_usd', 'client', 'day', 'route', 'route_target', 'target_key_id', 'request_count',
  'usage_estimated', 'kind', 'mcp_server', 'mcp_tool', 'served_model', 'session_id',
];
/** SQLite's expression for each column: `dialect` is its generated column, `day` is worked out for rows from before migration 8. */
const LOG_SOURCE = LOG_COLUMNS.map((column) => (column === 'day' ? "coalesce(day, date(created_at / 1000, 'unixepoch', 'localtime')) AS day" : column)).join(', ');

export class MigrationRefusedError extends Error {
  override name = 'MigrationRefusedError';
}

export interface MigrationCounts {
  virtualKeys: number;
  gatewayKeys: number;
  routes: number;
  settings: number;
  savedPrompts: number;
  keyLimits: number;
  mcpServers: number;
  logRows: number;
  /** Active keys renamed 'name (2)' … because another active key had their name (case aside). */
  renamedKeys: number;
}

/** Why a database is not empty, or null when it is (no tables but possibly Gatehouse's own, all empty). */
async function notEmpty(client: pg.Client): Promise<string | null> {
  const tables = (await client.query<{ name: string }>("SELECT tablename AS name FROM pg_tables WHERE schemaname = current_schema()")).rows.map((row) => row.name);
  const foreign = tables.filter((name) => !BOOKKEEPING_TABLES.includes(name) && !TEAM_TABLES.includes(name));
  if (foreign.length) return `it holds other tables (${foreign.slice(0, 5).join(', ')})`;
  for (const table of TEAM_TABLES.filter((name) => tables.includes(name))) {
    const { rows } = await client.query(`SELECT 1 FROM ${table} LIMIT 1`);
    if (rows.length) return `its ${table} table has rows`;
  }
  return null;
}

async function insertRows(client: pg.Client, table: string, columns: readonly string[], rows: Iterable<unknown[]>): Promise<number> {
  let batch: unknown[][] = [];
  let count = 0;
  const flush = async () => {
    if (!batch.length) return;
    const placeholders = batch.map((_, row) => `(${columns.map((__, column) => `$${row * columns.length + column + 1}`).join(', ')})`).join(', ');
    await client.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES ${placeholders}`, batch.flat());
    count += batch.length;
    batch = [];
  };
  for (const row of rows) {
    batch.push(row);
    if (batch.length >= ROWS_PER_INSERT) await flush();
  }
  await flush();
  return count;
}

/**
 * The log, streamed with COPY (one round trip for all rows, no parameters to build). The log's secondary
 * indexes (the full-text one above all) are dropped for the copy and built once after it, in the same
 * transaction: building an index over 100k rows at once is far cheaper than growing it row by row.
 */
async function copyLog(db: SqliteDatabase, client: pg.Client): Promise<number> {
  const indexes = (
    await client.query<{ name: string; definition: string }>(
      "SELECT indexname AS name, indexdef AS definition FROM pg_indexes WHERE schemaname = current_schema() AND tablename = 'request_log' AND indexname <> 'request_log_pkey'",
    )
  ).rows;
  for (const index of indexes) await client.query(`DROP INDEX ${index.name}`);
  const rows = db.prepare(`SELECT ${LOG_SOURCE} FROM request_log ORDER BY id`).raw().iterate() as Iterable<unknown[]>;
  const count = await copyRows(client, 'request_log', [...LOG_COLUMNS, 'search'], withSearchWords(rows));
  // More memory for the builds than the default 64 MB, for this transaction only.
  await client.query("SET LOCAL maintenance_work_mem = '256MB'");
  for (const index of indexes) await client.query(index.definition);
  return count;
}

/** Each row with its search words after its columns, as the gateway writes them. */
function* withSearchWords(rows: Iterable<unknown[]>): Generator<unknown[]> {
  const searched = ['model', 'trace_id', 'error', 'metadata', 'path'].map((column) => LOG_COLUMNS.indexOf(column));
  for (const row of rows) yield [...row, searchVector(searched.map((column) => row[column] as string | null))];
}

function copyTable(db: SqliteDatabase, client: pg.Client, table: string, columns: readonly string[], select = columns.join(', ')): Promise<number> {
  const rows = db.prepare(`SELECT ${select} FROM ${table}`).raw().iterate() as Iterable<unknown[]>;
  return insertRows(client, table, columns, rows);
}

/**
 * Copies `db` (the data dir's database, opened and migrated) into the empty database at `url`. The data
 * key must open with `protector` (the same GATEHOUSE_MASTER_KEY the team instances use); a store still on
 * its key file is moved to the master key first, as `gatehouse serve` with the key set would.
 */
export async function migrateSqliteToPostgres(db: SqliteDatabase, url: string, protector: KeyProtector, upgrade: Parameters<typeof openDataKey>[2]): Promise<MigrationCounts> {
  checkDatabaseUrl(url);
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    const why = await notEmpty(client);
    if (why) throw new MigrationRefusedError(`The target database is not empty: ${why}. Migrate into a new, empty database.`);
    // Proves the master key opens the data key before anything is written.
    let hasKeys = false;
    try {
      const dataKey = await openDataKey(db, protector, upgrade);
      dataKey.privateKey?.export({ format: 'der', type: 'pkcs8' }).fill(0);
      hasKeys = true;
    } catch (error) {
      if (error instanceof KeyStoreLockedError) throw new MigrationRefusedError(`${error.message} (gatehouse migrate needs the GATEHOUSE_MASTER_KEY the team instances will use)`);
      throw error;
    }
    await migrate(url);
    // Consistent reading: nothing else writes the SQLite file while it is copied.
    db.exec('BEGIN IMMEDIATE');
    try {
      await client.query('BEGIN');
      // A desktop data dir from before names were unique may hold twins: copied as they are, then renamed
      // as schema version 5 renames them, the name constraints checked at COMMIT.
      await client.query('SET CONSTRAINTS virtual_keys_active_name, gateway_keys_active_name DEFERRED');
      if (hasKeys) await copyTable(db, client, 'key_store', ['id', 'format', 'protector_mode', 'wrapped_private_key', 'public_key', 'created_at']);
      const counts: MigrationCounts = {
        virtualKeys: await copyTable(db, client, 'virtual_keys', ['id', 'name', 'provider', 'custom_host', 'key_hash', 'key_prefix', 'settings', 'credentials', 'created_at', 'updated_at', 'revoked_at', 'default_model', 'model_map', 'allow_routing', 'chat_only', 'mcp_servers', 'mcp_tools', 'mcp_default']),
        gatewayKeys: await copyTable(db, client, 'gateway_keys', ['id', 'name', 'key_hash', 'key_prefix', 'created_at', 'updated_at', 'revoked_at', 'mcp_servers', 'mcp_tools', 'mcp_default']),
        renamedKeys: Number((await client.query(`SELECT ${RENAME_TWIN_KEYS}() AS renamed`)).rows[0].renamed),
        settings: await copyTable(db, client, 'settings', ['key', 'value']),
        routes: await copyTable(db, client, 'routes', ['id', 'position', 'name', 'match', 'strategy', 'targets', 'created_at', 'updated_at']),
        savedPrompts: await copyTable(db, client, 'saved_prompts', ['id', 'name', 'endpoint', 'body', 'key_id', 'created_at', 'updated_at']),
        keyLimits: await copyTable(db, client, 'key_limits', ['key_id', 'rpm', 'tpm', 'daily_usd', 'monthly_usd', 'updated_at']),
        // Their secrets stay sealed as they are: the same data key and sealing context on both sides.
        mcpServers: await copyTable(db, client, 'mcp_servers', MCP_SERVER_COLUMNS),
        logRows: 0,
      };
      await copyTable(db, client, 'key_allowed_models', ['key_id', 'models', 'updated_at']);
      await copyTable(db, client, 'key_spend', ['key_id', 'day', 'cost_usd', 'tokens', 'requests']);
      counts.logRows = await copyLog(db, client);
      const usageColumns = ['dim', 'name', 'requests', 'errors', 'prompt_tokens', 'completion_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'cost_nanos', 'unpriced_requests', 'unpriced_tokens'];
      await copyTable(db, client, 'usage_daily', ['day', ...usageColumns]);
      await copyTable(db, client, 'usage_monthly', ['month', ...usageColumns]);
      // New rows are numbered after the moved ones.
      await client.query("SELECT setval(pg_get_serial_sequence('request_log', 'id'), greatest((SELECT max(id) FROM request_log), 1))");
      const stillEmpty = await client.query('SELECT 1 FROM request_log WHERE instance_id IS NOT NULL LIMIT 1');
      if (stillEmpty.rows.length) throw new MigrationRefusedError('A team instance wrote to the target database during the migration; nothing was copied. Stop the instances and migrate into an empty database.');
      await client.query('COMMIT');
      return counts;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      db.exec('ROLLBACK');
    }
  } finally {
    await client.end();
  }
}
