// The record of one finished call, as the gateway hands it to whoever keeps or counts calls (the request
// log, metrics, limits). It lives below the gateway and the store so that neither imports the other.

/** What every log row says about a call, as handed over and as read back. */
export interface CallFacts {
  traceId: string;
  metadata: Record<string, string>;
  provider: string | null;
  /** The model the client asked for: a model, or a route's name ('fast'). */
  model: string | null;
  /**
   * The model the provider was sent: a route target's model, a key's model map applied. Left out: the model
   * asked for (rows read back always have it; for rows from before it was kept, the route target's model or
   * else the model asked for). What the Usage page's model breakdown counts by.
   */
  servedModel?: string | null;
  path: string;
  status: number;
  latencyMs: number;
  ttfbMs: number | null;
  stream: boolean;
  error: string | null;
  attempts: number;
  /**
   * The dialect the client spoke: 'openai-chat' | 'openai-completions' | 'anthropic-messages' |
   * 'openai-responses' (CLIENT_DIALECTS); null for model lists and failures before it was known. Left
   * out or null on the way in, it is taken from the path (/v1/chat/completions → 'openai-chat' …).
   */
  dialect: string | null;
  /**
   * The wire format of the provider call: 'openai-chat' | 'openai-completions' | 'openai-responses' |
   * 'anthropic-messages' | 'gemini' | 'bedrock-converse' (PROVIDER_FORMATS); null when no call was made.
   */
  providerFormat: string | null;
  /** Request fields dropped in translation to the provider's format; empty when nothing was. */
  dropped: string[];
  /** The name of the route the requested model matched; null when none did (always set on rows read back). */
  route?: string | null;
  /** "key name → model" of the route target that served the call (or was tried last); null without a route. */
  routeTarget?: string | null;
  /**
   * How many requests the row stands for: 1, or for a burst of refusals without a valid key (401), how
   * many came in one window (gateway/refusal-log.ts). Left out: 1 (rows read back always have it).
   */
  count?: number;
  /**
   * The agent session the call belongs to (gateway/agent-session.ts): the id the client named, or one the
   * gateway gave calls of the same key and client tool close together in time. Left out: none (rows from
   * before it was kept read back null).
   */
  sessionId?: string | null;
}

/** The fields of CallFacts the gateway may leave out (older callers): they default at write time. */
type DefaultedOnInput = 'dialect' | 'providerFormat' | 'dropped';

/**
 * What the gateway hands over for one finished request: what the log, metrics, limits and pricing read.
 * Derived figures are computed at write time.
 */
export interface CallRecord extends Omit<CallFacts, DefaultedOnInput>, Partial<Pick<CallFacts, DefaultedOnInput>> {
  createdAt: number;
  keyId: string | null;
  /** On a routed call: the virtual key whose credentials served it (or were tried last); keyId stays the caller's. */
  targetKeyId?: string | null;
  /** No key was accepted (a 401 before anything else was done): such rows may be coalesced (refusal-log.ts). */
  unauthenticated?: boolean;
  /** Each call to the provider, retries included. */
  attemptLog?: AttemptRecord[];
  /** The request's headers as they came: the log stores them redacted (core/redacted-record.ts). */
  requestHeaders: Record<string, string | string[] | undefined>;
  requestBody: string | null;
  /** What the client received, in the client's dialect (JSON or SSE text). */
  responseBody: string | null;
  /**
   * The values that must never be stored: the caller's and its target's secrets, an MCP server's secret
   * env and header values. Blanked out of every column wherever they appear (core/redacted-record.ts);
   * not stored themselves.
   */
  secrets?: readonly string[];
  /** Header names whose values are credentials besides those every row blanks (the ones the client asked to forward). */
  secretHeaderNames?: ReadonlySet<string>;
  /**
   * Usage, as the gateway's relay read it from the answer (translated events, or the answer passed
   * through, usage-from-body.ts); null or left out: not reported. `promptTokens` counts ALL input tokens, cached ones included.
   */
  promptTokens?: number | null;
  completionTokens?: number | null;
  /** Input tokens read from the provider's prompt cache (part of `promptTokens`). */
  cacheReadTokens?: number | null;
  /** Input tokens written to the provider's prompt cache (part of `promptTokens`). */
  cacheWriteTokens?: number | null;
  /** Output tokens spent on reasoning (part of `completionTokens`). */
  reasoningTokens?: number | null;
  /**
   * The usage is the gateway's own count, the provider reporting none (embeddings from Gemini's batch,
   * say); left out: false.
   */
  usageEstimated?: boolean;
  /**
   * What the call cost in USD (catalog/pricing.ts `priceCall`); null when the model or its usage is
   * unknown — never 0 for unknown. Left out, it is priced at write time from the usage counted then.
   */
  costUsd?: number | null;
  /** A call through the MCP gateway (/mcp): logged with kind "mcp"; absent for model calls. */
  mcp?: McpCallLabels;
}

/** What a log row of an MCP call names besides the common facts. */
export interface McpCallLabels {
  server: string;
  /** The tool called, the prompt got or the resource URI read. */
  tool: string;
  /** The client tool, from the session's clientInfo.name. */
  client: string | null;
}

export interface AttemptRecord {
  /** The provider's status, or null when the attempt failed before an answer (connection error, abort). */
  status: number | null;
  error: string | null;
  durationMs: number;
  /** On a routed call: "key name → model" of the target this attempt went to. */
  target?: string;
  /** On a routed call: why the router moved on from this attempt ("429", "timeout", "connection error", "cooling down" …). */
  reason?: string;
}
