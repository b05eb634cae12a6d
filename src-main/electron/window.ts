// The desktop window and everything that keeps it safe: sandboxed renderer, no Node, a strict CSP,
// no permissions beyond clipboard writes, navigation pinned to the gateway's own origin, and links
// to a short list of sites opened in the system browser instead of in the app.
import { BrowserWindow, app, ipcMain, session, shell, type Session, type WebContents } from 'electron';
import { BOOTSTRAP_CHANNEL, type BootstrapReply } from './bridge';
import { buildContentSecurityPolicy, isAllowedExternalUrl, isGatewayUrl, isPermissionAllowed, withContentSecurityPolicy } from './navigation-policy';

export interface WindowSecurityContext {
  /** e.g. http://127.0.0.1:8787: the UI and the admin API share this origin. */
  gatewayOrigin: string;
  adminToken: string;
}

/** CSP header and permission handlers on the session the window uses. */
export function secureSession(target: Session, context: WindowSecurityContext): void {
  const policy = buildContentSecurityPolicy();
  // No URL filter: Chromium's match patterns cannot express a port, so the origin is checked here.
  target.webRequest.onHeadersReceived((details, callback) => {
    if (!isGatewayUrl(details.url, context.gatewayOrigin)) {
      callback({});
      return;
    }
    callback({ responseHeaders: withContentSecurityPolicy(details.responseHeaders, policy) });
  });
  target.setPermissionRequestHandler((_contents, permission, callback, details) => {
    callback(isPermissionAllowed(permission, details.requestingUrl, context.gatewayOrigin));
  });
  target.setPermissionCheckHandler((_contents, permission, requestingOrigin) =>
    isPermissionAllowed(permission, requestingOrigin, context.gatewayOrigin),
  );
}

function openExternalIfAllowed(url: string): void {
  if (isAllowedExternalUrl(url)) void shell.openExternal(url);
}

/** Applied to every web contents the app ever creates, not only the main window's. */
export function guardWebContents(contents: WebContents, context: WindowSecurityContext): void {
  contents.on('will-navigate', (event) => {
    if (isGatewayUrl(event.url, context.gatewayOrigin)) return;
    event.preventDefault();
    openExternalIfAllowed(event.url);
  });
  contents.on('will-frame-navigate', (event) => {
    if (!isGatewayUrl(event.url, context.gatewayOrigin)) event.preventDefault();
  });
  contents.on('will-redirect', (event) => {
    if (!isGatewayUrl(event.url, context.gatewayOrigin)) event.preventDefault();
  });
  contents.on('will-attach-webview', (event) => event.preventDefault());
  contents.setWindowOpenHandler(({ url }) => {
    openExternalIfAllowed(url);
    return { action: 'deny' };
  });
}

/**
 * The page gets the admin token from the preload through one synchronous message, and only when
 * the asking frame is the gateway's own top-level page.
 */
export function serveBootstrap(context: WindowSecurityContext): void {
  ipcMain.removeAllListeners(BOOTSTRAP_CHANNEL);
  ipcMain.on(BOOTSTRAP_CHANNEL, (event) => {
    const frame = event.senderFrame;
    // The frame's URL can still be empty while its first preload runs; the window's own URL is
    // then the one being loaded (navigation is pinned to the gateway origin anyway).
    const url = frame?.url || event.sender.getURL();
    const isTrusted = frame !== null && frame.parent === null && isGatewayUrl(url, context.gatewayOrigin);
    const reply: BootstrapReply = isTrusted ? { adminToken: context.adminToken, platform: process.platform } : null;
    event.returnValue = reply;
  });
}

export function installWindowSecurity(context: WindowSecurityContext): void {
  secureSession(session.defaultSession, context);
  serveBootstrap(context);
  app.on('web-contents-created', (_event, contents) => guardWebContents(contents, context));
}

export interface MainWindowOptions {
  gatewayUrl: string;
  preloadPath: string;
  /** Started at login with --hidden: create the window but leave it in the tray. */
  show: boolean;
}

export function createMainWindow(options: MainWindowOptions): BrowserWindow {
  const window = new BrowserWindow({
    width: 1200,
    height: 800,
    minWidth: 760,
    minHeight: 520,
    title: 'Gatehouse',
    show: false,
    autoHideMenuBar: true,
    webPreferences: {
      preload: options.preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      nodeIntegrationInWorker: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      navigateOnDragDrop: false,
      spellcheck: false,
      devTools: !app.isPackaged,
    },
  });
  if (options.show) window.once('ready-to-show', () => window.show());
  void window.loadURL(`${options.gatewayUrl.replace(/\/+$/, '')}/`);
  return window;
}
