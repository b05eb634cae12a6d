// What the admin API and the gateway share at run time: plain services, composed once in app.ts.
import type { RequestLog } from './store/request-log.js';
import type { SettingsStore } from './store/settings.js';
import type { KeyStore } from './store/keys.js';
import type { KeyLimitsService } from './gateway/limits/limits-service.js';
import type { KeyProtector } from './store/key-protection.js';
import type { RouteRepository } from './store/routes.js';
import type { Router } from './gateway/routing/router.js';
import type { DiscoveryService } from './discovery/service.js';
import type { ProxyDependencies } from './gateway/proxy.js';
import type { SavedPromptStore } from './store/saved-prompts.js';

export interface AppServices {
  version: string;
  dataDir: string;
  adminToken: string;
  /** Where the server actually listens (the port is known once it is bound). */
  listening: { host: string; port: number };
  requestLog: RequestLog;
  settings: SettingsStore;
  keys: KeyStore;
  routes: RouteRepository;
  /** The running gateway's route table (explain asks it what it would do). */
  router: Router;
  /** Limits per key and how close each key is to them. */
  limits: KeyLimitsService;
  keyProtection: Pick<KeyProtector, 'mode' | 'isProtected' | 'warning'>;
  /** Local model servers found on this machine's loopback ports. */
  discovery: DiscoveryService;
  /** What the gateway's proxy runs with: the admin Playground sends its requests through the same pipeline. */
  proxy: ProxyDependencies;
  savedPrompts: SavedPromptStore;
  /** Aborted when the server stops: long-lived responses (live events) end then. */
  shutdown: AbortSignal;
}
