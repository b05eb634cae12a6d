// The desktop app's own small settings (whether the tray notice was shown) and how the launch options
// are worked out from argv and environment. The port lives in one place, Settings → Network (the
// gateway's settings in its database), shared with `gatehouse serve`; a port earlier versions
// remembered here is read once and moved there. Plain Node: no electron import, so Vitest loads it.
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export const DEFAULT_PORT = 8787;
export const DEFAULT_HOST = '127.0.0.1';
export const SETTINGS_FILE_NAME = 'desktop-settings.json';

export interface DesktopSettings {
  /**
   * A port earlier versions remembered here after a clash. Read only to move it to Settings → Network
   * (see legacyPort), then removed: the app no longer writes it.
   */
  port?: number;
  /** The "still running in the tray" notice is shown once. */
  trayNoticeShown?: boolean;
}

export function settingsPath(userDataDir: string): string {
  return join(userDataDir, SETTINGS_FILE_NAME);
}

export function isValidPort(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 65535;
}

/** Reads the settings; a missing or damaged file counts as empty rather than stopping the app. */
export function loadDesktopSettings(userDataDir: string): DesktopSettings {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(settingsPath(userDataDir), 'utf8'));
  } catch {
    return {};
  }
  if (typeof parsed !== 'object' || parsed === null) return {};
  const record = parsed as Record<string, unknown>;
  const settings: DesktopSettings = {};
  if (isValidPort(record.port) && record.port !== 0) settings.port = record.port;
  if (typeof record.trayNoticeShown === 'boolean') settings.trayNoticeShown = record.trayNoticeShown;
  return settings;
}

/** Writes through a temporary file so a crash mid-write never leaves half a JSON document. */
export function saveDesktopSettings(userDataDir: string, settings: DesktopSettings): void {
  const target = settingsPath(userDataDir);
  mkdirSync(dirname(target), { recursive: true });
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(settings, null, 2)}\n`, { mode: 0o600 });
  renameSync(temporary, target);
}

export function updateDesktopSettings(userDataDir: string, change: Partial<DesktopSettings>): DesktopSettings {
  const next = { ...loadDesktopSettings(userDataDir), ...change };
  saveDesktopSettings(userDataDir, next);
  return next;
}

/** Removes the port earlier versions kept here, once Settings → Network holds the port. */
export function forgetLegacyPort(userDataDir: string): void {
  const settings = loadDesktopSettings(userDataDir);
  if (settings.port === undefined) return;
  delete settings.port;
  saveDesktopSettings(userDataDir, settings);
}

/** `settings`: Settings → Network, the one saved port (8787 until changed there or after a clash). */
export type PortSource = 'argument' | 'environment' | 'settings';

export interface DesktopLaunchOptions {
  host: string;
  /** A port given for this launch (argument or environment); null: the one saved in Settings → Network. */
  port: number | null;
  /** Where the port comes from: only the saved one may be replaced (and the new one saved) after a clash. */
  portSource: PortSource;
  /** The port earlier versions remembered in desktop-settings.json, to move to Settings → Network; null if none. */
  legacyPort: number | null;
  /** An explicit data dir (argument or GATEHOUSE_DATA_DIR); otherwise the app's userData folder. */
  dataDir: string | null;
}

export class LaunchOptionError extends Error {}

function parsePort(raw: string, from: string): number {
  const port = /^\d{1,5}$/.test(raw.trim()) ? Number(raw.trim()) : Number.NaN;
  if (!isValidPort(port)) throw new LaunchOptionError(`${from} must be a port number from 0 to 65535, got "${raw}"`);
  return port;
}

/** `--name=value` or `--name value`; Chromium switches in the same argv are left alone. */
function readFlag(argv: readonly string[], name: string): string | undefined {
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    if (arg === `--${name}`) {
      const next = argv[i + 1];
      return next !== undefined && !next.startsWith('--') ? next : '';
    }
    if (arg.startsWith(`--${name}=`)) return arg.slice(name.length + 3);
  }
  return undefined;
}

/**
 * Arguments beat the environment, which beats the port saved in Settings → Network (8787 by default,
 * the CONTRACT's, shared with `gatehouse serve`): that one is read by the gateway from its settings.
 */
export function resolveLaunchOptions(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
  settings: DesktopSettings,
): DesktopLaunchOptions {
  const portArg = readFlag(argv, 'port');
  const hostArg = readFlag(argv, 'host');
  const dataDirArg = readFlag(argv, 'data-dir');

  let port: number | null = null;
  let portSource: PortSource = 'settings';
  if (portArg !== undefined) {
    port = parsePort(portArg, '--port');
    portSource = 'argument';
  } else if (env.GATEHOUSE_PORT !== undefined && env.GATEHOUSE_PORT !== '') {
    port = parsePort(env.GATEHOUSE_PORT, 'GATEHOUSE_PORT');
    portSource = 'environment';
  }

  const host = hostArg || env.GATEHOUSE_HOST || DEFAULT_HOST;
  const dataDir = dataDirArg || env.GATEHOUSE_DATA_DIR || null;
  if (dataDirArg === '') throw new LaunchOptionError('--data-dir needs a folder');
  return { host, port, portSource, legacyPort: settings.port ?? null, dataDir };
}
