// The one IPC exchange between the window and the main process, typed once here. The preload and
// the renderer take these types with `import type`; nothing here imports electron.

/** What the preload exposes to the page as `window.gatehouse`. */
export interface GatehouseBridge {
  /** Authorises the page's admin API calls (CONTRACT §5); the desktop window never puts it in a URL. */
  readonly adminToken: string;
  readonly platform: string;
}

/** Synchronous: the page needs the token before its first render. */
export const BOOTSTRAP_CHANNEL = 'gatehouse:bootstrap';

/** The answer to BOOTSTRAP_CHANNEL; null when the asking frame is not the gateway's own page. */
export type BootstrapReply = GatehouseBridge | null;
