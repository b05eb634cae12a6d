// The one redaction step every stored row passes: a CallRecord (a model call, embeddings, an MCP call, a
// refusal, whatever makes one next) becomes a RedactedCallRecord, and the request log takes nothing else
// into its queue (store/request-log.ts `append`). Only redactRecord() makes one: the type is branded with
// a symbol no other module can name, and CallRecord's fields are listed in FIELDS, each with how it is
// redacted, so a new column does not type-check until it is given a treatment (a text cannot be "kept").
import type { AttemptRecord, CallRecord, McpCallLabels } from './call-record.js';
import { CUSTOM_HOST_HEADER, isSecretHeader, isSecretName, MIN_SECRET_CHARS, REDACTED, redactShapes, redactUrl } from './redact.js';

declare const REDACTED_BRAND: unique symbol;

/** The fields of a CallRecord that say what to redact; they are not stored. */
type RedactionInputs = 'secrets' | 'secretHeaderNames';

/** A call's record with every column redacted (and its bodies kept or dropped, cut to size): what the log stores. */
export type RedactedCallRecord = Readonly<Omit<CallRecord, RedactionInputs | 'requestHeaders'>> & {
  readonly requestHeaders: Readonly<Record<string, string>>;
  readonly [REDACTED_BRAND]: true;
};

type Present<T> = Exclude<T, null | undefined>;
/** The treatments a field of this type may get: numbers and flags are kept, anything with text is redacted. */
type Treatment<T> = [Present<T>] extends [number | boolean]
  ? 'kept'
  : [Present<T>] extends [string]
    ? 'text' | 'url' | 'body'
    : [Present<T>] extends [readonly string[]]
      ? 'texts'
      : [Present<T>] extends [AttemptRecord[]]
        ? 'attempts'
        : [Present<T>] extends [McpCallLabels]
          ? 'mcp'
          : [Present<T>] extends [Record<string, string>]
            ? 'metadata'
            : [Present<T>] extends [Record<string, string | string[] | undefined>]
              ? 'headers'
              : never;

/**
 * Every field of CallRecord and how it is redacted. A field missing here, or of a type with no treatment,
 * fails the type check; redactRecord does what this says, and the choke-point suite holds it to it.
 */
export const FIELDS: { readonly [K in keyof CallRecord]-?: K extends RedactionInputs ? 'input' : Treatment<CallRecord[K]> } = {
  createdAt: 'kept',
  traceId: 'text',
  metadata: 'metadata',
  keyId: 'text',
  targetKeyId: 'text',
  unauthenticated: 'kept',
  provider: 'text',
  model: 'text',
  servedModel: 'text',
  path: 'url',
  status: 'kept',
  latencyMs: 'kept',
  ttfbMs: 'kept',
  stream: 'kept',
  error: 'text',
  attempts: 'kept',
  attemptLog: 'attempts',
  dialect: 'text',
  providerFormat: 'text',
  dropped: 'texts',
  route: 'text',
  routeTarget: 'text',
  count: 'kept',
  sessionId: 'text',
  requestHeaders: 'headers',
  requestBody: 'body',
  responseBody: 'body',
  secrets: 'input',
  secretHeaderNames: 'input',
  promptTokens: 'kept',
  completionTokens: 'kept',
  cacheReadTokens: 'kept',
  cacheWriteTokens: 'kept',
  reasoningTokens: 'kept',
  usageEstimated: 'kept',
  costUsd: 'kept',
  mcp: 'mcp',
};

/** What is done with a row's bodies: kept (cut to `maxBodyChars` each, after redaction) or dropped. */
export interface BodyPolicy {
  keepBodies: boolean;
  maxBodyChars: number;
}

const NO_HEADER_NAMES: ReadonlySet<string> = new Set();
const NEEDS_JSON_ESCAPE = /["\\\u0000-\u001f]/;
const SHORTEST_REDACTABLE = 6;
/**
 * Characters beyond a body's cut that are redacted with it (the secrets' own length aside): more than any
 * key shape or URL credential of redact.ts needs to be known as one. A URL user-info longer than this
 * that straddles the cut is stored up to the cut (no real one is that long).
 */
const SHAPE_MARGIN = 1024;

/**
 * Values a request's own headers and metadata may add to a record's secrets. Each secret costs a scan of
 * every text of the row (bodies up to the size cap): a client sending a thousand `x-key-N` headers must not
 * make its row cost a thousand scans. The gateway's own secrets (the key's, the MCP server's) are not capped.
 */
export const MAX_REQUEST_SECRETS = 32;

/** The exact values blanked in one record: its secrets, and the values its headers and metadata name as credentials. */
class RecordSecrets {
  private readonly values: string[] = [];
  private requestValues = 0;

  constructor(secrets: readonly string[] | undefined) {
    if (secrets) for (const secret of secrets) this.add(secret);
  }

  /** A value the request's headers or metadata name as a credential: blanked everywhere, up to MAX_REQUEST_SECRETS of them. */
  addFromRequest(value: string): void {
    if (this.requestValues >= MAX_REQUEST_SECRETS) return;
    const before = this.values.length;
    this.add(value);
    if (this.values.length > before) this.requestValues++;
  }

  add(value: string | undefined): void {
    const trimmed = this.keep(value);
    if (trimmed === undefined) return;
    // `Bearer <token>`, `Basic <creds>`: the token alone may be echoed.
    const space = trimmed.indexOf(' ');
    if (space !== -1) this.add(trimmed.slice(space + 1));
    // As it reads inside a JSON string (a body, the metadata header): escaped quotes, backslashes, controls.
    // Kept as it is, not added again: its own backslashes would be escaped anew at every turn, doubling it.
    if (NEEDS_JSON_ESCAPE.test(trimmed)) this.keep(JSON.stringify(trimmed).slice(1, -1));
  }

  /** Keeps one value as given (trimmed); undefined when it is too short or kept already. */
  private keep(value: string | undefined): string | undefined {
    if (value === undefined || value.length < MIN_SECRET_CHARS) return undefined;
    const trimmed = value.trim();
    if (trimmed.length < MIN_SECRET_CHARS || this.values.includes(trimmed)) return undefined;
    this.values.push(trimmed);
    return trimmed;
  }

  /** The shortest value kept, once ordered() has run (0 before: every text is searched): a text shorter than it holds none of them. */
  private shortest = 0;

  /** Longest first: a secret that contains another is blanked whole, not around the shorter one. */
  ordered(): void {
    if (this.values.length > 1) this.values.sort((a, b) => b.length - a.length);
    this.shortest = this.values.length > 0 ? this.values[this.values.length - 1].length : Infinity;
  }

  /** text() of a column that may be null or left out. (Methods, not closures made per row.) */
  optional<T extends string | null | undefined>(value: T): T {
    return (value === null || value === undefined ? value : this.text(value)) as T;
  }

  /**
   * A body as stored, null when bodies are not kept. A body longer than the cut is first cut with a margin
   * beyond it (cutMargin), redacted, and cut again margin-short of its end: so the cost is that of the
   * stored part, not of the body (a 10 MiB body was scanned once per secret), and a secret or a key shape
   * that straddles the cut is whole in what is redacted, while the part it may reach beyond is not stored.
   */
  body(value: string | null, policy: BodyPolicy): string | null {
    if (!policy.keepBodies || value === null) return null;
    const max = policy.maxBodyChars;
    const margin = this.cutMargin();
    if (value.length <= max + 2 * margin) return cut(this.text(value), max);
    const redacted = this.text(value.slice(0, max + 2 * margin));
    // The last `margin` characters may end in part of a secret (or of a key shape) cut off: never kept.
    const kept = redacted.slice(0, Math.min(max, redacted.length - margin));
    return `${kept}\n… [${value.length - max} more characters not stored]`;
  }

  /**
   * Beyond the cut, as much as the longest secret kept here or any key shape or URL credential redact.ts
   * knows (SHAPE_MARGIN): whatever starts before the cut is whole in a text this much longer. Counted
   * twice in body(): once for the secret at the cut, once for what redaction adds or takes away before it.
   */
  private cutMargin(): number {
    return Math.max(this.values.length > 0 ? this.values[0].length : 0, SHAPE_MARGIN);
  }

  text(text: string): string {
    // Shorter than any secret kept here or any shape redact.ts knows (`?key=x`): nothing to blank.
    if (text.length < SHORTEST_REDACTABLE) return text;
    if (text.length < this.shortest) return redactShapes(text);
    let result = text;
    for (const secret of this.values) {
      // includes() first: split/join copies the whole text even when the secret is absent.
      if (result.includes(secret)) result = result.split(secret).join(REDACTED);
    }
    return redactShapes(result);
  }
}

/**
 * Past the cut, the characters redacted with the kept part of a body: a key shape or a URL's user-info that
 * starts before the cut is matched whole within it (a user-info longer than this is matched only in part).
 */
const SHAPE_MARGIN_CHARS = 4096;

/** `text` cut to `max` characters, saying how many more there were (`unread` of them never redacted, as never stored). */
function cut(text: string, max: number, unread = 0): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… [${text.length - max + unread} more characters not stored]`;
}

/**
 * The record as it may be stored: every text of every column with the record's secrets blanked (its
 * `secrets`, the values of headers and metadata entries whose names say they are credentials, wherever
 * they appear), and any key-shaped string or credential in a URL blanked too; header values named as
 * credentials replaced whole; the URL columns' query values blanked. Bodies are cut with a margin, redacted,
 * then cut (RecordSecrets.body), so no part of a secret survives at the cut; dropped when bodies are not kept.
 */
export function redactRecord(record: CallRecord, bodies: BodyPolicy): RedactedCallRecord {
  const secrets = new RecordSecrets(record.secrets);
  // Headers and metadata first: the values they name as credentials are blanked in every other column.
  const headerNames = record.secretHeaderNames ?? NO_HEADER_NAMES;
  const rawHeaders = record.requestHeaders;
  // Named as credentials: stored as [redacted], their values blanked everywhere else. The rest are
  // redacted once every secret is known.
  const headers: Record<string, string> = {};
  const plainHeaders: string[] = [];
  // for…in rather than Object.entries: no array of pairs per call (every row comes through here).
  for (const name in rawHeaders) {
    if (!Object.hasOwn(rawHeaders, name)) continue;
    const value = rawHeaders[name];
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    // Node gives header names in lower case.
    if (isSecretHeader(name, headerNames)) {
      headers[name] = REDACTED;
      if (Array.isArray(value)) for (const each of value) secrets.addFromRequest(each);
      else secrets.addFromRequest(value);
    } else {
      headers[name] = name === CUSTOM_HOST_HEADER ? redactUrl(text) : text;
      plainHeaders.push(name);
    }
  }
  // No prototype: an entry named `__proto__` (JSON.parse makes it an own property) is kept as the others.
  const metadata: Record<string, string> = Object.create(null) as Record<string, string>;
  for (const name in record.metadata) {
    if (Object.hasOwn(record.metadata, name) && isSecretName(name)) secrets.addFromRequest(record.metadata[name]);
  }
  secrets.ordered();
  for (const name of plainHeaders) headers[name] = secrets.text(headers[name]);
  for (const name in record.metadata) {
    if (Object.hasOwn(record.metadata, name)) metadata[secrets.text(name)] = isSecretName(name) ? REDACTED : secrets.text(record.metadata[name]);
  }

  const { mcp, attemptLog } = record;
  // Field by field, as FIELDS says (every field of CallRecord must be named here: the type requires it);
  // written out rather than looped over FIELDS, a few µs a row less on the serving thread. The suite
  // test/integration/redaction-choke-point.test.ts plants a secret in every field FIELDS calls a text
  // and checks this function blanks it.
  const stored: { [K in Exclude<keyof CallRecord, RedactionInputs>]-?: unknown } = {
    createdAt: record.createdAt,
    traceId: secrets.optional(record.traceId),
    metadata,
    keyId: secrets.optional(record.keyId),
    targetKeyId: secrets.optional(record.targetKeyId),
    unauthenticated: record.unauthenticated,
    provider: secrets.optional(record.provider),
    model: secrets.optional(record.model),
    servedModel: secrets.optional(record.servedModel),
    path: secrets.text(redactUrl(record.path)),
    status: record.status,
    latencyMs: record.latencyMs,
    ttfbMs: record.ttfbMs,
    stream: record.stream,
    error: secrets.optional(record.error),
    attempts: record.attempts,
    attemptLog: attemptLog?.map((attempt) => storedAttempt(attempt, secrets)),
    dialect: secrets.optional(record.dialect),
    providerFormat: secrets.optional(record.providerFormat),
    dropped: record.dropped?.map((name) => secrets.text(name)),
    route: secrets.optional(record.route),
    routeTarget: secrets.optional(record.routeTarget),
    count: record.count,
    sessionId: secrets.optional(record.sessionId),
    requestHeaders: headers,
    requestBody: secrets.body(record.requestBody, bodies),
    responseBody: secrets.body(record.responseBody, bodies),
    promptTokens: record.promptTokens,
    completionTokens: record.completionTokens,
    cacheReadTokens: record.cacheReadTokens,
    cacheWriteTokens: record.cacheWriteTokens,
    reasoningTokens: record.reasoningTokens,
    usageEstimated: record.usageEstimated,
    costUsd: record.costUsd,
    mcp: mcp && ({ server: secrets.text(mcp.server), tool: secrets.text(redactUrl(mcp.tool)), client: secrets.optional(mcp.client) ?? null } satisfies McpCallLabels),
  };
  return stored as RedactedCallRecord;
}

/** An attempt as the row keeps it: its texts redacted, whole milliseconds. Field by field, in the order written. */
function storedAttempt(attempt: AttemptRecord, secrets: RecordSecrets): AttemptRecord {
  const stored: AttemptRecord = { status: attempt.status, error: attempt.error === null ? null : secrets.text(attempt.error), durationMs: Math.round(attempt.durationMs) };
  if (attempt.target !== undefined) stored.target = secrets.text(attempt.target);
  if (attempt.reason !== undefined) stored.reason = secrets.text(attempt.reason);
  return stored;
}
