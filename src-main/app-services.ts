// What the admin API and the gateway share at run time: plain services, composed once in app.ts.
import type { RequestLog } from './store/request-log.js';
import type { SettingsStore } from './store/settings.js';
import type { KeyStore } from './store/keys.js';
import type { KeyLimitsService } from './store/key-limits.js';
import type { KeyProtector } from './store/key-protection.js';
import type { RouteRepository } from './store/routes.js';
import type { Router } from './gateway/routing/router.js';

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
  /** Aborted when the server stops: long-lived responses (live events) end then. */
  shutdown: AbortSignal;
}
