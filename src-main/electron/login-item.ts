// "Start at login" on Linux, where Electron's setLoginItemSettings does nothing: an XDG autostart
// entry (~/.config/autostart/gatehouse.desktop). macOS and Windows use Electron's own call.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export interface AutostartCommand {
  /** The program to run: the packaged app, or the Electron binary in development. */
  execPath: string;
  /** In development, the main script (out/main/index.js) and flags. */
  args: readonly string[];
  /** Variables the launch needs, such as the Electron build of SQLite in development. */
  env: Readonly<Record<string, string>>;
}

export function autostartFilePath(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const configHome = env.XDG_CONFIG_HOME || join(homedir(), '.config');
  return join(configHome, 'autostart', 'gatehouse.desktop');
}

/** Quoting rules of the Desktop Entry spec's Exec key: double quotes, with ", `, $ and \ escaped. */
export function quoteExecArgument(arg: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(arg)) return arg;
  return `"${arg.replace(/(["`$\\])/g, '\\$1')}"`;
}

export function buildAutostartEntry(command: AutostartCommand): string {
  const envWords = Object.entries(command.env).map(([name, value]) => `${name}=${value}`);
  const words = [...(envWords.length > 0 ? ['env', ...envWords] : []), command.execPath, ...command.args];
  // Field codes start with %, which Exec reserves; a literal % is written %%.
  const exec = words.map(quoteExecArgument).join(' ').replace(/%/g, '%%');
  return ['[Desktop Entry]', 'Type=Application', 'Name=Gatehouse', 'Comment=Local AI gateway', `Exec=${exec}`, 'X-GNOME-Autostart-enabled=true', ''].join('\n');
}

export function isAutostartEnabled(path: string = autostartFilePath()): boolean {
  return existsSync(path);
}

export function setAutostartEnabled(enabled: boolean, command: AutostartCommand, path: string = autostartFilePath()): void {
  if (!enabled) {
    rmSync(path, { force: true });
    return;
  }
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, buildAutostartEntry(command));
}
