import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { OS_KEYCHAIN_MODE, chooseDesktopKeyProtector, type SafeStorageLike } from '../../../src-main/electron/key-protection';

/** A stand-in for Electron's safeStorage: reversible, visibly not the plain text, and it counts calls. */
function fakeSafeStorage(options: { backend?: string; available?: boolean; async?: boolean } = {}) {
  const calls = { asyncEncrypt: 0, asyncDecrypt: 0, syncEncrypt: 0, syncDecrypt: 0 };
  const seal = (text: string): Buffer => Buffer.concat([Buffer.from('v11'), Buffer.from(text, 'utf8').map((byte) => byte ^ 0x5a)]);
  const open = (sealed: Buffer): string => Buffer.from(sealed.subarray(3).map((byte) => byte ^ 0x5a)).toString('utf8');
  const storage: SafeStorageLike = {
    encryptString: (text) => {
      calls.syncEncrypt += 1;
      return seal(text);
    },
    decryptString: (sealed) => {
      calls.syncDecrypt += 1;
      return open(sealed);
    },
    isEncryptionAvailable: () => options.available ?? true,
    getSelectedStorageBackend: () => options.backend ?? 'gnome_libsecret',
  };
  if (options.async ?? true) {
    storage.isAsyncEncryptionAvailable = async () => options.available ?? true;
    storage.encryptStringAsync = async (text) => {
      calls.asyncEncrypt += 1;
      return seal(text);
    };
    storage.decryptStringAsync = async (sealed) => {
      calls.asyncDecrypt += 1;
      return { result: open(sealed), shouldReEncrypt: false };
    };
  }
  return { storage, calls };
}

describe('key protection in the desktop app', () => {
  let dataDir: string;
  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-keyprot-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('wraps and unwraps the data key with the OS keychain through the async API', async () => {
    const { storage, calls } = fakeSafeStorage({ backend: 'gnome_libsecret' });
    const protector = await chooseDesktopKeyProtector(storage, { platform: 'linux', dataDir, env: {} });
    expect(protector).toMatchObject({ mode: OS_KEYCHAIN_MODE, isProtected: true, warning: null });
    const dataKey = randomBytes(32);
    const wrapped = await protector.wrap(dataKey);
    expect(wrapped.includes(dataKey)).toBe(false);
    expect(await protector.unwrap(wrapped)).toEqual(dataKey);
    expect(calls).toEqual({ asyncEncrypt: 1, asyncDecrypt: 1, syncEncrypt: 0, syncDecrypt: 0 });
    expect(existsSync(join(dataDir, 'master.key'))).toBe(false);
  });

  it('falls back to the synchronous API where the async one is absent', async () => {
    const { storage, calls } = fakeSafeStorage({ async: false });
    const protector = await chooseDesktopKeyProtector(storage, { platform: 'win32', dataDir, env: {} });
    const dataKey = randomBytes(32);
    expect(await protector.unwrap(await protector.wrap(dataKey))).toEqual(dataKey);
    expect(calls).toMatchObject({ syncEncrypt: 1, syncDecrypt: 1 });
    expect(protector.isProtected).toBe(true);
  });

  it('treats a Linux session without a keyring (basic_text) as unprotected and says why', async () => {
    const { storage, calls } = fakeSafeStorage({ backend: 'basic_text' });
    const protector = await chooseDesktopKeyProtector(storage, { platform: 'linux', dataDir, env: {} });
    expect(protector.isProtected).toBe(false);
    expect(protector.mode).toBe('key-file');
    expect(protector.warning).toMatch(/basic_text/);
    expect(protector.warning).toMatch(/keyring/);
    // The key file appears only when a data key is first wrapped.
    expect(existsSync(join(dataDir, 'master.key'))).toBe(false);
    const dataKey = randomBytes(32);
    expect(await protector.unwrap(await protector.wrap(dataKey))).toEqual(dataKey);
    expect(existsSync(join(dataDir, 'master.key'))).toBe(true);
    // The fixed-key store is never used for secrets.
    expect(calls.asyncEncrypt + calls.syncEncrypt).toBe(0);
  });

  it('leaves no key file behind when asked to open a store it cannot (a keychain store, keyring locked)', async () => {
    const { storage } = fakeSafeStorage({ backend: 'basic_text' });
    const protector = await chooseDesktopKeyProtector(storage, { platform: 'linux', dataDir, env: {} });
    await expect(protector.unwrap(randomBytes(64))).rejects.toThrow(/missing/);
    expect(existsSync(join(dataDir, 'master.key'))).toBe(false);
  });

  it('does not ask for a Linux backend on macOS and Windows', async () => {
    const { storage } = fakeSafeStorage({ backend: 'basic_text' });
    expect((await chooseDesktopKeyProtector(storage, { platform: 'darwin', dataDir, env: {} })).isProtected).toBe(true);
  });

  it('says so when encryption is unavailable altogether', async () => {
    const { storage } = fakeSafeStorage({ available: false });
    const protector = await chooseDesktopKeyProtector(storage, { platform: 'win32', dataDir, env: {} });
    expect(protector.isProtected).toBe(false);
    expect(protector.warning).toMatch(/cannot be used/);
  });

  it('uses GATEHOUSE_MASTER_KEY when it is set, as `gatehouse serve` does', async () => {
    const { storage, calls } = fakeSafeStorage();
    const protector = await chooseDesktopKeyProtector(storage, { platform: 'linux', dataDir, env: { GATEHOUSE_MASTER_KEY: randomBytes(32).toString('hex') } });
    expect(protector.mode).toBe('master-key');
    expect(calls.asyncEncrypt).toBe(0);
  });
});
