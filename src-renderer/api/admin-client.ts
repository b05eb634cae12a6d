// The typed client of the admin API (CONTRACT §5). Same origin as the page, so paths are relative.
import { apiErrorFromResponse } from './api-error';
import type { SessionDetail, SessionSummary } from '../../src-main/core/agent-sessions';
import type {
  HostCheck,
  KeyModels,
  CreatedGatewayKey,
  CreatedVirtualKey,
  ExplainRequest,
  GatewayKey,
  Health,
  TeamGatewayStatus,
  ItemList,
  KeyLimits,
  KeyLimitsView,
  LogDetail,
  LogEntry,
  LogPage,
  LogQuery,
  McpServer,
  KeyAllowedModels,
  McpAccessPatch,
  McpServerPatch,
  McpTool,
  McpToolCall,
  NewMcpServer,
  NewVirtualKey,
  ProviderInfo,
  Route,
  RouteExplanation,
  RouteInput,
  RoutesFile,
  SavedPrompt,
  NewSavedPrompt,
  ModelOffer,
  Settings,
  SettingsPatch,
  CatalogModel,
  KeySpend,
  ModelOverride,
  UsageDimension,
  UsageRange,
  UsageReportView,
  VirtualKey,
  VirtualKeyModelsPatch,
  VirtualKeyRotation,
} from './types';
import { readServerSentEvents } from './sse';
import type { LocalServerList } from '../../src-main/discovery/types';

export const ADMIN_BASE = '/admin/api';
/** The local admin API's relay to the team gateway (Settings → Team gateway): the same API, answered by the team. */
export const TEAM_ADMIN_BASE = '/admin/api/team';

/** The formats of GET /admin/api/logs/export: comma-separated values, or one JSON object a line. */
export type LogExportFormat = 'csv' | 'jsonl';

/** What POST /admin/api/playground/models takes: a pasted virtual key, or a provider and its token. */
export interface PlaygroundModelLookup {
  virtualKey?: string;
  gatewayApiKey?: string;
  provider?: string;
  providerToken?: string;
  customHost?: string;
}

/** A log query as GET /logs and /logs/export take it: each metadata pair a `metadata=name=value` of its own. */
function logQueryParams(query: Omit<LogQuery, 'limit' | 'before'> & Partial<Pick<LogQuery, 'limit' | 'before'>>): URLSearchParams {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (name === 'metadata') for (const [entry, text] of query.metadata ?? []) params.append('metadata', `${entry}=${text}`);
    else if (value !== undefined && value !== '') params.set(name, String(value));
  }
  return params;
}

export class AdminClient {
  constructor(
    private readonly token: string,
    private readonly fetchImpl: typeof fetch = (input, init) => fetch(input, init),
    /** ADMIN_BASE for this computer's gateway, TEAM_ADMIN_BASE for the team's through the relay. */
    readonly base: string = ADMIN_BASE,
  ) {}

  /** The same session against another base: the team's admin API through this computer's relay. */
  withBase(base: string): AdminClient {
    return new AdminClient(this.token, this.fetchImpl, base);
  }

  private async request<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.token}`, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    const response = await this.fetchImpl(`${this.base}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    });
    if (!response.ok) throw await apiErrorFromResponse(response);
    if (response.status === 204) return undefined as T;
    const text = await response.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }

  /** Agent sessions, newest first (GET /sessions): `next` is the cursor of the page after. */
  listSessions(query: { key?: string; client?: string; before?: number } = {}, signal?: AbortSignal): Promise<{ items: SessionSummary[]; next: number | null }> {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== '') params.set(name, String(value));
    return this.request('GET', `/sessions?${params}`, undefined, signal);
  }

  session(id: string, signal?: AbortSignal): Promise<SessionDetail> {
    return this.request('GET', `/sessions/${encodeURIComponent(id)}`, undefined, signal);
  }

  health(signal?: AbortSignal): Promise<Health> {
    return this.request('GET', '/health', undefined, signal);
  }

  /** Settings → Team gateway (this computer's admin API only): the team's address and what it said; never its token. */
  teamGateway(): Promise<TeamGatewayStatus> {
    return this.request('GET', '/team-gateway');
  }

  /** Checks the team with the token first; a refused token is a 401 with code team_token_refused. */
  saveTeamGateway(address: string, token: string): Promise<TeamGatewayStatus> {
    return this.request('PUT', '/team-gateway', token ? { address, token } : { address });
  }

  forgetTeamGateway(): Promise<void> {
    return this.request('DELETE', '/team-gateway');
  }

  providers(): Promise<ItemList<ProviderInfo>> {
    return this.request('GET', '/providers');
  }

  listVirtualKeys(): Promise<ItemList<VirtualKey>> {
    return this.request('GET', '/virtual-keys');
  }

  createVirtualKey(input: NewVirtualKey): Promise<CreatedVirtualKey> {
    return this.request('POST', '/virtual-keys', input);
  }

  renameVirtualKey(id: string, name: string): Promise<VirtualKey> {
    return this.request('PATCH', `/virtual-keys/${encodeURIComponent(id)}`, { name });
  }

  rotateVirtualKey(id: string, rotation: VirtualKeyRotation): Promise<VirtualKey> {
    return this.request('PATCH', `/virtual-keys/${encodeURIComponent(id)}`, rotation);
  }

  /** Issues a new gh-vk- key for the same stored credentials; the old key stops working at once. */
  regenerateVirtualKey(id: string): Promise<CreatedVirtualKey> {
    return this.request('PATCH', `/virtual-keys/${encodeURIComponent(id)}`, { regenerateKey: true });
  }

  /** Sets a key's default model and model map (both replace what was there). */
  updateVirtualKeyModels(id: string, models: VirtualKeyModelsPatch): Promise<VirtualKey> {
    return this.request('PATCH', `/virtual-keys/${encodeURIComponent(id)}`, models);
  }

  /** Moves a key to another host (its secret given again) and sets whether its server speaks Chat only. */
  editVirtualKey(id: string, patch: VirtualKeyRotation & { customHost?: string | null; chatOnly?: boolean }): Promise<VirtualKey> {
    return this.request('PATCH', `/virtual-keys/${encodeURIComponent(id)}`, patch);
  }

  /** Tries the key's host with a model list (advice only: a server that is down is reported, not refused). */
  checkVirtualKeyHost(id: string): Promise<HostCheck> {
    return this.request('POST', `/virtual-keys/${encodeURIComponent(id)}/host-check`);
  }

  /** The models a set-up may name for this key; `refresh` asks its host again instead of the kept answer. */
  virtualKeyModels(id: string, refresh = false): Promise<KeyModels> {
    return this.request('GET', `/virtual-keys/${encodeURIComponent(id)}/models${refresh ? '?refresh=true' : ''}`);
  }

  /** Whether routes may serve other virtual keys' calls with this key's credentials. */
  setVirtualKeyRouting(id: string, allowRouting: boolean): Promise<VirtualKey> {
    return this.request('PATCH', `/virtual-keys/${encodeURIComponent(id)}`, { allowRouting });
  }

  revokeVirtualKey(id: string): Promise<void> {
    return this.request('DELETE', `/virtual-keys/${encodeURIComponent(id)}`);
  }

  listGatewayKeys(): Promise<ItemList<GatewayKey>> {
    return this.request('GET', '/gateway-keys');
  }

  createGatewayKey(name: string): Promise<CreatedGatewayKey> {
    return this.request('POST', '/gateway-keys', { name });
  }

  renameGatewayKey(id: string, name: string): Promise<GatewayKey> {
    return this.request('PATCH', `/gateway-keys/${encodeURIComponent(id)}`, { name });
  }

  revokeGatewayKey(id: string): Promise<void> {
    return this.request('DELETE', `/gateway-keys/${encodeURIComponent(id)}`);
  }

  /** The MCP servers a key may list and call (a set of names, or null for every server) and their tools: only the fields given change. */
  setVirtualKeyMcpAccess(id: string, patch: McpAccessPatch): Promise<VirtualKey> {
    return this.request('PATCH', `/virtual-keys/${encodeURIComponent(id)}`, patch);
  }

  setGatewayKeyMcpAccess(id: string, patch: McpAccessPatch): Promise<GatewayKey> {
    return this.request('PATCH', `/gateway-keys/${encodeURIComponent(id)}`, patch);
  }

  /** The keys that may call only some models, with their lists (a key not listed may call every model). */
  listAllowedModels(): Promise<{ items: KeyAllowedModels[] }> {
    return this.request('GET', '/allowed-models');
  }

  /** Sets which models a virtual or gateway key may call; null: every model. */
  setAllowedModels(keyId: string, allowedModels: string[] | null): Promise<KeyAllowedModels> {
    return this.request('PUT', `/keys/${encodeURIComponent(keyId)}/allowed-models`, { allowedModels });
  }

  listMcpServers(signal?: AbortSignal): Promise<{ servers: McpServer[] }> {
    return this.request('GET', '/mcp-servers', undefined, signal);
  }

  /** Secret values go in `secretEnv` / `secretHeaders`; they are sealed and never answered again. */
  createMcpServer(input: NewMcpServer): Promise<{ server: McpServer }> {
    return this.request('POST', '/mcp-servers', input);
  }

  updateMcpServer(name: string, patch: McpServerPatch): Promise<{ server: McpServer }> {
    return this.request('PATCH', `/mcp-servers/${encodeURIComponent(name)}`, patch);
  }

  deleteMcpServer(name: string): Promise<void> {
    return this.request('DELETE', `/mcp-servers/${encodeURIComponent(name)}`);
  }

  /** Starts the server if it is not running; a server that cannot start answers 502 with why. */
  mcpServerTools(name: string, signal?: AbortSignal): Promise<{ tools: McpTool[] }> {
    return this.request('GET', `/mcp-servers/${encodeURIComponent(name)}/tools`, undefined, signal);
  }

  callMcpTool(name: string, tool: string, args: Record<string, unknown>): Promise<McpToolCall> {
    return this.request('POST', `/mcp-servers/${encodeURIComponent(name)}/tools/${encodeURIComponent(tool)}/call`, { arguments: args });
  }

  /** The newest lines a stdio server wrote to stderr, oldest first. */
  mcpServerStderr(name: string, signal?: AbortSignal): Promise<{ lines: string[] }> {
    return this.request('GET', `/mcp-servers/${encodeURIComponent(name)}/stderr`, undefined, signal);
  }

  /** Every active key with its limits and how close it is to them. */
  keyLimits(): Promise<ItemList<KeyLimitsView>> {
    return this.request('GET', '/limits');
  }

  /** Replaces a key's limits (null = no limit of that kind). */
  setKeyLimits(id: string, limits: KeyLimits): Promise<KeyLimitsView> {
    return this.request('PUT', `/keys/${encodeURIComponent(id)}/limits`, limits);
  }

  clearKeyLimits(id: string): Promise<KeyLimitsView> {
    return this.request('DELETE', `/keys/${encodeURIComponent(id)}/limits`);
  }

  /** Spend and tokens over local days from..to (default: the range's usual span), by one dimension. */
  usage(query: { range: UsageRange; by: UsageDimension; from?: string; to?: string }, signal?: AbortSignal): Promise<UsageReportView> {
    const params = new URLSearchParams({ range: query.range, by: query.by });
    if (query.from) params.set('from', query.from);
    if (query.to) params.set('to', query.to);
    return this.request('GET', `/usage?${params}`, undefined, signal);
  }

  /** Each key's spend today and this month. */
  keySpend(): Promise<ItemList<KeySpend>> {
    return this.request('GET', '/usage/keys');
  }

  /** The catalog's figures for a model at a provider (with the user's override applied); null when unknown. */
  async catalogModel(provider: string, model: string): Promise<CatalogModel | null> {
    return (await this.request<{ model: CatalogModel | null }>('GET', `/catalog?${new URLSearchParams({ provider, model })}`)).model;
  }

  modelOverrides(): Promise<ItemList<ModelOverride>> {
    return this.request('GET', '/model-overrides');
  }

  setModelOverride(override: ModelOverride): Promise<ModelOverride> {
    return this.request('POST', '/model-overrides', override);
  }

  deleteModelOverride(provider: string, model: string): Promise<void> {
    return this.request('DELETE', `/model-overrides?${new URLSearchParams({ provider, model })}`);
  }

  logs(query: LogQuery, signal?: AbortSignal): Promise<LogPage> {
    const params = logQueryParams(query);
    const search = params.toString();
    return this.request('GET', `/logs${search ? `?${search}` : ''}`, undefined, signal);
  }

  /**
   * The filtered log as a file (GET /logs/export, the list's filters plus `format`). The admin token goes
   * in a header, which a plain download link cannot send, so the answer is read here and handed over as a Blob.
   */
  async exportLogs(query: Omit<LogQuery, 'limit' | 'before'>, format: LogExportFormat, signal?: AbortSignal): Promise<Blob> {
    const params = logQueryParams(query);
    params.set('format', format);
    const response = await this.fetchImpl(`${this.base}/logs/export?${params}`, {
      headers: { authorization: `Bearer ${this.token}`, accept: format === 'csv' ? 'text/csv' : 'application/x-ndjson' },
      signal,
    });
    if (!response.ok) throw await apiErrorFromResponse(response);
    return response.blob();
  }

  logDetail(id: string, signal?: AbortSignal): Promise<LogDetail> {
    return this.request('GET', `/logs/${encodeURIComponent(id)}`, undefined, signal);
  }

  /** In match order: the first route whose match fits a model name serves it. */
  listRoutes(): Promise<ItemList<Route>> {
    return this.request('GET', '/routes');
  }

  /** Appended last. */
  createRoute(input: RouteInput): Promise<Route> {
    return this.request('POST', '/routes', input);
  }

  updateRoute(id: string, patch: Partial<RouteInput>): Promise<Route> {
    return this.request('PATCH', `/routes/${encodeURIComponent(id)}`, patch);
  }

  deleteRoute(id: string): Promise<void> {
    return this.request('DELETE', `/routes/${encodeURIComponent(id)}`);
  }

  /** Every route's id, once each, in the new match order. */
  reorderRoutes(ids: string[]): Promise<ItemList<Route>> {
    return this.request('PUT', '/routes/order', { ids });
  }

  exportRoutes(): Promise<RoutesFile> {
    return this.request('GET', '/routes/export');
  }

  /** Replaces every route with the file's, all or nothing. */
  importRoutes(file: RoutesFile): Promise<ItemList<Route>> {
    return this.request('PUT', '/routes', file);
  }

  /** What the router would do with such a request, without sending one. */
  explainRoute(request: ExplainRequest): Promise<RouteExplanation> {
    return this.request('POST', '/routes/explain', request);
  }

  /** Where a Playground run as a virtual key goes, and the header it needs (the admin token, never the key). */
  playgroundTarget(keyId: string, endpoint: string): { url: string; headers: Record<string, string> } {
    // A Gemini path (`/v1beta/models/{model}:{method}`) keeps its model and method as one segment.
    const suffix = endpoint.startsWith('/v1beta/models/') ? `/gemini/${endpoint.slice('/v1beta/models/'.length)}` : endpoint.replace(/^\/v1/, '');
    return { url: `${this.base}/playground/${encodeURIComponent(keyId)}${suffix}`, headers: { authorization: `Bearer ${this.token}` } };
  }

  /** The models listed for a pasted virtual key, or a provider with its token (and a gateway API key). */
  playgroundModelsFor(credentials: PlaygroundModelLookup, signal?: AbortSignal): Promise<ModelOffer> {
    return this.request('POST', '/playground/models', credentials, signal);
  }

  savedPrompts(): Promise<ItemList<SavedPrompt>> {
    return this.request('GET', '/saved-prompts');
  }

  savePrompt(input: NewSavedPrompt): Promise<SavedPrompt> {
    return this.request('POST', '/saved-prompts', input);
  }

  deleteSavedPrompt(id: string): Promise<void> {
    return this.request('DELETE', `/saved-prompts/${encodeURIComponent(id)}`);
  }

  settings(): Promise<Settings> {
    return this.request('GET', '/settings');
  }

  updateSettings(patch: SettingsPatch): Promise<Settings> {
    return this.request('PATCH', '/settings', patch);
  }

  /** Local model servers discovery remembers (online and offline), without probing. */
  localServers(): Promise<LocalServerList> {
    return this.request('GET', '/local-servers');
  }

  /** Probes the loopback ports now; answers when the sweep is done (under a second). */
  refreshLocalServers(): Promise<LocalServerList> {
    return this.request('POST', '/local-servers/refresh');
  }

  /**
   * Follows the live log. EventSource cannot send an Authorization header, so this reads the
   * event stream through fetch. Resolves when the stream ends or `signal` aborts.
   */
  async followLogEvents(onEntry: (entry: LogEntry) => void, signal: AbortSignal, onOpen?: () => void): Promise<void> {
    const response = await this.fetchImpl(`${this.base}/events`, {
      headers: { authorization: `Bearer ${this.token}`, accept: 'text/event-stream' },
      signal,
    });
    if (!response.ok || !response.body) throw await apiErrorFromResponse(response);
    onOpen?.();
    for await (const event of readServerSentEvents(response.body, signal)) {
      if (!event.data) continue;
      let parsed: unknown;
      try {
        parsed = JSON.parse(event.data);
      } catch {
        continue; // keep-alives and anything that is not a log entry
      }
      if (isLogEntry(parsed)) onEntry(parsed);
    }
  }
}

function isLogEntry(value: unknown): value is LogEntry {
  return typeof value === 'object' && value !== null && typeof (value as { id?: unknown }).id === 'string'
    && typeof (value as { createdAt?: unknown }).createdAt === 'string';
}

