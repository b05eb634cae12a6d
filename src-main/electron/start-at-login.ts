// "Start at login" for each platform: Electron's login item on macOS and Windows, an XDG autostart
// entry on Linux. A login start passes --hidden so the app comes up in the tray only.
import { app } from 'electron';
import { resolve } from 'node:path';
import { isAutostartEnabled, setAutostartEnabled, type AutostartCommand } from './login-item';
import { SQLITE_BINDING_ENV } from './native-binding';

export const HIDDEN_FLAG = '--hidden';

export function canStartAtLogin(): boolean {
  return process.platform === 'darwin' || process.platform === 'win32' || process.platform === 'linux';
}

/** In development Electron runs the built main script; a packaged app is its own executable. */
function launchArguments(): string[] {
  if (app.isPackaged || process.argv[1] === undefined) return [HIDDEN_FLAG];
  return [resolve(process.argv[1]), HIDDEN_FLAG];
}

function autostartCommand(): AutostartCommand {
  const env: Record<string, string> = {};
  const binding = process.env[SQLITE_BINDING_ENV];
  // A development run loads the Electron build of SQLite that `npm start` made; keep using it.
  if (!app.isPackaged && binding) env[SQLITE_BINDING_ENV] = binding;
  // An AppImage's execPath is inside a mount that changes every run; APPIMAGE is the file itself.
  return { execPath: process.env.APPIMAGE ?? process.execPath, args: launchArguments(), env };
}

export function isStartAtLoginEnabled(): boolean {
  if (process.platform === 'linux') return isAutostartEnabled();
  return app.getLoginItemSettings({ args: launchArguments() }).openAtLogin;
}

export function setStartAtLogin(enabled: boolean): void {
  if (process.platform === 'linux') {
    setAutostartEnabled(enabled, autostartCommand());
    return;
  }
  // Windows passes args (--hidden); macOS ignores them, so wasStartedAtLogin asks the system instead.
  app.setLoginItemSettings({ openAtLogin: enabled, path: process.execPath, args: launchArguments() });
}

/** True when this launch came from the login item: the window then stays in the tray. */
export function wasStartedAtLogin(argv: readonly string[]): boolean {
  if (argv.includes(HIDDEN_FLAG)) return true;
  return process.platform === 'darwin' && app.getLoginItemSettings().wasOpenedAtLogin;
}
