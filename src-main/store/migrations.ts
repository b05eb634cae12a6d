// Numbered schema migrations. Each runs once, in order, inside a transaction; `PRAGMA user_version`
// records the last one applied. Append new ones; never edit one that has shipped.

export interface Migration {
  version: number;
  description: string;
  sql: string;
}

/** Each usage column's figure for one row of request_log called `r`, in the column order of usage_daily. */
const USAGE_FIGURES = [
  '1',
  'r.status >= 400',
  'coalesce(r.prompt_tokens, 0)',
  'coalesce(r.completion_tokens, 0)',
  'coalesce(r.cache_read_tokens, 0)',
  'coalesce(r.cache_write_tokens, 0)',
  'coalesce(r.reasoning_tokens, 0)',
  'coalesce(CAST(round(r.cost_usd * 1e9) AS INTEGER), 0)',
  'r.cost_usd IS NULL AND r.prompt_tokens IS NOT NULL',
  'CASE WHEN r.cost_usd IS NULL THEN coalesce(r.prompt_tokens, 0) + coalesce(r.completion_tokens, 0) ELSE 0 END',
];

/**
 * A row's local day: written by the gateway (request-log.ts), or for rows from before migration 8 worked
 * out by SQLite (whose 'localtime' costs a system call per row: fine once, not for every write).
 */
const LOCAL_DAY = (row: string) => `coalesce(${row}.day, date(${row}.created_at / 1000, 'unixepoch', 'localtime'))`;
/** The first day of the month of a row's local day, as the monthly table keys it. */
const LOCAL_MONTH = (row: string) => `substr(${LOCAL_DAY(row)}, 1, 8) || '01'`;

/**
 * The log column each breakdown of the usage tables sums by. From migration 18, 'model' is the model that
 * served the call, and 'route' the route its model name matched.
 */
export const USAGE_DIMENSION_COLUMNS = { key: 'key_id', model: 'served_model', provider: 'provider', client: 'client', route: 'route' } as const;
type DimensionColumns = Readonly<Record<string, string>>;

/**
 * A breakdown's name for a row (\`row\` its alias), as SQL. served_model is NULL on rows logged before
 * migration 18 (filling it in would rewrite every row of the log, a minute at a million rows): for them the
 * model of their route target's label ("key name → model") when routed, else the model asked for.
 */
function dimensionValue(column: string, row: string): string {
  if (column !== 'served_model') return `${row}.${column}`;
  const target = `${row}.route_target`;
  const arrow = `instr(${target}, ' → ')`;
  return `coalesce(${row}.served_model, CASE WHEN ${arrow} > 0 AND length(${target}) > ${arrow} + 2 THEN substr(${target}, ${arrow} + 3) END, ${row}.model)`;
}
/** The breakdowns as migration 8 created them (the requested model): its SQL must not change once shipped. */
const USAGE_DIMENSION_COLUMNS_V8: DimensionColumns = { key: 'key_id', model: 'model', provider: 'provider', client: 'client' };

/** How a usage row adds to the one already there. */
export const USAGE_ON_CONFLICT = `ON CONFLICT DO UPDATE SET
      requests = requests + excluded.requests, errors = errors + excluded.errors,
      prompt_tokens = prompt_tokens + excluded.prompt_tokens, completion_tokens = completion_tokens + excluded.completion_tokens,
      cache_read_tokens = cache_read_tokens + excluded.cache_read_tokens, cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
      reasoning_tokens = reasoning_tokens + excluded.reasoning_tokens, cost_nanos = cost_nanos + excluded.cost_nanos,
      unpriced_requests = unpriced_requests + excluded.unpriced_requests, unpriced_tokens = unpriced_tokens + excluded.unpriced_tokens`;

/**
 * Adds the rows of request_log from an id on to a usage table (usage_daily or usage_monthly): all four
 * breakdowns in one grouped statement. Used by the migration and for rows written in bulk; the log writer
 * sums its batches in memory instead (request-log.ts usageOfBatch).
 */
export function usageUpsert(table: 'usage_daily' | 'usage_monthly', fromId: string, dimensions: DimensionColumns = USAGE_DIMENSION_COLUMNS): string {
  const period = table === 'usage_daily' ? LOCAL_DAY('r') : LOCAL_MONTH('r');
  const parts = Object.entries(dimensions).map(
    ([dim, column]) => `SELECT period, '${dim}', coalesce(${column}, ''), sum(f1), sum(f2), sum(f3), sum(f4), sum(f5), sum(f6), sum(f7), sum(f8), sum(f9), sum(f10) FROM batch GROUP BY 1, 3`,
  );
  const columns = [...new Set(Object.values(dimensions))].map((column) => `${dimensionValue(column, 'r')} AS ${column}`).join(', ');
  // Materialized: the batch is read once, not once per breakdown.
  return `WITH batch AS MATERIALIZED (
      SELECT ${period} AS period, ${columns},
        ${USAGE_FIGURES.map((figure, index) => `${figure} AS f${index + 1}`).join(', ')}
      FROM request_log AS r WHERE r.id >= ${fromId})
    INSERT INTO ${table} ${parts.join(' UNION ALL ')}
    ${USAGE_ON_CONFLICT}`;
}

/** One UPDATE per usage table and breakdown of the row `old` (in a trigger): `set` says what changes. */
function updateUsageOfOldRow(set: string, dimensions: DimensionColumns): string {
  const statements: string[] = [];
  for (const [table, periodColumn, period] of [
    ['usage_daily', 'day', LOCAL_DAY('old')],
    ['usage_monthly', 'month', LOCAL_MONTH('old')],
  ]) {
    for (const [dim, column] of Object.entries(dimensions)) {
      statements.push(`        UPDATE ${table} SET ${set} WHERE dim = '${dim}' AND ${periodColumn} = ${period} AND name = coalesce(${dimensionValue(column, 'old')}, '');`);
    }
  }
  return statements.join('\n');
}

/** Takes one deleted row (`old`) back out of both usage tables, for each breakdown. */
function usageDelete(dimensions: DimensionColumns): string {
  const figures = USAGE_FIGURES.map((figure) => figure.replaceAll('r.', 'old.'));
  const columns = ['requests', 'errors', 'prompt_tokens', 'completion_tokens', 'cache_read_tokens', 'cache_write_tokens', 'reasoning_tokens', 'cost_nanos', 'unpriced_requests', 'unpriced_tokens'];
  const set = columns.map((column, index) => `${column} = ${column} - (${figures[index]})`).join(', ');
  return updateUsageOfOldRow(set, dimensions);
}

const USAGE_BACKFILL = `      ${usageUpsert('usage_daily', '0', USAGE_DIMENSION_COLUMNS_V8)};\n      ${usageUpsert('usage_monthly', '0', USAGE_DIMENSION_COLUMNS_V8)};`;

/**
 * A row priced after it was counted (rows from before migration 8, priced by usage-backfill.ts): its
 * cost moves into the totals, and it leaves the unpriced counts if it had usage.
 */
function usageReprice(dimensions: DimensionColumns): string {
  const nanos = (row: string) => `coalesce(CAST(round(${row}.cost_usd * 1e9) AS INTEGER), 0)`;
  const unpriced = (row: string) => `(${row}.cost_usd IS NULL AND ${row}.prompt_tokens IS NOT NULL)`;
  const unpricedTokens = (row: string) => `CASE WHEN ${row}.cost_usd IS NULL THEN coalesce(${row}.prompt_tokens, 0) + coalesce(${row}.completion_tokens, 0) ELSE 0 END`;
  const set =
    `cost_nanos = cost_nanos - ${nanos('old')} + ${nanos('new')}, ` +
    `unpriced_requests = unpriced_requests - ${unpriced('old')} + ${unpriced('new')}, ` +
    `unpriced_tokens = unpriced_tokens - (${unpricedTokens('old')}) + (${unpricedTokens('new')})`;
  return updateUsageOfOldRow(set, dimensions);
}

/** The triggers that keep the usage tables equal to the sums over request_log, for the breakdowns given. */
const usageTriggers = (dimensions: DimensionColumns) => `      CREATE TRIGGER request_log_usage_delete AFTER DELETE ON request_log BEGIN
${usageDelete(dimensions)}
      END;
      CREATE TRIGGER request_log_usage_reprice AFTER UPDATE OF cost_usd ON request_log BEGIN
${usageReprice(dimensions)}
      END;`;



export const migrations: readonly Migration[] = [
  {
    version: 1,
    description: 'request log and settings',
    sql: `
      CREATE TABLE request_log (
        id                INTEGER PRIMARY KEY,
        created_at        INTEGER NOT NULL,
        trace_id          TEXT NOT NULL,
        metadata          TEXT NOT NULL DEFAULT '{}',
        key_id            TEXT,
        provider          TEXT,
        model             TEXT,
        path              TEXT NOT NULL,
        status            INTEGER NOT NULL,
        latency_ms        REAL NOT NULL,
        ttfb_ms           REAL,
        prompt_tokens     INTEGER,
        completion_tokens INTEGER,
        stream            INTEGER NOT NULL DEFAULT 0,
        error             TEXT,
        attempts          INTEGER NOT NULL DEFAULT 1,
        request_headers   TEXT,
        request_body      TEXT,
        response_body     TEXT
      );
      CREATE INDEX request_log_provider ON request_log (provider, id);
      CREATE INDEX request_log_status ON request_log (status, id);
      CREATE INDEX request_log_model ON request_log (model, id);
      CREATE INDEX request_log_created ON request_log (created_at);

      CREATE TABLE settings (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
    `,
  },
  {
    version: 2,
    description: 'virtual keys, gateway keys and the wrapped data key',
    sql: `
      -- One row: the data key pair. Secrets are sealed to public_key; the private half is stored
      -- only wrapped by a key protector (keychain, master key or key file), never in the clear.
      CREATE TABLE key_store (
        id                  INTEGER PRIMARY KEY CHECK (id = 1),
        format              INTEGER NOT NULL,
        protector_mode      TEXT NOT NULL,
        wrapped_private_key BLOB NOT NULL,
        public_key          BLOB NOT NULL,
        created_at          INTEGER NOT NULL
      );

      -- Keys are stored as SHA-256 hashes plus a short display prefix; the key itself is shown once.
      CREATE TABLE virtual_keys (
        id           TEXT PRIMARY KEY,
        name         TEXT NOT NULL,
        provider     TEXT NOT NULL,
        custom_host  TEXT,
        key_hash     BLOB NOT NULL UNIQUE,
        key_prefix   TEXT NOT NULL,
        -- Non-secret credential fields (resource name, region ...) for display; JSON.
        settings     TEXT NOT NULL DEFAULT '{}',
        -- All credential fields, sealed (secret-box.ts); NULL once revoked.
        credentials  BLOB,
        created_at   INTEGER NOT NULL,
        updated_at   INTEGER NOT NULL,
        revoked_at   INTEGER
      );

      CREATE TABLE gateway_keys (
        id           TEXT PRIMARY KEY,
        name         TEXT NOT NULL,
        key_hash     BLOB NOT NULL UNIQUE,
        key_prefix   TEXT NOT NULL,
        created_at   INTEGER NOT NULL,
        updated_at   INTEGER NOT NULL,
        revoked_at   INTEGER
      );

      -- Bumped by every change to the key tables, whoever makes it (server, CLI, a hand edit), so
      -- a running server notices another process's change without rereading the tables each time.
      CREATE TABLE key_generation (
        id    INTEGER PRIMARY KEY CHECK (id = 1),
        value INTEGER NOT NULL
      );
      INSERT INTO key_generation (id, value) VALUES (1, 0);
      CREATE TRIGGER virtual_keys_insert AFTER INSERT ON virtual_keys BEGIN UPDATE key_generation SET value = value + 1; END;
      CREATE TRIGGER virtual_keys_update AFTER UPDATE ON virtual_keys BEGIN UPDATE key_generation SET value = value + 1; END;
      CREATE TRIGGER virtual_keys_delete AFTER DELETE ON virtual_keys BEGIN UPDATE key_generation SET value = value + 1; END;
      CREATE TRIGGER gateway_keys_insert AFTER INSERT ON gateway_keys BEGIN UPDATE key_generation SET value = value + 1; END;
      CREATE TRIGGER gateway_keys_update AFTER UPDATE ON gateway_keys BEGIN UPDATE key_generation SET value = value + 1; END;
      CREATE TRIGGER gateway_keys_delete AFTER DELETE ON gateway_keys BEGIN UPDATE key_generation SET value = value + 1; END;
      CREATE TRIGGER key_store_change AFTER UPDATE ON key_store BEGIN UPDATE key_generation SET value = value + 1; END;
    `,
  },
  {
    version: 3,
    description: 'each attempt of a request (status, error, duration), so retries can be read back',
    sql: `
      -- JSON array of {status, error, durationMs}, one item per call to the provider; NULL when none was made.
      ALTER TABLE request_log ADD COLUMN attempt_log TEXT;
    `,
  },
  {
    version: 4,
    description: 'request log indexed by key, for when each key was last used',
    sql: `
      CREATE INDEX request_log_key ON request_log (key_id, created_at);
    `,
  },
  {
    version: 5,
    description: 'a word index for the log search box, filled once per written batch',
    sql: `
      -- The log's text search (model, trace id, error, metadata, path) scanned every row when nothing
      -- matched: seconds at a million rows. A word index finds matches newest first and stops at a page;
      -- a search matches words in order, the last one as a prefix ("gpt-4o-m", "fc2280b8-d1", "rate lim").
      -- Trigrams would find any substring but cost ~100 µs more per log write (some 70 entries a row).
      -- Contentless: the text stays in request_log only. RequestLog.writeBatch adds each batch in one
      -- INSERT … SELECT (a trigger per row doubled a write's cost), so a row can be deleted before it was
      -- indexed, which contentless_delete handles.
      CREATE VIRTUAL TABLE request_log_search USING fts5(
        model, trace_id, error, metadata, path,
        content = '', contentless_delete = 1, tokenize = 'unicode61'
      );
      INSERT INTO request_log_search (rowid, model, trace_id, error, metadata, path)
        SELECT id, model, trace_id, error, metadata, path FROM request_log;
      CREATE TRIGGER request_log_search_delete AFTER DELETE ON request_log BEGIN
        DELETE FROM request_log_search WHERE rowid = old.id;
      END;
    `,
  },
  {
    version: 6,
    description: "each call's client dialect, provider wire format, fields dropped in translation, and cache and reasoning tokens",
    sql: `
      -- dialect: what the client spoke (openai-chat, openai-completions, anthropic-messages, openai-responses),
      -- as the gateway named it (dialect_given) or, for rows written before, as their path says: they were
      -- all OpenAI dialects. Derived when read rather than written into every old row: an UPDATE of each
      -- row rewrote the whole log (75 s for a million rows with 2 KB bodies); building the index reads it once (5 s there).
      -- provider_format: the provider call's wire format; dropped: a JSON array of request fields the
      -- translation could not carry (NULL when none). prompt_tokens keeps counting every input token,
      -- cached ones included; the three new counts are parts of prompt_tokens / completion_tokens.
      ALTER TABLE request_log ADD COLUMN dialect_given TEXT;
      ALTER TABLE request_log ADD COLUMN dialect TEXT GENERATED ALWAYS AS (coalesce(dialect_given, CASE
          WHEN path LIKE '%/chat/completions' THEN 'openai-chat'
          WHEN path LIKE '%/completions' THEN 'openai-completions'
        END)) VIRTUAL;
      ALTER TABLE request_log ADD COLUMN provider_format TEXT;
      ALTER TABLE request_log ADD COLUMN dropped TEXT;
      ALTER TABLE request_log ADD COLUMN cache_read_tokens INTEGER;
      ALTER TABLE request_log ADD COLUMN cache_write_tokens INTEGER;
      ALTER TABLE request_log ADD COLUMN reasoning_tokens INTEGER;
      -- For the Logs page's dialect filter, newest first.
      CREATE INDEX request_log_dialect ON request_log (dialect, id);
    `,
  },
  {
    version: 7,
    description: 'routes (a model name to ordered targets), the route and target of each logged call, and virtual keys\' default model and model map',
    sql: `
      -- One row per route, in the order they are checked (position, first match wins). targets: a JSON array
      -- of {key, model?, timeout_ms?, weight?, when?} where key is a virtual key's name.
      CREATE TABLE routes (
        id          TEXT PRIMARY KEY,
        position    INTEGER NOT NULL,
        name        TEXT NOT NULL UNIQUE,
        match       TEXT NOT NULL,
        strategy    TEXT NOT NULL,
        targets     TEXT NOT NULL,
        created_at  INTEGER NOT NULL,
        updated_at  INTEGER NOT NULL
      );
      -- Bumped by every change to routes, whoever makes it (server, CLI), as key_generation is for keys.
      CREATE TABLE route_generation (
        id    INTEGER PRIMARY KEY CHECK (id = 1),
        value INTEGER NOT NULL
      );
      INSERT INTO route_generation (id, value) VALUES (1, 0);
      CREATE TRIGGER routes_insert AFTER INSERT ON routes BEGIN UPDATE route_generation SET value = value + 1; END;
      CREATE TRIGGER routes_update AFTER UPDATE ON routes BEGIN UPDATE route_generation SET value = value + 1; END;
      CREATE TRIGGER routes_delete AFTER DELETE ON routes BEGIN UPDATE route_generation SET value = value + 1; END;

      -- route: the matched route's name; route_target: "key name → model" of the target that served (or was tried last).
      ALTER TABLE request_log ADD COLUMN route TEXT;
      ALTER TABLE request_log ADD COLUMN route_target TEXT;
      -- The Logs page's route filter and each route's last served call, newest first.
      CREATE INDEX request_log_route ON request_log (route, id) WHERE route IS NOT NULL;

      -- default_model: sent when a body names no model; model_map: JSON {requested name: provider's name}.
      ALTER TABLE virtual_keys ADD COLUMN default_model TEXT;
      ALTER TABLE virtual_keys ADD COLUMN model_map TEXT;
    `,
  },
  {
    version: 8,
    description: "each call's cost in USD and client tool, and daily usage totals for the Usage page",
    sql: `
      -- cost_usd: what the call cost by the model catalog (src-main/catalog), NULL when the model or its
      -- usage is unknown (never 0 for unknown). client: the tool that made the call (claude-cli, codex,
      -- openai-js, curl …), from its user-agent or else its dialect.
      ALTER TABLE request_log ADD COLUMN cost_usd REAL;
      ALTER TABLE request_log ADD COLUMN client TEXT;
      -- The call's local day (YYYY-MM-DD) as the gateway dated it, for the usage tables.
      ALTER TABLE request_log ADD COLUMN day TEXT;

      -- Usage totals per local day and per month, for each of the four breakdowns (dim 'key', 'model',
      -- 'provider', 'client'; name: its value, '' when the call had none): the Usage page reads a few hundred
      -- of these rows instead of scanning the log (a year by month is 12 rows a name). The log writer adds
      -- each batch as it writes it (request-log.ts usageOfBatch), and a deleted row is taken back
      -- out, so the totals always equal the sums over request_log. Costs in nano-dollars: integer sums are exact.
      CREATE TABLE usage_daily (
        day                TEXT NOT NULL,
        dim                TEXT NOT NULL,
        name               TEXT NOT NULL,
        requests           INTEGER NOT NULL,
        errors             INTEGER NOT NULL,
        prompt_tokens      INTEGER NOT NULL,
        completion_tokens  INTEGER NOT NULL,
        cache_read_tokens  INTEGER NOT NULL,
        cache_write_tokens INTEGER NOT NULL,
        reasoning_tokens   INTEGER NOT NULL,
        cost_nanos         INTEGER NOT NULL,
        -- Calls with usage but no price (a model the catalog does not know): their cost is unknown.
        unpriced_requests  INTEGER NOT NULL,
        unpriced_tokens    INTEGER NOT NULL,
        PRIMARY KEY (dim, day, name)
      ) WITHOUT ROWID;
      -- The same per month (month: its first day, YYYY-MM-01).
      CREATE TABLE usage_monthly (
        month              TEXT NOT NULL,
        dim                TEXT NOT NULL,
        name               TEXT NOT NULL,
        requests           INTEGER NOT NULL,
        errors             INTEGER NOT NULL,
        prompt_tokens      INTEGER NOT NULL,
        completion_tokens  INTEGER NOT NULL,
        cache_read_tokens  INTEGER NOT NULL,
        cache_write_tokens INTEGER NOT NULL,
        reasoning_tokens   INTEGER NOT NULL,
        cost_nanos         INTEGER NOT NULL,
        unpriced_requests  INTEGER NOT NULL,
        unpriced_tokens    INTEGER NOT NULL,
        PRIMARY KEY (dim, month, name)
      ) WITHOUT ROWID;
${USAGE_BACKFILL}
${usageTriggers(USAGE_DIMENSION_COLUMNS_V8)}
      -- Rows from before this migration have no local day: the cost backfill finds them by that.
      CREATE INDEX request_log_undated ON request_log (id) WHERE day IS NULL;
    `,
  },
  {
    version: 9,
    description: 'limits per key (requests and tokens per minute, USD per day and month) and the spend they are checked against',
    sql: `
      -- One row per key that has limits; NULL = no limit of that kind. key_id is a virtual key (vk_) or a
      -- gateway key (gk_) id; a revoked key's row stays but is never consulted (the key no longer authenticates).
      CREATE TABLE key_limits (
        key_id      TEXT PRIMARY KEY,
        rpm         INTEGER,
        tpm         INTEGER,
        daily_usd   REAL,
        monthly_usd REAL,
        updated_at  INTEGER NOT NULL
      );
      -- What each key spent per day (the server's local calendar day, YYYY-MM-DD), so budgets hold across
      -- a restart. Written in batches by the running server (about once a second), never once per request;
      -- a month's spend is the sum of its days.
      CREATE TABLE key_spend (
        key_id   TEXT NOT NULL,
        day      TEXT NOT NULL,
        cost_usd REAL NOT NULL DEFAULT 0,
        tokens   INTEGER NOT NULL DEFAULT 0,
        requests INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (key_id, day)
      ) WITHOUT ROWID;
      -- Bumped by every change to key_limits, whoever makes it (server, CLI), so a running server rereads
      -- the limits within a second of a change made by another process, as it does for keys.
      CREATE TABLE key_limits_generation (
        id    INTEGER PRIMARY KEY CHECK (id = 1),
        value INTEGER NOT NULL
      );
      INSERT INTO key_limits_generation (id, value) VALUES (1, 0);
      CREATE TRIGGER key_limits_insert AFTER INSERT ON key_limits BEGIN UPDATE key_limits_generation SET value = value + 1; END;
      CREATE TRIGGER key_limits_update AFTER UPDATE ON key_limits BEGIN UPDATE key_limits_generation SET value = value + 1; END;
      CREATE TRIGGER key_limits_delete AFTER DELETE ON key_limits BEGIN UPDATE key_limits_generation SET value = value + 1; END;
    `,
  },
  {
    version: 10,
    description: 'prompts saved from the Playground, by name',
    sql: `
      -- endpoint and body are the request as the Playground sends it (a gateway path and its JSON body),
      -- the same pair a log row keeps, so both re-open the same way. key_id is the virtual key it ran
      -- with (its id only: never the key); NULL when it ran with a pasted key or a provider token.
      CREATE TABLE saved_prompts (
        id         TEXT PRIMARY KEY,
        name       TEXT NOT NULL UNIQUE,
        endpoint   TEXT NOT NULL,
        body       TEXT NOT NULL,
        key_id     TEXT,
        created_at INTEGER NOT NULL,
        updated_at INTEGER NOT NULL
      );
    `,
  },
  {
    version: 11,
    description: "whether other keys' calls may reach a virtual key's credentials through routes, and the key that served each routed call",
    sql: `
      -- allow_routing: 1 lets a route serve another virtual key's call with this key's credentials (a gateway
      -- key's routed calls and the key's own are always served). 0 for every key, old ones included: a key
      -- handed to a tool spends only its own credentials until its owner says otherwise.
      ALTER TABLE virtual_keys ADD COLUMN allow_routing INTEGER NOT NULL DEFAULT 0;
      -- target_key_id: the virtual key whose credentials served a routed call (key_id stays the caller's);
      -- NULL without a route. Indexed for the limits' minute windows after a restart, which count both.
      ALTER TABLE request_log ADD COLUMN target_key_id TEXT;
      CREATE INDEX request_log_target_key ON request_log (target_key_id, created_at) WHERE target_key_id IS NOT NULL;
    `,
  },
  {
    version: 12,
    description: 'how many requests a log row stands for (a burst of refusals without a valid key is one row)',
    sql: `
      -- NULL = 1. A row for refusals without a valid key (401) coalesced in one window (gateway/refusal-log.ts)
      -- holds how many there were; the usage totals count such a row once, as the row it is.
      ALTER TABLE request_log ADD COLUMN request_count INTEGER;
    `,
  },
  {
    version: 13,
    description: "whether a virtual key's server speaks Chat Completions only (no Responses API)",
    sql: `
      -- chat_only: 1 when the key's server has no /v1/responses (a local LM Studio, vLLM or llama.cpp behind an
      -- 'openai' key): Responses calls are then translated to Chat. Set by hand, by Make a key from what
      -- discovery saw, or by the gateway when the server answers 404 to a passed-through /v1/responses.
      -- Key names stay unchecked here: the two kinds live in two tables, so the key store checks that a
      -- name is free among the active keys of both in the transaction that writes it.
      ALTER TABLE virtual_keys ADD COLUMN chat_only INTEGER NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 14,
    description: 'MCP servers (their secrets sealed), the MCP servers each key may use, and MCP calls in the request log',
    sql: `
      -- One row per MCP server Gatehouse connects to. args, env, headers, disabled_tools: JSON. secret_env and
      -- secret_headers: JSON {name: value} sealed to the data key (secret-box.ts), NULL when none; their names
      -- are kept in the clear beside them (secret_env_names, secret_header_names) so they can be shown.
      CREATE TABLE mcp_servers (
        name                TEXT PRIMARY KEY,
        transport           TEXT NOT NULL,
        command             TEXT,
        args                TEXT NOT NULL DEFAULT '[]',
        env                 TEXT NOT NULL DEFAULT '{}',
        secret_env_names    TEXT NOT NULL DEFAULT '[]',
        secret_env          BLOB,
        url                 TEXT,
        headers             TEXT NOT NULL DEFAULT '{}',
        secret_header_names TEXT NOT NULL DEFAULT '[]',
        secret_headers      BLOB,
        enabled             INTEGER NOT NULL DEFAULT 1,
        timeout_ms          INTEGER NOT NULL,
        disabled_tools      TEXT NOT NULL DEFAULT '[]',
        created_at          INTEGER NOT NULL,
        updated_at          INTEGER NOT NULL
      );
      -- Bumped by every change to mcp_servers, whoever makes it (server, CLI), as key_generation is for keys.
      CREATE TABLE mcp_server_generation (
        id    INTEGER PRIMARY KEY CHECK (id = 1),
        value INTEGER NOT NULL
      );
      INSERT INTO mcp_server_generation (id, value) VALUES (1, 0);
      CREATE TRIGGER mcp_servers_insert AFTER INSERT ON mcp_servers BEGIN UPDATE mcp_server_generation SET value = value + 1; END;
      CREATE TRIGGER mcp_servers_update AFTER UPDATE ON mcp_servers BEGIN UPDATE mcp_server_generation SET value = value + 1; END;
      CREATE TRIGGER mcp_servers_delete AFTER DELETE ON mcp_servers BEGIN UPDATE mcp_server_generation SET value = value + 1; END;

      -- The MCP servers a key may see and call: a JSON array of names; NULL = every server.
      ALTER TABLE virtual_keys ADD COLUMN mcp_servers TEXT;
      ALTER TABLE gateway_keys ADD COLUMN mcp_servers TEXT;

      -- kind: 'mcp' for a tools/call, resources/read or prompts/get through /mcp; NULL = a model call.
      -- mcp_server, mcp_tool: the server and the tool (prompt name, resource URI) it was for.
      ALTER TABLE request_log ADD COLUMN kind TEXT;
      ALTER TABLE request_log ADD COLUMN mcp_server TEXT;
      ALTER TABLE request_log ADD COLUMN mcp_tool TEXT;
      CREATE INDEX request_log_mcp ON request_log (mcp_server, mcp_tool, id) WHERE mcp_server IS NOT NULL;
      CREATE INDEX request_log_kind ON request_log (kind, id) WHERE kind IS NOT NULL;
    `,
  },
  {
    version: 16,
    description: "whether a call's usage is the gateway's own count (embeddings from providers that report none)",
    sql: `
      -- 1 when the provider reported no token count and the gateway counted the input itself (Gemini's
      -- batch embeddings, say); NULL when the usage is the provider's own (or unknown).
      ALTER TABLE request_log ADD COLUMN usage_estimated INTEGER;
    `,
  },
  {
    version: 17,
    description: 'which models each key may call (an allow-list per key; no row = every model)',
    sql: `
      -- models: a JSON array of model names, globs or route:NAME entries (core/model-allow-lists.ts).
      -- key_id is a virtual or a gateway key's id; a revoked key's row is never read.
      CREATE TABLE key_allowed_models (
        key_id     TEXT PRIMARY KEY,
        models     TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
      -- Moves on every change, so a running server (or another on the same data dir) reloads the lists.
      CREATE TABLE key_allowed_models_generation (id INTEGER PRIMARY KEY CHECK (id = 1), generation INTEGER NOT NULL);
      INSERT INTO key_allowed_models_generation (id, generation) VALUES (1, 0);
    `,
  },
  {
    version: 18,
    description: 'the model that served each call, the Usage model breakdown by it rather than by the name asked for, and a route breakdown',
    sql: `
      -- served_model: the model the provider was sent (a route target's model, a key's model map applied);
      -- model stays what the client asked for (a route name such as 'fast'). Left NULL on older rows, which
      -- are read as the model of their route target's label when routed, else the model asked for
      -- (dimensionValue; log-row.ts toEntry).
      ALTER TABLE request_log ADD COLUMN served_model TEXT;
      -- The model breakdown summed again by the served model, and the route breakdown ('route': the route's
      -- name, '' for calls without one) summed for the first time; the triggers take rows back out by both.
      DROP TRIGGER request_log_usage_delete;
      DROP TRIGGER request_log_usage_reprice;
      DELETE FROM usage_daily WHERE dim IN ('model', 'route');
      DELETE FROM usage_monthly WHERE dim IN ('model', 'route');
      ${usageUpsert('usage_daily', '0', { model: 'served_model', route: 'route' })};
      ${usageUpsert('usage_monthly', '0', { model: 'served_model', route: 'route' })};
${usageTriggers(USAGE_DIMENSION_COLUMNS)}
    `,
  },
  {
    version: 19,
    description: "a key's and a client tool's calls newest first (the Logs page's key and client filters)",
    sql: `
      CREATE INDEX request_log_client ON request_log (client, id);
      -- request_log_key is by time, for the Usage page; the list pages by id, and without this index a key
      -- with a hundred thousand calls is sorted whole for each page.
      CREATE INDEX request_log_key_id ON request_log (key_id, id);
    `,
  },
  {
    version: 20,
    description: 'the chunks of spill files written (log rows the database refused when the log closed), so none is written twice',
    sql: `
      -- chunk: '<spill file id>/<chunk number>' (store/log-spill.ts), recorded in the chunk's own transaction.
      CREATE TABLE log_spills (chunk TEXT PRIMARY KEY, rows INTEGER NOT NULL, written_at INTEGER NOT NULL);
    `,
  },
  {
    version: 21,
    description: 'the MCP tools each key may use, and whether a key with no server list sees every MCP server or none',
    sql: `
      -- mcp_tools: JSON {server: [tool names]}; a server not named keeps all its tools; NULL = every tool.
      -- mcp_default: 'allow' or 'deny', what a key whose mcp_servers is NULL may use; NULL = the global
      -- setting mcpKeyDefault (core/mcp-access.ts).
      ALTER TABLE virtual_keys ADD COLUMN mcp_tools TEXT;
      ALTER TABLE virtual_keys ADD COLUMN mcp_default TEXT;
      ALTER TABLE gateway_keys ADD COLUMN mcp_tools TEXT;
      ALTER TABLE gateway_keys ADD COLUMN mcp_default TEXT;
    `,
  },
  {
    version: 22,
    description: 'the agent session each call belongs to, and its calls in time order (the Sessions page)',
    sql: `
      -- session_id: gateway/agent-session.ts; NULL on rows from before it was kept (they belong to no session).
      ALTER TABLE request_log ADD COLUMN session_id TEXT;
      -- The newest sessions (store/session-queries.ts): session rows newest first, with the list's filters,
      -- read from the index alone; then each session's calls in order and its sums, from the index alone too.
      CREATE INDEX request_log_session_recent ON request_log (created_at, id, session_id, key_id, client) WHERE session_id IS NOT NULL;
      CREATE INDEX request_log_session ON request_log (session_id, created_at, kind, status, latency_ms, prompt_tokens, completion_tokens, cost_usd, key_id, client)
        WHERE session_id IS NOT NULL;
    `,
  },
  {
    version: 23,
    description: 'OAuth sign-in to remote MCP servers: whether a server needs it, its sealed grant, and when its token expires',
    sql: `
      -- oauth_state: NULL = the server takes no OAuth; 'sign-in-needed' or 'signed-in' (core/mcp-servers.ts).
      -- oauth_grant: the client registration, tokens and discovered metadata as one sealed JSON value
      -- (context mcp_servers / name / oauth_grant). oauth_expires_at: the access token's expiry (ms), for display.
      ALTER TABLE mcp_servers ADD COLUMN oauth_state TEXT;
      ALTER TABLE mcp_servers ADD COLUMN oauth_grant BLOB;
      ALTER TABLE mcp_servers ADD COLUMN oauth_expires_at INTEGER;
    `,
  },
];
