// What the admin API needs at run time, declared by the admin API itself: plain services, each a contract
// (core/, or the gateway's own services). app.ts composes them once and picks the implementations (SQLite or
// PostgreSQL); the admin API never imports app.ts or a store. A helper that needs a few takes a Pick of these.
import type { RequestLogStore } from '../core/log-store.js';
import type { SettingsRepository } from '../core/settings.js';
import type { KeyProtection, KeyRepository } from '../core/key-repository.js';
import type { RouteRepository } from '../core/route-repository.js';
import type { SavedPromptRepository } from '../core/saved-prompts.js';
import type { KeyLimitsService } from '../gateway/limits/limits-service.js';
import type { KeyLimitCounters } from '../gateway/limits/limit-counters.js';
import type { Router } from '../gateway/routing/router.js';
import type { ModelAccess } from '../gateway/model-access.js';
import type { DiscoveryService } from '../discovery/service.js';
import type { ProxyDependencies } from '../gateway/proxy.js';
import type { McpServerRepository } from '../core/mcp-servers.js';
import type { McpStatus } from '../mcp/on-demand.js';
import type { TeamGatewayRepository } from '../core/team-gateway.js';

export interface AdminServices {
  version: string;
  dataDir: string;
  adminToken: string;
  /** Where the server actually listens (the port is known once it is bound). */
  listening: { host: string; port: number };
  requestLog: RequestLogStore;
  settings: SettingsRepository;
  keys: KeyRepository;
  routes: RouteRepository;
  /** The running gateway's route table (explain asks it what it would do). */
  router: Router;
  /** Limits per key and how close each key is to them. */
  limits: KeyLimitsService<KeyLimitCounters>;
  /** Which models each key may call (allowedModels). */
  modelAccess: ModelAccess;
  keyProtection: KeyProtection;
  /** Local model servers found on this machine's loopback ports. */
  discovery: DiscoveryService;
  /** What the gateway's proxy runs with: the admin Playground sends its requests through the same pipeline. */
  proxy: ProxyDependencies;
  savedPrompts: SavedPromptRepository;
  /** The MCP servers' configuration (sealed secrets included). */
  mcpServers: McpServerRepository;
  /** The running MCP gateway: servers' status, tools, stderr. */
  mcp: McpStatus;
  /** The desktop app's team gateway (Settings → Team gateway); null on a team instance itself (PostgreSQL). */
  teamGateway?: TeamGatewayRepository | null;
  /** Which storage this instance runs on, and in team mode its instance id: GET /health tells a team gateway's manager. */
  storage?: { backend: 'sqlite' | 'postgresql'; instanceId: string | null; instanceName: string | null };
  /** Aborted when the server stops: long-lived responses (live events) end then. */
  shutdown: AbortSignal;
}
