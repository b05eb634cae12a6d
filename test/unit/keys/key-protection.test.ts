import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  chooseHeadlessKeyProtector,
  KEY_FILE_NAME,
  keyFileProtector,
  masterKeyProtector,
  parseMasterKey,
} from '../../../src-main/store/key-protection.js';

let dataDir: string;
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-protect-'));
});
afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

describe('GATEHOUSE_MASTER_KEY', () => {
  it('reads 32 bytes in hex or base64 as a key, anything else as a passphrase', () => {
    const key = randomBytes(32);
    expect(parseMasterKey(key.toString('hex'))).toEqual({ kind: 'key', key });
    expect(parseMasterKey(key.toString('base64'))).toEqual({ kind: 'key', key });
    expect(parseMasterKey(key.toString('base64url'))).toEqual({ kind: 'key', key });
    expect(parseMasterKey('correct horse battery staple').kind).toBe('passphrase');
  });

  it('as a key: wraps and unwraps the data key, and a wrong key errors instead of returning garbage', async () => {
    const protector = await chooseHeadlessKeyProtector(dataDir, { GATEHOUSE_MASTER_KEY: randomBytes(32).toString('base64') });
    expect(protector.mode).toBe('master-key');
    expect(protector.isProtected).toBe(true);
    expect(protector.warning).toBeNull();
    const dataKey = randomBytes(48);
    const wrapped = await protector.wrap(dataKey);
    expect((await protector.unwrap(wrapped)).equals(dataKey)).toBe(true);
    await expect(masterKeyProtector(randomBytes(32).toString('hex')).unwrap(wrapped)).rejects.toThrow(/failed authentication/);
  });

  it('as a passphrase: derives the key with scrypt and a salt stored with the wrapped key', async () => {
    const protector = masterKeyProtector('a long enough passphrase for tests');
    expect(protector.mode).toBe('passphrase');
    expect(protector.warning).toBeNull();
    const dataKey = randomBytes(48);
    const wrapped = await protector.wrap(dataKey);
    // A fresh protector (a restarted process) with the same passphrase opens it.
    expect((await masterKeyProtector('a long enough passphrase for tests').unwrap(wrapped)).equals(dataKey)).toBe(true);
    await expect(masterKeyProtector('a wrong passphrase, also long').unwrap(wrapped)).rejects.toThrow();
  });

  it('warns about a short passphrase', () => {
    expect(masterKeyProtector('hunter2').warning).toMatch(/short passphrase/);
  });
});

describe('the key file (last resort)', () => {
  const keyFile = () => join(dataDir, KEY_FILE_NAME);

  it('is created with mode 0600 when it first wraps a key, and reported as unprotected, with a warning', async () => {
    const protector = await chooseHeadlessKeyProtector(dataDir, {});
    expect(protector.mode).toBe('key-file');
    expect(protector.isProtected).toBe(false);
    expect(protector.warning).toMatch(/only as safe as that file/);
    expect(existsSync(keyFile())).toBe(false);
    await protector.wrap(randomBytes(48));
    expect(statSync(keyFile()).mode & 0o777).toBe(0o600);
  });

  it('is reused by the next process, so what one wrapped the other unwraps', async () => {
    const dataKey = randomBytes(48);
    const wrapped = await keyFileProtector(dataDir).wrap(dataKey);
    expect((await keyFileProtector(dataDir).unwrap(wrapped)).equals(dataKey)).toBe(true);
  });

  it('two processes creating it at once end up with one key', async () => {
    const dataKey = randomBytes(48);
    const [first, second] = await Promise.all([keyFileProtector(dataDir).wrap(dataKey), keyFileProtector(dataDir).wrap(dataKey)]);
    expect((await keyFileProtector(dataDir).unwrap(first)).equals(dataKey)).toBe(true);
    expect((await keyFileProtector(dataDir).unwrap(second)).equals(dataKey)).toBe(true);
  });

  it('is never created just to try an unwrap, and says when it is missing', async () => {
    await expect(keyFileProtector(dataDir).unwrap(randomBytes(60))).rejects.toThrow(/key file .* is missing/);
    expect(existsSync(keyFile())).toBe(false);
  });

  it('narrows a widened file mode back to 0600', async () => {
    const wrapped = await keyFileProtector(dataDir).wrap(randomBytes(48));
    chmodSync(keyFile(), 0o644);
    await keyFileProtector(dataDir).unwrap(wrapped);
    expect(statSync(keyFile()).mode & 0o777).toBe(0o600);
  });

  it('refuses a damaged key file with a clear message and leaves it alone', async () => {
    writeFileSync(keyFile(), 'not a key\n', { mode: 0o600 });
    await expect(keyFileProtector(dataDir).wrap(randomBytes(48))).rejects.toThrow(/does not hold a 32-byte key/);
    expect(readFileSync(keyFile(), 'utf8')).toBe('not a key\n');
  });

  it('is not used when GATEHOUSE_MASTER_KEY is set', async () => {
    const protector = await chooseHeadlessKeyProtector(dataDir, { GATEHOUSE_MASTER_KEY: randomBytes(32).toString('hex') });
    await protector.wrap(randomBytes(48));
    expect(existsSync(keyFile())).toBe(false);
  });
});
