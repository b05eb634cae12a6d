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
];
