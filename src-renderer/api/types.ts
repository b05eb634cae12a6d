// The shapes of the admin API (CONTRACT §5) as the UI reads them.
// Shapes owned by the main process are taken with `import type` so the UI and the server share one
// source of truth (STYLE: types at the edges).
import type { CredentialField } from '../../src-main/providers/types';
import type { GatewayKeySummary, VirtualKeySummary } from '../../src-main/core/key-repository';
import type { ExplainedTarget as RouterExplainedTarget, Explanation } from '../../src-main/gateway/routing/router';
import type { RouteInput, RoutesFile, RouteStrategy, TargetConditions, TargetInput } from '../../src-main/core/routes/types';
import type { LogEntry as StoredLogEntry, LogEntryDetail, LogQuery as StoredLogQuery } from '../../src-main/core/log-store';
import type { Route as StoredRoute } from '../../src-main/core/route-repository';
import type { Settings as StoredSettings } from '../../src-main/core/settings';
import type { SavedPrompt as StoredSavedPrompt } from '../../src-main/core/saved-prompts';
import type { ModelOffer as ServedModelOffer } from '../../src-main/admin/playground-routes';
import type { KeyModels as ServedKeyModels } from '../../src-main/admin/key-models';
import type { HostCheck as ServedHostCheck } from '../../src-main/admin/key-host-check';

/** GET /admin/api/virtual-keys/:id/models: what a set-up may name for the key, and its host's answer. */
export type KeyModels = ServedKeyModels;
/** POST /admin/api/virtual-keys/:id/host-check (Test connection), with advice on the host's shape. */
export type HostCheck = ServedHostCheck & { warnings: string[] };

export interface ApiErrorBody {
  error: { message: string; type?: string; param?: string | null; code?: string | number | null; provider?: string };
}

export interface Health {
  ok: boolean;
  version: string;
  /** Which storage answered: sqlite or postgresql (team mode), and there the instance's id. */
  storage?: string;
  instance?: string | null;
  /** Team mode: the name the instance runs under (its host name unless --instance-name says). */
  instanceName?: string | null;
}

/** GET /admin/api/team-gateway: the team deployment this app manages; never its token. */
export interface TeamGatewayStatus {
  /** False on a team instance itself: it manages no other team. */
  available: boolean;
  address: string | null;
  tokenSet: boolean;
  connected?: boolean;
  remote?: { version: string | null; storage: string | null; instance: string | null; instanceName?: string | null };
  error?: { message: string; code: string | number | null };
}

export type ProviderField = Pick<CredentialField, 'name' | 'label' | 'secret' | 'required' | 'placeholder' | 'header' | 'alternative'>;

export interface ProviderInfo {
  slug: string;
  name: string;
  fields: ProviderField[];
  defaultBaseUrl: string;
  /** A server someone runs (OpenAI-compatible): no address of its own, so a key must name its host. */
  hostRequired?: boolean;
}

/** A key's default model and model map (routes-api.md), as the store summarises them. */
export type VirtualKeyModels = Pick<VirtualKeySummary, 'defaultModel' | 'modelMap'>;

/** `mcpServers`: the MCP servers the key may use (null = all); absent from a server without MCP. */
export type VirtualKey = VirtualKeySummary & { lastUsedAt?: string | null; mcpServers?: string[] | null };
export type CreatedVirtualKey = VirtualKeySummary & { key: string };

/** POST /admin/api/virtual-keys: the API key goes in `secret`, other credential fields in `cloud`. */
export interface NewVirtualKey {
  name: string;
  provider: string;
  secret?: string;
  customHost?: string;
  cloud?: Record<string, string>;
  defaultModel?: string | null;
  modelMap?: Record<string, string>;
  /** Lets routes serve other virtual keys' calls with this key's credentials; off when left out. */
  allowRouting?: boolean;
  /** Its server speaks Chat Completions only (Make a key sets it from what discovery saw). */
  chatOnly?: boolean;
}

/** PATCH /admin/api/virtual-keys/:id with only the model settings: null clears the default model. */
export interface VirtualKeyModelsPatch {
  defaultModel: string | null;
  modelMap: Record<string, string>;
}

export interface VirtualKeyRotation {
  secret?: string;
  cloud?: Record<string, string>;
}

export type GatewayKey = GatewayKeySummary & { lastUsedAt?: string | null; mcpServers?: string[] | null };
export type CreatedGatewayKey = GatewayKeySummary & { key: string };

export type LogEntry = StoredLogEntry;
export type LogDetail = LogEntryDetail;

export interface LogPage {
  items: LogEntry[];
  next: string | null;
}

/** Query-string form of the store's LogQuery: `status` is a code or `error` (any status >= 400). */
export type LogQuery = Omit<StoredLogQuery, 'status'> & { status?: string };

export interface KeyProtection {
  mode: string;
  protected: boolean;
  warning: string | null;
}

export interface Settings extends StoredSettings {
  dataDir: string;
  /** Where the running server actually listens; `host`/`port` apply from the next start. */
  listening?: { host: string; port: number };
  version?: string;
  keyProtection: KeyProtection;
}

export type SettingsPatch = Partial<StoredSettings>;

export interface ItemList<T> {
  items: T[];
}

// ---- Routes (routes-api.md): a model name sent to one of several virtual keys ------------------------

export type { RouteInput, RoutesFile, RouteStrategy, TargetConditions, TargetInput };
export type Route = StoredRoute;
export type ExplainedTarget = RouterExplainedTarget;
/** What the router would do with a request: the matched route and each target, eligible or why not. */
export type RouteExplanation = Explanation;

/** POST /admin/api/routes/explain: a model name and the request traits conditions look at. */
export interface ExplainRequest {
  model: string;
  promptTokens?: number;
  thinking?: boolean;
  tools?: boolean;
}
/** Limits per key and how close the key is to each (GET /admin/api/limits). */
export type { KeyLimits } from '../../src-main/core/limits';
import type { KeyLimitsView as KeyLimitsViewBase } from '../../src-main/core/limits';
/** `budgetWarning`: why a USD budget may count nothing (a model without a price); null when none. */
export type KeyLimitsView = KeyLimitsViewBase & { budgetWarning?: string | null };

export type { UsageReport, UsageFigures, UsagePeriod, UsageRange, UsageDimension, KeySpend } from '../../src-main/core/usage';
export type { CatalogModel } from '../../src-main/catalog/catalog';
export type { ModelOverride } from '../../src-main/core/model-overrides';
/** A row of the Usage breakdown, with the name to show (a key's name rather than its id). */
export type UsageGroupView = import('../../src-main/core/usage').UsageGroup & { label: string };
export type UsageReportView = Omit<import('../../src-main/core/usage').UsageReport, 'breakdown'> & { breakdown: UsageGroupView[] };
export type SavedPrompt = StoredSavedPrompt;

/** POST /admin/api/saved-prompts: saving under an existing name replaces that prompt. */
export interface NewSavedPrompt {
  name: string;
  endpoint: string;
  body: unknown;
  keyId?: string | null;
}

/** What the Playground's model look-ups answer: the model ids, or none and why. */
export type ModelOffer = ServedModelOffer;

// ---- MCP servers (the admin API of issue 25, /admin/api/mcp-servers) ----------------------------------

/** http = Streamable HTTP; sse = the legacy HTTP+SSE transport. */
export type McpTransport = 'stdio' | 'http' | 'sse';
export type McpServerStatus = 'stopped' | 'starting' | 'running' | 'restarting' | 'failed' | 'disabled';

/** A server as the admin API answers it: secret values never, only their names. */
export interface McpServer {
  name: string;
  transport: McpTransport;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  /** Names of the sealed environment values. */
  secretEnv?: string[];
  url?: string;
  headers?: Record<string, string>;
  /** Names of the sealed headers. */
  secretHeaders?: string[];
  enabled: boolean;
  /** Per tool call. */
  timeoutMs: number;
  disabledTools: string[];
  status: McpServerStatus;
  lastError: string | null;
  /** null until the server's tools were first listed. */
  toolCount: number | null;
  createdAt: string;
}

/** POST /admin/api/mcp-servers: like a server, but the secret values themselves (name → value). */
export interface NewMcpServer {
  name: string;
  transport: McpTransport;
  command?: string;
  args?: string[];
  env?: Record<string, string>;
  secretEnv?: Record<string, string>;
  url?: string;
  headers?: Record<string, string>;
  secretHeaders?: Record<string, string>;
  enabled?: boolean;
  timeoutMs?: number;
}

/** PATCH /admin/api/mcp-servers/{name}: any of these; secret maps carry values. */
export type McpServerPatch = Partial<Pick<McpServer, 'enabled' | 'timeoutMs' | 'disabledTools' | 'args' | 'env' | 'headers' | 'url' | 'command'>> & {
  secretEnv?: Record<string, string>;
  secretHeaders?: Record<string, string>;
};

export interface McpTool {
  name: string;
  description?: string;
  inputSchema?: { type?: string; properties?: Record<string, unknown>; required?: string[] } & Record<string, unknown>;
  enabled: boolean;
}

/** One item of a tool's result, as MCP defines them; only text is shown as text. */
export type McpContent =
  | { type: 'text'; text: string }
  | { type: 'image' | 'audio'; data: string; mimeType: string }
  | { type: 'resource'; resource: { uri: string; text?: string; blob?: string; mimeType?: string } }
  | { type: 'resource_link'; uri: string; name?: string }
  | { type: string; [field: string]: unknown };

/** The CallToolResult as the server sent it. */
export interface McpCallToolResult {
  content?: McpContent[];
  structuredContent?: unknown;
  isError?: boolean;
  [field: string]: unknown;
}

export interface McpToolCall {
  result: McpCallToolResult;
  durationMs: number;
}

/** A key's MCP servers: null = every server. */
export type McpServerAccess = string[] | null;

/** A change of what MCP a key may use (PATCH of a key): only the fields given change. */
export interface McpAccessPatch {
  mcpServers?: McpServerAccess;
  /** Server → the tools the key may use there (a server not named keeps all); null = every tool. */
  mcpTools?: Record<string, string[]> | null;
  /** What the key gets while it names no server: 'allow' every server, 'deny' none; null = the Settings' default. */
  mcpDefault?: 'allow' | 'deny' | null;
}

/** Which models a key may call (GET/PUT /admin/api/keys/:id/allowed-models): names, globs or route:NAME; null for every model. */
export interface KeyAllowedModels {
  keyId: string;
  allowedModels: string[] | null;
}
