// How the desktop app protects the store's data key. The OS keychain through Electron's safeStorage
// (Keychain on macOS, DPAPI on Windows, libsecret/KWallet on Linux) when there is a real one; an
// explicit GATEHOUSE_MASTER_KEY wins, as it does for `gatehouse serve`; without a keychain, the key
// file `serve` uses, with a warning the UI shows. (A data dir that `serve` set up with the key file
// moves to the keychain on the first desktop start: startGatehouse passes the store the key file as
// a previous protector, see headlessProtectionUpgrade in store/keys/data-key.ts.)
// safeStorage is passed in rather than imported: no runtime electron import, so Vitest can test it.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { KEY_FILE_NAME, MASTER_KEY_ENV, keyFileProtector, masterKeyProtector, type KeyProtector } from '../store/key-protection';

/** The part of Electron's safeStorage this uses; the async calls are absent before Electron 45. */
export interface SafeStorageLike {
  encryptStringAsync?: (plainText: string) => Promise<Buffer>;
  decryptStringAsync?: (encrypted: Buffer) => Promise<{ result: string; shouldReEncrypt: boolean }>;
  isAsyncEncryptionAvailable?: () => Promise<boolean>;
  encryptString(plainText: string): Buffer;
  decryptString(encrypted: Buffer): string;
  isEncryptionAvailable(): boolean;
  getSelectedStorageBackend?: () => string;
}

/** Recorded with the wrapped key in the database; the store names it in its errors. */
export const OS_KEYCHAIN_MODE = 'os-keychain';

export function noKeychainWarning(reason: 'basic_text' | 'unavailable', keyFile: string): string {
  const why =
    reason === 'basic_text'
      ? 'No system keyring is available to Gatehouse (Electron reports the "basic_text" password store), so the OS keychain cannot protect your provider secrets. '
      : 'The OS keychain cannot be used by Gatehouse right now. ';
  return (
    `${why}They are encrypted with a key kept in ${keyFile} instead: anyone who can read your data folder can decrypt them. ` +
    'On Linux, install and unlock a keyring (GNOME Keyring or KWallet) and restart Gatehouse, or set GATEHOUSE_MASTER_KEY.'
  );
}

/**
 * The store's key file protector, created only when a data key is first wrapped: if the store turns
 * out to be protected another way (say the keychain, on a day the keyring is locked), the store
 * refuses before any unwrap and no stray key file is left to confuse the next start.
 */
function lazyKeyFileProtector(dataDir: string, warning: string): KeyProtector {
  const keyFile = join(dataDir, KEY_FILE_NAME);
  let protector: KeyProtector | null = null;
  const open = (): KeyProtector => (protector ??= keyFileProtector(dataDir));
  return {
    mode: 'key-file',
    isProtected: false,
    warning,
    wrap: (dataKey) => open().wrap(dataKey),
    unwrap: async (wrapped) => {
      if (!protector && !existsSync(keyFile)) throw new Error(`The key file ${keyFile} is missing, so the stored secrets cannot be opened.`);
      return open().unwrap(wrapped);
    },
  };
}

async function isEncryptionAvailable(safeStorage: SafeStorageLike): Promise<boolean> {
  try {
    if (safeStorage.isAsyncEncryptionAvailable) return await safeStorage.isAsyncEncryptionAvailable();
    return safeStorage.isEncryptionAvailable();
  } catch {
    return false;
  }
}

/** The keychain protector; only meaningful when a real backend is in use (see chooseDesktopKeyProtector). */
export function safeStorageProtector(safeStorage: SafeStorageLike): KeyProtector {
  // safeStorage encrypts strings; base64 carries the key's bytes through unchanged.
  const encrypt = async (plainText: string): Promise<Buffer> =>
    safeStorage.encryptStringAsync ? safeStorage.encryptStringAsync(plainText) : safeStorage.encryptString(plainText);
  const decrypt = async (encrypted: Buffer): Promise<string> =>
    safeStorage.decryptStringAsync ? (await safeStorage.decryptStringAsync(encrypted)).result : safeStorage.decryptString(encrypted);
  return {
    mode: OS_KEYCHAIN_MODE,
    isProtected: true,
    warning: null,
    wrap: async (dataKey) => encrypt(dataKey.toString('base64')),
    unwrap: async (wrapped) => Buffer.from(await decrypt(wrapped), 'base64'),
  };
}

export interface DesktopKeyProtectorOptions {
  platform: NodeJS.Platform;
  dataDir: string;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * Call after `app.whenReady()`: before it, Linux reports the backend as "unknown". A Linux session
 * without a keyring gets Chromium's "basic_text" store, whose key is a public constant: that is no
 * protection, so the key file (no better, but shared with `serve` and honest about it) is used.
 */
export async function chooseDesktopKeyProtector(safeStorage: SafeStorageLike, options: DesktopKeyProtectorOptions): Promise<KeyProtector> {
  const masterKey = options.env[MASTER_KEY_ENV];
  if (masterKey !== undefined && masterKey.trim() !== '') return masterKeyProtector(masterKey);

  const keyFile = join(options.dataDir, KEY_FILE_NAME);
  const isAvailable = await isEncryptionAvailable(safeStorage);
  const backend = options.platform === 'linux' && safeStorage.getSelectedStorageBackend ? safeStorage.getSelectedStorageBackend() : null;
  const hasRealKeychain = isAvailable && backend !== 'basic_text' && backend !== 'unknown';
  if (hasRealKeychain) return safeStorageProtector(safeStorage);
  return lazyKeyFileProtector(options.dataDir, noKeychainWarning(isAvailable ? 'basic_text' : 'unavailable', keyFile));
}
