// The desktop app: one instance per data folder, the gateway started in this process, a window
// showing the UI the gateway serves, and a tray icon that keeps the gateway reachable after the
// window closes.
import { BrowserWindow, Menu, Notification, app, dialog, safeStorage, type MenuItemConstructorOptions } from 'electron';
import { fileURLToPath } from 'node:url';
import { defaultDataDir, startGatehouse, type RunningGatehouse } from '../app';
import { DEFAULT_PORT, forgetLegacyPort, loadDesktopSettings, resolveLaunchOptions, updateDesktopSettings, LaunchOptionError, type DesktopLaunchOptions } from './desktop-settings';
import { findNextFreePort, isAddressInUse } from './free-port';
import { chooseDesktopKeyProtector } from './key-protection';
import { describeStartupError, sqliteBindingFromEnv } from './native-binding';
import { originOf } from './navigation-policy';
import { canStartAtLogin, isStartAtLoginEnabled, setStartAtLogin, wasStartedAtLogin } from './start-at-login';
import { createTray, type TrayController } from './tray';
import { createMainWindow, installWindowSecurity } from './window';

const PRELOAD_PATH = fileURLToPath(new URL('../preload/index.cjs', import.meta.url));

// Before anything else: the name shows in menus and notifications.
app.setName('Gatehouse');
app.enableSandbox();
// Windows shows notifications only for an app with an AppUserModelID.
if (process.platform === 'win32') app.setAppUserModelId('dev.gatehouse.desktop');

let gateway: RunningGatehouse | null = null;
let mainWindow: BrowserWindow | null = null;
let tray: TrayController | null = null;
let isQuitting = false;
let hasStopped = false;
let stopping: Promise<void> | null = null;

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** The user chose Quit in the port dialog: not an error to report. */
class QuitRequested extends Error {}

function fail(title: string, error: unknown): void {
  if (error instanceof QuitRequested) {
    app.exit(1);
    return;
  }
  const message = describeStartupError(error);
  log(`${title}: ${message}`);
  dialog.showErrorBox(title, message);
  app.exit(1);
}

/**
 * Starts the gateway on the port given for this launch or, usually, the one saved in Settings → Network
 * (the only place the port lives; a port earlier versions kept in desktop-settings.json moves there).
 * When the port is taken, offers the next free one and, if the port was the saved one, saves the new
 * one in Settings → Network.
 */
async function startGatewayOnFreePort(options: DesktopLaunchOptions, userDataDir: string): Promise<RunningGatehouse> {
  const dataDir = options.dataDir ?? userDataDir;
  // startGatehouse logs the protector's warning; the UI shows it too.
  const keyProtection = await chooseDesktopKeyProtector(safeStorage, { platform: process.platform, dataDir, env: process.env });
  const sqliteNativeBinding = sqliteBindingFromEnv(process.env);
  let port = options.port ?? undefined;
  let rememberPort = false;
  for (;;) {
    try {
      const running = await startGatehouse({
        host: options.host,
        port,
        dataDir,
        allowRemote: false,
        keyProtection,
        sqliteNativeBinding,
        log,
        adoptPort: options.legacyPort ?? undefined,
        rememberPort,
      });
      // Settings → Network holds the port now (moved there, or deliberately different since).
      if (options.legacyPort !== null) forgetLegacyPort(userDataDir);
      return running;
    } catch (error) {
      if (!isAddressInUse(error)) throw error;
      // The port tried: given for this launch, or the saved one, which the listen error names.
      const tried = port ?? (error as { port?: number }).port ?? DEFAULT_PORT;
      port = tried;
      const nextPort = await findNextFreePort(options.host, tried);
      const canRemember = options.portSource === 'settings';
      const detail = nextPort
        ? `Another program is listening on ${options.host}:${port} (perhaps \`gatehouse serve\` or a second copy of Gatehouse). ` +
          `Gatehouse can use port ${nextPort} instead${canRemember ? ' and remember that choice in Settings → Network' : ''}. ` +
          'Tools set up with the old address will need the new one.'
        : `Another program is listening on ${options.host}:${port}, and none of the next ports is free either.`;
      const buttons = nextPort ? [`Use port ${nextPort}`, 'Quit'] : ['Quit'];
      const { response } = await dialog.showMessageBox({
        type: 'warning',
        title: 'Gatehouse',
        message: `Port ${port} is already in use`,
        detail,
        buttons,
        defaultId: 0,
        cancelId: buttons.length - 1,
        noLink: true,
      });
      if (nextPort === null || response !== 0) throw new QuitRequested(`Port ${port} is in use`);
      rememberPort = canRemember;
      port = nextPort;
    }
  }
}

function showWindow(): void {
  if (!gateway) return;
  if (!mainWindow || mainWindow.isDestroyed()) mainWindow = openWindow(gateway, true);
  if (mainWindow.isMinimized()) mainWindow.restore();
  mainWindow.show();
  mainWindow.focus();
}

function openWindow(running: RunningGatehouse, show: boolean): BrowserWindow {
  const window = createMainWindow({ gatewayUrl: running.url, preloadPath: PRELOAD_PATH, show });
  // Closing the window hides it: the gateway keeps serving the tools that use it.
  window.on('close', (event) => {
    if (isQuitting) return;
    event.preventDefault();
    window.hide();
    noticeStillRunning(running.url);
  });
  return window;
}

/** Said once, the first time the window closes, so nobody wonders why the port stays busy. */
function noticeStillRunning(url: string): void {
  const userDataDir = app.getPath('userData');
  if (loadDesktopSettings(userDataDir).trayNoticeShown) return;
  updateDesktopSettings(userDataDir, { trayNoticeShown: true });
  if (!Notification.isSupported()) return;
  new Notification({
    title: 'Gatehouse is still running',
    body: `The gateway keeps serving ${url}. Open the window or quit from the Gatehouse tray icon.`,
  }).show();
}

function installApplicationMenu(): void {
  // Edit roles keep copy and paste working (macOS needs them in the menu); no links to Electron's site.
  const template: MenuItemConstructorOptions[] = [
    ...(process.platform === 'darwin' ? [{ role: 'appMenu' } as const] : []),
    { role: 'editMenu' },
    { role: 'viewMenu' },
    { role: 'windowMenu' },
  ];
  Menu.setApplicationMenu(Menu.buildFromTemplate(template));
}

/**
 * Stops the gateway once; every quit asked for meanwhile (Quit again, a signal) waits for that same stop,
 * so the app never exits before the log is written.
 */
function stopGateway(): Promise<void> {
  stopping ??= (async () => {
    const running = gateway;
    gateway = null;
    tray?.update({ url: null });
    if (running) await running.stop();
  })();
  return stopping;
}

async function main(): Promise<void> {
  let options: DesktopLaunchOptions;
  try {
    const early = resolveLaunchOptions(process.argv, process.env, {});
    // userData is the data dir: the same folder `gatehouse serve` picks by default (CONTRACT §1),
    // computed by the same function rather than left to Electron's own naming. It also holds the
    // window profile, the settings and the instance lock, so a second data dir (or a test's
    // temporary one) never collides with the user's own app.
    app.setPath('userData', early.dataDir ?? defaultDataDir(process.env));
    options = resolveLaunchOptions(process.argv, process.env, loadDesktopSettings(app.getPath('userData')));
  } catch (error) {
    if (!(error instanceof LaunchOptionError)) throw error;
    log(error.message);
    app.exit(2);
    return;
  }

  if (!app.requestSingleInstanceLock()) {
    log('Gatehouse is already running; focusing its window.');
    app.quit();
    return;
  }
  app.on('second-instance', () => showWindow());
  app.on('activate', () => showWindow());
  // The gateway outlives its window; only Quit (tray, menu, Cmd+Q) or a signal ends the app.
  app.on('window-all-closed', () => undefined);
  app.on('before-quit', (event) => {
    isQuitting = true;
    if (hasStopped) return;
    event.preventDefault();
    stopGateway()
      .catch((error: unknown) => log(`Stopping the gateway failed: ${String(error)}`))
      .finally(() => {
        hasStopped = true;
        tray?.destroy();
        app.quit();
      });
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => app.quit());

  await app.whenReady();
  installApplicationMenu();

  const userDataDir = app.getPath('userData');
  try {
    gateway = await startGatewayOnFreePort(options, userDataDir);
  } catch (error) {
    if (!isQuitting) fail('Gatehouse could not start', error);
    return;
  }
  const running = gateway;
  log(`Gatehouse listening on ${running.url}`);

  installWindowSecurity({ gatewayOrigin: originOf(running.url), adminToken: running.adminToken });
  tray = createTray(
    { url: running.url, startAtLogin: canStartAtLogin() && isStartAtLoginEnabled(), canStartAtLogin: canStartAtLogin() },
    {
      openWindow: showWindow,
      setStartAtLogin: (enabled) => {
        try {
          setStartAtLogin(enabled);
        } catch (error) {
          log(`Start at login could not be changed: ${String(error)}`);
        }
        tray?.update({ startAtLogin: isStartAtLoginEnabled() });
      },
      quit: () => app.quit(),
    },
  );
  mainWindow = openWindow(running, !wasStartedAtLogin(process.argv));
}

main().catch((error: unknown) => fail('Gatehouse could not start', error));
