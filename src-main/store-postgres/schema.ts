// The team database's tables, as versioned SQL run on start. Every instance runs them under one advisory
// lock, so two instances starting at once migrate once; a version applied is recorded and never run again.
// Changes to keys, routes, limits, settings, overrides and MCP servers bump a generation and NOTIFY `gatehouse_changes`
// from a trigger, so every writer (an instance, `gatehouse migrate`, psql) reaches every instance.
import pg from 'pg';

/** The channel every instance LISTENs on; the payload names what changed (a CHANGE_TOPICS value). */
export const CHANGES_CHANNEL = 'gatehouse_changes';
export const CHANGE_TOPICS = ['keys', 'routes', 'limits', 'settings', 'mcp_servers'] as const;
export type ChangeTopic = (typeof CHANGE_TOPICS)[number];

/** Renames active twin key names (schema version 5); `gatehouse migrate` runs it after copying keys. */
export const RENAME_TWIN_KEYS = 'gatehouse_rename_twin_keys';
/** Takes the key-name lock and raises NAME_TAKEN_STATE when an active key of either kind has the name. */
export const CLAIM_KEY_NAME = 'gatehouse_claim_key_name';
/** The SQLSTATE of a taken key name (a class of Gatehouse's own). */
export const NAME_TAKEN_STATE = 'GH409';
/** The lock key writers take while a name is checked and written ("keyname" in ASCII). */
const KEY_NAMES_LOCK = 0x6b65796e616d65;

/** The lock every instance's migration takes (any constant; "gatehous" in ASCII). */
const MIGRATION_LOCK = 0x6761746568;

const USAGE_COLUMNS = ['requests', 'errors', 'prompt_tokens', 'completion_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'cost_nanos', 'unpriced_requests', 'unpriced_tokens'];
/** A log row's figures for the usage totals, as the SQLite migration 8 counts them. */
const USAGE_FIGURES = [
  '1',
  '(r.status >= 400)::int',
  'coalesce(r.prompt_tokens, 0)',
  'coalesce(r.completion_tokens, 0)',
  'coalesce(r.cache_read_tokens, 0)',
  'coalesce(r.cache_write_tokens, 0)',
  'coalesce(r.reasoning_tokens, 0)',
  'coalesce(round(r.cost_usd * 1e9)::bigint, 0)',
  '(r.cost_usd IS NULL AND r.prompt_tokens IS NOT NULL)::int',
  'CASE WHEN r.cost_usd IS NULL THEN coalesce(r.prompt_tokens, 0) + coalesce(r.completion_tokens, 0) ELSE 0 END',
];
type DimensionColumns = Readonly<Record<string, string>>;
/** The breakdowns as version 1 created them (the requested model): its SQL must not change once shipped. */
const DIMENSIONS_V1: DimensionColumns = { key: 'key_id', model: 'model', provider: 'provider', client: 'client' };
/** From version 6: 'model' is the model that served the call, and 'route' the route matched (SQLite's migration 18). */
const DIMENSIONS: DimensionColumns = { ...DIMENSIONS_V1, model: 'served_model', route: 'route' };

/** A breakdown's name for a row `r`: served_model is NULL on rows from before version 6 (as SQLite's dimensionValue). */
function dimensionValue(column: string): string {
  if (column !== 'served_model') return `r.${column}`;
  const arrow = "position(' → ' in r.route_target)";
  return `coalesce(r.served_model, CASE WHEN ${arrow} > 0 AND length(r.route_target) > ${arrow} + 2 THEN substr(r.route_target, ${arrow} + 3) END, r.model)`;
}

/** Deleted rows (the transition table `gone`) taken back out of both usage tables, for each breakdown. */
function usageTakeBack(dimensions: DimensionColumns): string {
  const statements: string[] = [];
  for (const [table, column, period] of [
    ['usage_daily', 'day', 'r.day'],
    ['usage_monthly', 'month', "substr(r.day, 1, 8) || '01'"],
  ] as const) {
    for (const [dim, name] of Object.entries(dimensions)) {
      const sums = USAGE_FIGURES.map((figure, index) => `sum(${figure}) AS f${index}`).join(', ');
      const set = USAGE_COLUMNS.map((c, index) => `${c} = u.${c} - g.f${index}`).join(', ');
      statements.push(
        `UPDATE ${table} AS u SET ${set} FROM (SELECT ${period} AS period, coalesce(${dimensionValue(name)}, '') AS name, ${sums} FROM gone AS r GROUP BY 1, 2) AS g
           WHERE u.dim = '${dim}' AND u.${column} = g.period AND u.name = g.name;`,
      );
    }
  }
  return statements.join('\n');
}

/** One breakdown of a usage table summed again from request_log, by the log column given. */
function usageRebuild(table: string, column: string, period: string, dim: string, name: string): string {
  const sums = USAGE_FIGURES.map((figure) => `sum(${figure})`).join(', ');
  return `INSERT INTO ${table} (${column}, dim, name, ${USAGE_COLUMNS.join(', ')})
    SELECT ${period}, '${dim}', coalesce(${dimensionValue(name)}, ''), ${sums} FROM request_log AS r GROUP BY 1, 3;`;
}

/**
 * The usage totals of every row of request_log, with the figures the delete trigger takes back: for rows
 * written in bulk by SQL (the benchmark), as SQLite's USAGE_FOR_BATCH. Run in order: the monthly totals
 * are summed from the daily ones, which is the same sum over a tenth of the rows.
 */
export function usageTotalsFromLog(): [daily: string, monthly: string] {
  const sums = USAGE_FIGURES.map((figure) => `sum(${figure})`).join(', ');
  const names = Object.entries(DIMENSIONS).map(([dim, name]) => `('${dim}', coalesce(${dimensionValue(name)}, ''))`).join(', ');
  return [
    `INSERT INTO usage_daily (day, dim, name, ${USAGE_COLUMNS.join(', ')})
     SELECT r.day, d.dim, d.name, ${sums} FROM request_log AS r CROSS JOIN LATERAL (VALUES ${names}) AS d(dim, name) GROUP BY 1, 2, 3`,
    `INSERT INTO usage_monthly (month, dim, name, ${USAGE_COLUMNS.join(', ')})
     SELECT substr(day, 1, 8) || '01', dim, name, ${USAGE_COLUMNS.map((column) => `sum(${column})`).join(', ')} FROM usage_daily GROUP BY 1, 2, 3`,
  ];
}

const usageTable = (name: string, period: string) => `
  CREATE TABLE ${name} (
    ${period} text NOT NULL, dim text NOT NULL, name text NOT NULL,
    ${USAGE_COLUMNS.map((column) => `${column} bigint NOT NULL`).join(', ')},
    PRIMARY KEY (dim, ${period}, name)
  );`;

/** Words for the search index as SQLite's unicode61 tokenizer makes them: runs of letters and digits, lower case (up to version 7; then search-vector.ts). */
export const SEARCH_TEXT = `lower(regexp_replace(coalesce(model, '') || ' ' || trace_id || ' ' || coalesce(error, '') || ' ' || metadata || ' ' || path, '[^[:alnum:]]+', ' ', 'g'))`;

export const MIGRATIONS: { version: number; description: string; sql: string }[] = [
  {
    version: 1,
    description: 'keys, routes, settings, saved prompts, limits and spend, the request log with its usage totals, instances',
    sql: `
      CREATE TABLE generations (name text PRIMARY KEY, value bigint NOT NULL);
      INSERT INTO generations (name, value) VALUES ('keys', 0), ('routes', 0), ('limits', 0), ('settings', 0);
      CREATE FUNCTION gatehouse_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE generations SET value = value + 1 WHERE name = TG_ARGV[0];
        PERFORM pg_notify('${CHANGES_CHANNEL}', TG_ARGV[0]);
        RETURN NULL;
      END $$;

      CREATE TABLE key_store (
        id int PRIMARY KEY CHECK (id = 1), format int NOT NULL, protector_mode text NOT NULL,
        wrapped_private_key bytea NOT NULL, public_key bytea NOT NULL, created_at bigint NOT NULL
      );
      CREATE TABLE virtual_keys (
        id text PRIMARY KEY, name text NOT NULL, provider text NOT NULL, custom_host text,
        key_hash bytea NOT NULL UNIQUE, key_prefix text NOT NULL, settings text NOT NULL, credentials bytea,
        created_at bigint NOT NULL, updated_at bigint NOT NULL, revoked_at bigint,
        default_model text, model_map text, allow_routing int NOT NULL DEFAULT 0
      );
      CREATE TABLE gateway_keys (
        id text PRIMARY KEY, name text NOT NULL, key_hash bytea NOT NULL UNIQUE, key_prefix text NOT NULL,
        created_at bigint NOT NULL, updated_at bigint NOT NULL, revoked_at bigint
      );
      CREATE TRIGGER virtual_keys_changed AFTER INSERT OR UPDATE OR DELETE ON virtual_keys FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_changed('keys');
      CREATE TRIGGER gateway_keys_changed AFTER INSERT OR UPDATE OR DELETE ON gateway_keys FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_changed('keys');

      CREATE TABLE settings (key text PRIMARY KEY, value text NOT NULL);
      CREATE TRIGGER settings_changed AFTER INSERT OR UPDATE OR DELETE ON settings FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_changed('settings');

      CREATE TABLE routes (
        id text PRIMARY KEY, position int NOT NULL, name text NOT NULL, match text NOT NULL, strategy text NOT NULL,
        targets text NOT NULL, created_at bigint NOT NULL, updated_at bigint NOT NULL
      );
      CREATE TRIGGER routes_changed AFTER INSERT OR UPDATE OR DELETE ON routes FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_changed('routes');

      CREATE TABLE saved_prompts (
        id text PRIMARY KEY, name text NOT NULL UNIQUE, endpoint text NOT NULL, body text NOT NULL, key_id text,
        created_at bigint NOT NULL, updated_at bigint NOT NULL
      );

      CREATE TABLE key_limits (
        key_id text PRIMARY KEY, rpm bigint, tpm bigint, daily_usd double precision, monthly_usd double precision, updated_at bigint NOT NULL
      );
      CREATE TRIGGER key_limits_changed AFTER INSERT OR UPDATE OR DELETE ON key_limits FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_changed('limits');
      CREATE TABLE key_spend (
        key_id text NOT NULL, day text NOT NULL, cost_usd double precision NOT NULL, tokens bigint NOT NULL, requests bigint NOT NULL,
        PRIMARY KEY (key_id, day)
      );

      CREATE TABLE request_log (
        id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
        created_at bigint NOT NULL, trace_id text NOT NULL, metadata text NOT NULL, key_id text, provider text, model text,
        path text NOT NULL, status int NOT NULL, latency_ms double precision NOT NULL, ttfb_ms double precision,
        prompt_tokens bigint, completion_tokens bigint, stream int NOT NULL, error text, attempts int NOT NULL,
        attempt_log text, request_headers text, request_body text, response_body text,
        dialect text, provider_format text, dropped text, cache_read_tokens bigint, cache_write_tokens bigint, reasoning_tokens bigint,
        cost_usd double precision, client text, day text NOT NULL, route text, route_target text, target_key_id text, request_count int,
        -- Which instance served the call (the instances table's id); NULL for rows moved from a desktop data dir.
        instance_id text,
        search tsvector GENERATED ALWAYS AS (to_tsvector('simple', ${SEARCH_TEXT})) STORED
      );
      CREATE INDEX request_log_key ON request_log (key_id, created_at);
      CREATE INDEX request_log_target_key ON request_log (target_key_id, created_at) WHERE target_key_id IS NOT NULL;
      CREATE INDEX request_log_created ON request_log (created_at);
      CREATE INDEX request_log_provider ON request_log (provider, id);
      CREATE INDEX request_log_status ON request_log (status, id);
      CREATE INDEX request_log_model ON request_log (model, id);
      CREATE INDEX request_log_dialect ON request_log (dialect, id);
      CREATE INDEX request_log_route ON request_log (route, id) WHERE route IS NOT NULL;
      CREATE INDEX request_log_search ON request_log USING gin (search);
      ${usageTable('usage_daily', 'day')}
      ${usageTable('usage_monthly', 'month')}
      -- Deleted rows leave the totals, so the totals always equal the sums over request_log.
      CREATE FUNCTION request_log_usage_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${usageTakeBack(DIMENSIONS_V1)}
        RETURN NULL;
      END $$;
      CREATE TRIGGER request_log_usage_delete AFTER DELETE ON request_log REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION request_log_usage_delete();

      -- Each running instance, with a heartbeat: who else is serving (limits across instances need Redis).
      CREATE TABLE instances (
        id text PRIMARY KEY, host text NOT NULL, pid int NOT NULL, started_at bigint NOT NULL, heartbeat_at bigint NOT NULL, shared_limits boolean NOT NULL
      );
    `,
  },
  {
    version: 2,
    description: 'which models each key may call (an allow-list per key; no row = every model)',
    sql: `
      -- models: a JSON array of model names, globs or route:NAME entries (core/model-allow-lists.ts).
      CREATE TABLE key_allowed_models (key_id text PRIMARY KEY, models text NOT NULL, updated_at bigint NOT NULL);
      CREATE TRIGGER key_allowed_models_changed AFTER INSERT OR UPDATE OR DELETE ON key_allowed_models FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_changed('limits');
    `,
  },
  {
    version: 3,
    description: "whether a call's usage is the gateway's own count (embeddings from providers that report none)",
    sql: `
      -- 1 when the provider reported no token count and the gateway counted the input itself (SQLite's migration 16).
      ALTER TABLE request_log ADD COLUMN usage_estimated int;
    `,
  },
  {
    version: 4,
    description: 'MCP servers (their secrets sealed), the MCP servers each key may use, and MCP calls in the request log',
    sql: `
      -- As SQLite's migration 14. args, env, headers, disabled_tools: JSON text. secret_env and secret_headers:
      -- JSON {name: value} sealed to the data key (store/secret-box.ts, as provider secrets), NULL when none;
      -- their names in the clear beside them so they can be shown.
      CREATE TABLE mcp_servers (
        name text PRIMARY KEY, transport text NOT NULL, command text, args text NOT NULL DEFAULT '[]', env text NOT NULL DEFAULT '{}',
        secret_env_names text NOT NULL DEFAULT '[]', secret_env bytea, url text, headers text NOT NULL DEFAULT '{}',
        secret_header_names text NOT NULL DEFAULT '[]', secret_headers bytea, enabled int NOT NULL DEFAULT 1, timeout_ms int NOT NULL,
        disabled_tools text NOT NULL DEFAULT '[]', created_at bigint NOT NULL, updated_at bigint NOT NULL
      );
      INSERT INTO generations (name, value) VALUES ('mcp_servers', 0);
      CREATE TRIGGER mcp_servers_changed AFTER INSERT OR UPDATE OR DELETE ON mcp_servers FOR EACH STATEMENT EXECUTE FUNCTION gatehouse_changed('mcp_servers');

      -- The MCP servers a key may see and call: a JSON array of names; NULL = every server. (The keys' trigger
      -- already tells every instance of a change.)
      ALTER TABLE virtual_keys ADD COLUMN mcp_servers text;
      ALTER TABLE gateway_keys ADD COLUMN mcp_servers text;

      -- kind: 'mcp' for a tools/call, resources/read or prompts/get through /mcp; NULL = a model call.
      ALTER TABLE request_log ADD COLUMN kind text, ADD COLUMN mcp_server text, ADD COLUMN mcp_tool text;
      CREATE INDEX request_log_mcp ON request_log (mcp_server, mcp_tool, id) WHERE mcp_server IS NOT NULL;
      CREATE INDEX request_log_kind ON request_log (kind, id) WHERE kind IS NOT NULL;
    `,
  },
  {
    version: 5,
    description: "keys' chatOnly; key names unique among active keys of both kinds, case aside (twins from before renamed)",
    sql: `
      -- chat_only: 1 when the key's server has no /v1/responses: Responses calls are translated to Chat for it.
      ALTER TABLE virtual_keys ADD COLUMN chat_only int NOT NULL DEFAULT 0;

      -- A database from before this version may hold active twins (names equal but for case). Rather than
      -- fail here, each older twin is renamed 'name (2)', 'name (3)' ... (the next name free, as Make a key
      -- picks one); the newest keeps the name, which is the key a route naming it already reached. Also
      -- run by \`gatehouse migrate\` on a desktop data dir's keys, under the constraints deferred. Returns how many.
      CREATE FUNCTION ${RENAME_TWIN_KEYS}() RETURNS int LANGUAGE plpgsql AS $$
      DECLARE
        twin record;
        candidate text;
        n int;
        renamed int := 0;
      BEGIN
        FOR twin IN
          SELECT kind, id, name FROM (
            SELECT kind, id, name, row_number() OVER (PARTITION BY lower(name) ORDER BY created_at DESC, id DESC) AS place
            FROM (SELECT 'virtual' AS kind, id, name, created_at FROM virtual_keys WHERE revoked_at IS NULL
                  UNION ALL SELECT 'gateway', id, name, created_at FROM gateway_keys WHERE revoked_at IS NULL) AS active
          ) AS ranked
          WHERE place > 1 ORDER BY lower(name), place
        LOOP
          n := 2;
          LOOP
            candidate := left(twin.name, 92) || ' (' || n || ')';
            EXIT WHEN NOT EXISTS (SELECT 1 FROM virtual_keys WHERE revoked_at IS NULL AND lower(name) = lower(candidate))
                  AND NOT EXISTS (SELECT 1 FROM gateway_keys WHERE revoked_at IS NULL AND lower(name) = lower(candidate));
            n := n + 1;
          END LOOP;
          IF twin.kind = 'virtual' THEN
            UPDATE virtual_keys SET name = candidate, updated_at = (extract(epoch FROM clock_timestamp()) * 1000)::bigint WHERE id = twin.id;
          ELSE
            UPDATE gateway_keys SET name = candidate, updated_at = (extract(epoch FROM clock_timestamp()) * 1000)::bigint WHERE id = twin.id;
          END IF;
          renamed := renamed + 1;
        END LOOP;
        RETURN renamed;
      END $$;
      SELECT ${RENAME_TWIN_KEYS}();

      -- Within a kind the database itself refuses a twin (any writer: an instance, migrate, psql). An
      -- exclusion constraint is a unique index that may be deferred, which migrate needs while it renames.
      ALTER TABLE virtual_keys ADD CONSTRAINT virtual_keys_active_name EXCLUDE USING btree (lower(name) WITH =) WHERE (revoked_at IS NULL) DEFERRABLE INITIALLY IMMEDIATE;
      ALTER TABLE gateway_keys ADD CONSTRAINT gateway_keys_active_name EXCLUDE USING btree (lower(name) WITH =) WHERE (revoked_at IS NULL) DEFERRABLE INITIALLY IMMEDIATE;

      -- Across the two kinds (two tables, which no index spans): a writer claims the name first, in the
      -- transaction that writes it. The lock makes two instances naming keys at once take turns; the check
      -- then sees the other's committed key. A twin raises ${NAME_TAKEN_STATE} with it as JSON in the message.
      CREATE FUNCTION ${CLAIM_KEY_NAME}(wanted text, own_id text) RETURNS void LANGUAGE plpgsql AS $$
      DECLARE
        twin record;
      BEGIN
        PERFORM pg_advisory_xact_lock(${KEY_NAMES_LOCK});
        SELECT * INTO twin FROM (
          SELECT id, name, 'virtual key' AS kind FROM virtual_keys WHERE revoked_at IS NULL AND lower(name) = lower(wanted) AND id <> own_id
          UNION ALL SELECT id, name, 'gateway API key' FROM gateway_keys WHERE revoked_at IS NULL AND lower(name) = lower(wanted) AND id <> own_id
        ) AS found LIMIT 1;
        IF FOUND THEN
          RAISE EXCEPTION USING ERRCODE = '${NAME_TAKEN_STATE}', MESSAGE = json_build_object('id', twin.id, 'name', twin.name, 'kind', twin.kind)::text;
        END IF;
      END $$;
    `,
  },
  {
    version: 6,
    description: 'the model that served each call, the Usage model breakdown by it rather than by the name asked for, and a route breakdown',
    sql: `
      -- As SQLite's migration 18. served_model: the model the provider was sent (a route target's model, a
      -- key's model map applied); model stays what the client asked for (a route name such as 'fast'). Left
      -- NULL on older rows (an UPDATE would rewrite the whole log), read as the model of their route target's
      -- label ("key name → model") when routed, else the model asked for (dimensionValue; toEntry).
      ALTER TABLE request_log ADD COLUMN served_model text;
      -- The model breakdown summed again by the served model, and the route breakdown summed for the first
      -- time; deleted rows taken back out by both.
      DELETE FROM usage_daily WHERE dim IN ('model', 'route');
      DELETE FROM usage_monthly WHERE dim IN ('model', 'route');
      ${usageRebuild('usage_daily', 'day', 'r.day', 'model', 'served_model')}
      ${usageRebuild('usage_monthly', 'month', "substr(r.day, 1, 8) || '01'", 'model', 'served_model')}
      ${usageRebuild('usage_daily', 'day', 'r.day', 'route', 'route')}
      ${usageRebuild('usage_monthly', 'month', "substr(r.day, 1, 8) || '01'", 'route', 'route')}
      CREATE OR REPLACE FUNCTION request_log_usage_delete() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        ${usageTakeBack(DIMENSIONS)}
        RETURN NULL;
      END $$;
    `,
  },
  {
    version: 7,
    description: "the log's failed calls per provider, newest first (the Logs page's provider + errors filter)",
    sql: `
      -- A provider's errors among a million rows: without it the errors filter walks the provider's every
      -- call (a seventh of the log) to find the few that failed, and a text search on top ANDs in the GIN.
      CREATE INDEX request_log_provider_errors ON request_log (provider, id) WHERE status >= 400;
    `,
  },
  {
    version: 8,
    description: "the log's search words written with each row (search-vector.ts), no longer computed by PostgreSQL",
    sql: `
      -- A generated column ran a regular expression and the text parser on every insert, about a third of
      -- PostgreSQL's work per logged call. The rows already written keep their words.
      ALTER TABLE request_log ALTER COLUMN search DROP EXPRESSION;
    `,
  },
  {
    version: 9,
    description: 'the chunks of spill files written (rows and spend kept in a data dir while PostgreSQL was away), so none is written twice',
    sql: `
      -- chunk: '<spill file id>/<chunk number>' (store-postgres/spill.ts), recorded in the chunk's own transaction.
      CREATE TABLE log_spills (chunk text PRIMARY KEY, instance_id text NOT NULL, rows int NOT NULL, written_at bigint NOT NULL);
    `,
  },
  {
    version: 10,
    description: "instances' names, and the Logs page's filters by key, instance and metadata",
    sql: `
      -- The name each instance ran under (--instance-name, default its host name), kept after the instance
      -- is gone (the instances table forgets it): the log's Instance column and filter read it.
      CREATE TABLE instance_names (instance_id text PRIMARY KEY, instance_name text NOT NULL);
      CREATE INDEX instance_names_name ON instance_names (instance_name);
      -- Newest first within one key and one instance: the list pages by id.
      CREATE INDEX request_log_key_id ON request_log (key_id, id);
      CREATE INDEX request_log_instance ON request_log (instance_id, id);
      CREATE INDEX request_log_client ON request_log (client, id);
      -- metadata key=value: a containment test on the JSON object.
      CREATE INDEX request_log_metadata ON request_log USING gin ((metadata::jsonb) jsonb_path_ops);
    `,
  },
  {
    version: 11,
    description: 'the mark of each spend writer (key-limits.ts): a write of key spend whose answer was lost is applied once however often it is sent again',
    sql: `
      -- writer: '<instance id>/<random>', one per store opened; seq: the highest write of it applied. A writer
      -- that closed with every write applied removes its row; one that spilled keeps it for the replay.
      CREATE TABLE spend_writes (writer text PRIMARY KEY, seq bigint NOT NULL, written_at bigint NOT NULL);
    `,
  },
  {
    version: 12,
    description: 'the MCP tools each key may use, and whether a key with no server list sees every MCP server or none',
    sql: `
      -- As SQLite's migration 21. mcp_tools: JSON {server: [tool names]}, NULL = every tool; mcp_default:
      -- 'allow', 'deny', or NULL = the global setting mcpKeyDefault. (The keys' trigger tells every instance.)
      ALTER TABLE virtual_keys ADD COLUMN mcp_tools text, ADD COLUMN mcp_default text;
      ALTER TABLE gateway_keys ADD COLUMN mcp_tools text, ADD COLUMN mcp_default text;
    `,
  },
  {
    version: 13,
    description: 'the mark of each log batch (log-batch.ts): a batch whose COMMIT landed while its answer was lost is written once however often it is sent again',
    sql: `
      -- writer: one per log writer opened ('<instance id>/<random>'); seq: the batch's number, the same on
      -- every retry and in the spill; ids: the ids its rows got. A second write of the batch is refused by the
      -- primary key, so its rows are not added twice. The writer removes a mark once the batch is answered.
      CREATE TABLE log_batches (writer text NOT NULL, seq bigint NOT NULL, ids bigint[] NOT NULL, written_at bigint NOT NULL, PRIMARY KEY (writer, seq));
    `,
  },
  {
    version: 14,
    description: 'the agent session each call belongs to, and its calls in time order (the Sessions page)',
    sql: `
      -- As SQLite's migration 22. session_id: gateway/agent-session.ts; NULL on older rows.
      ALTER TABLE request_log ADD COLUMN session_id text;
      CREATE INDEX request_log_session_recent ON request_log (created_at, id) INCLUDE (session_id, key_id, client) WHERE session_id IS NOT NULL;
      CREATE INDEX request_log_session ON request_log (session_id, created_at) INCLUDE (kind, status, latency_ms, prompt_tokens, completion_tokens, cost_usd, key_id, client)
        WHERE session_id IS NOT NULL;
    `,
  },
  {
    version: 15,
    description: 'OAuth sign-in to remote MCP servers: whether a server needs it, its sealed grant, and when its token expires',
    sql: `
      -- As SQLite's migration 23: one sign-in serves every instance (the mcp_servers trigger tells them).
      ALTER TABLE mcp_servers ADD COLUMN oauth_state text, ADD COLUMN oauth_grant bytea, ADD COLUMN oauth_expires_at bigint;
    `,
  },
];

export const LATEST_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

/**
 * Brings the database to the latest version. The advisory lock makes a second instance wait for the first
 * to finish; it then finds every version applied. A database from a newer Gatehouse is refused.
 */
export async function migrate(url: string): Promise<{ applied: number[] }> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query('CREATE TABLE IF NOT EXISTS gatehouse_schema (version int PRIMARY KEY, description text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
      const done = new Set((await client.query<{ version: number }>('SELECT version FROM gatehouse_schema')).rows.map((row) => row.version));
      const newest = Math.max(0, ...done);
      if (newest > LATEST_VERSION) {
        throw new Error(`The database was set up by a newer Gatehouse (schema version ${newest}; this one knows up to ${LATEST_VERSION}). Update Gatehouse.`);
      }
      const applied: number[] = [];
      for (const migration of MIGRATIONS) {
        if (done.has(migration.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(migration.sql);
          await client.query('INSERT INTO gatehouse_schema (version, description) VALUES ($1, $2)', [migration.version, migration.description]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw new Error(`PostgreSQL migration ${migration.version} failed: ${(error as Error).message}`);
        }
        applied.push(migration.version);
      }
      return { applied };
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await client.end();
  }
}
