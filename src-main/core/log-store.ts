// The request log as the gateway writes it and the admin API reads it: the entries it answers with, the
// query they are listed by, and the contract of the store that keeps them (SQLite in store/request-log.ts).
import type { AttemptRecord, CallFacts, CallRecord } from './call-record.js';

export interface LogEntry extends CallFacts {
  id: string;
  createdAt: string;
  promptTokens: number | null;
  completionTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  reasoningTokens: number | null;
  /** USD; null when unknown (a model the catalog does not price, or no usage). */
  costUsd: number | null;
  /** The client tool (store/usage-client.ts): claude-cli, codex, openai-js, curl …, or the dialect. */
  client: string | null;
  /** Team mode: the instance that served the call (its id in the instances table); absent or null on SQLite. */
  instance?: string | null;
  /** Team mode: the name that instance ran under (--instance-name, default its host name); absent or null on SQLite. */
  instanceName?: string | null;
  /** The usage is the gateway's own count: the provider reported none (embeddings from Gemini's batch, say). Rows read back always have it. */
  usageEstimated?: boolean;
  /** The caller's key (a virtual key's vk_… or a gateway key's id); null when no key was accepted. */
  keyId: string | null;
  /** 'mcp' for a call through the MCP gateway, 'model' for the rest (always set on rows read back). */
  kind?: 'model' | 'mcp';
  /** The MCP server and tool (prompt, resource URI) of an MCP call; null for model calls (always set on rows read back). */
  server?: string | null;
  tool?: string | null;
}

export interface LogEntryDetail extends LogEntry {
  /** On a routed call: the virtual key whose credentials served it (or were tried last); null otherwise. */
  targetKeyId: string | null;
  attemptLog: AttemptRecord[];
  requestHeaders: Record<string, string>;
  requestBody: string | null;
  responseBody: string | null;
}

export const LOG_KINDS = ['model', 'embeddings', 'mcp'] as const;
export type LogKind = (typeof LOG_KINDS)[number];
/** The dialect of an embeddings call: a model call of that dialect is of kind 'embeddings'. */
export const EMBEDDINGS_DIALECT = 'openai-embeddings';
/** Each metadata filter is one more condition per row looked at. */
export const MAX_METADATA_FILTERS = 8;

export interface LogQuery {
  limit?: number;
  /** An entry id: list entries older than it (the `next` cursor). */
  before?: string;
  provider?: string;
  model?: string;
  /** A client dialect (CLIENT_DIALECTS). */
  dialect?: string;
  status?: number | 'error';
  /** A route's name: only calls that matched it. */
  route?: string;
  /** The caller's key id (a virtual key's vk_… or a gateway key's id). */
  key?: string;
  /** The client tool (store/usage-client.ts: claude-cli, codex, openai-js …), as the Usage page counts by it. */
  client?: string;
  /** 'mcp' (MCP calls), 'embeddings' (model calls to an embeddings endpoint) or 'model' (the other model calls). */
  kind?: LogKind;
  /** Team mode: an instance's name; on SQLite no row was served by a named instance, so none matches. */
  instance?: string;
  /** Metadata entries a row must all have (name → exact value), at most MAX_METADATA_FILTERS of them. */
  metadata?: ReadonlyArray<readonly [string, string]>;
  /** An MCP server's name; an MCP tool's (prompt's, resource's) name. */
  server?: string;
  tool?: string;
  q?: string;
  /** Epoch ms: only entries made at or after it. */
  since?: number;
  /** Epoch ms: only entries made before it. */
  until?: number;
}

/** A row of an export: the entry and the key that made the call (its id; the admin API adds the name). */
export interface ExportedLogEntry extends LogEntry {
  keyId: string | null;
}

export type LogListener = (entry: LogEntry) => void;

/** Where the request log is kept, and how it is read back. */
export interface RequestLogStore {
  /**
   * Takes one call's record. Runs on every request: it must only queue (memory), never wait for the
   * database; rows are written in batches off the request's path.
   */
  append(record: CallRecord): void;
  /**
   * Resolves once every queued row is stored (and the listeners told): reads after it see them. A store
   * that waits for another server (PostgreSQL) waits off the serving thread, so calls go on meanwhile.
   */
  flush(): Promise<void>;
  /** A page of entries, newest first; `next` is the cursor for the page after it (null at the end). */
  list(query?: LogQuery): Promise<{ items: LogEntry[]; next: string | null }>;
  get(id: string): Promise<LogEntryDetail | undefined>;
  /**
   * A page of an export: list()'s page (same filters, same `before` cursor, at most 500 rows) with each
   * row's key id. An export reads page after page, so it never holds more than one in memory.
   */
  exportPage(query: LogQuery): Promise<{ items: ExportedLogEntry[]; next: string | null }>;
  /** Hears of each entry once it is stored; returns a function that stops. */
  subscribe(listener: LogListener): () => void;
  /** Deletes entries older than `maxAgeMs`, then all beyond the newest `maxRows`, without holding requests up; resolves to how many went. */
  prune(maxAgeMs: number, maxRows: number): Promise<number>;
  /** Writes what is queued (or keeps it for the next start) and stops taking rows; never holds the serving thread. */
  close(): Promise<void>;
}
