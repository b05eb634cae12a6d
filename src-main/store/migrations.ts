// Numbered schema migrations. Each runs once, in order, inside a transaction; `PRAGMA user_version`
// records the last one applied. Append new ones; never edit one that has shipped.

export interface Migration {
  version: number;
  description: string;
  sql: string;
}

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
    // 7–9 belong to other branches; the runner applies whichever are present, in order.
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
];
