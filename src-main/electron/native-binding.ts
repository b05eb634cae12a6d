// Which better-sqlite3 binary the Electron main process loads. `npm start` builds one for Electron's
// ABI into a cache folder and names it in GATEHOUSE_SQLITE_BINDING; the shared node_modules copy
// stays built for Node so the CLI and the tests keep working.
import { existsSync } from 'node:fs';

export const SQLITE_BINDING_ENV = 'GATEHOUSE_SQLITE_BINDING';

export class NativeBindingError extends Error {}

/** The binding path handed over by start-desktop, or undefined (packaged apps ship their own build). */
export function sqliteBindingFromEnv(env: Readonly<Record<string, string | undefined>>): string | undefined {
  const path = env[SQLITE_BINDING_ENV];
  if (path === undefined || path === '') return undefined;
  if (!existsSync(path)) throw new NativeBindingError(`${SQLITE_BINDING_ENV} names ${path}, which does not exist. Run \`npm start\` again to rebuild it.`);
  return path;
}

/** The ABI a .node file was built for, read from `nm -D` output (`node_register_module_v<N>`). */
export function abiFromSymbols(nmOutput: string): number | null {
  const match = /\bnode_register_module_v(\d+)\b/.exec(nmOutput);
  return match ? Number(match[1]) : null;
}

/** Turns the errors a user can act on into a sentence that says what to do. */
export function describeStartupError(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  if (/NODE_MODULE_VERSION|compiled against a different Node\.js version|ERR_DLOPEN_FAILED/.test(message)) {
    return [
      'SQLite (better-sqlite3) is built for plain Node, not for Electron.',
      'Start the desktop app with `npm start`: it builds an Electron copy into node_modules/.cache.',
      'To run without Electron: `npx gatehouse serve`.',
      `Details: ${message}`,
    ].join('\n');
  }
  // The store was locked with the keychain and this session has none (say a keyring not unlocked yet).
  if (error instanceof Error && error.name === 'KeyStoreLockedError' && /OS keychain/.test(message)) {
    return `${message}\nIf your system keyring (GNOME Keyring, KWallet) is locked or not running, unlock it and start Gatehouse again.`;
  }
  return message;
}
