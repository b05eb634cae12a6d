import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
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
  it('is created with mode 0600 and reported as unprotected, with a warning', async () => {
    const protector = await chooseHeadlessKeyProtector(dataDir, {});
    expect(protector.mode).toBe('key-file');
    expect(protector.isProtected).toBe(false);
    expect(protector.warning).toMatch(/only as safe as that file/);
    expect(statSync(join(dataDir, KEY_FILE_NAME)).mode & 0o777).toBe(0o600);
  });

  it('is reused by the next process, so what one wrapped the other unwraps', async () => {
    const first = keyFileProtector(dataDir);
    const second = keyFileProtector(dataDir);
    const dataKey = randomBytes(48);
    expect((await second.unwrap(await first.wrap(dataKey))).equals(dataKey)).toBe(true);
  });

  it('narrows a widened file mode back to 0600', () => {
    keyFileProtector(dataDir);
    chmodSync(join(dataDir, KEY_FILE_NAME), 0o644);
    keyFileProtector(dataDir);
    expect(statSync(join(dataDir, KEY_FILE_NAME)).mode & 0o777).toBe(0o600);
  });

  it('refuses a damaged key file with a clear message and leaves it alone', () => {
    writeFileSync(join(dataDir, KEY_FILE_NAME), 'not a key\n', { mode: 0o600 });
    expect(() => keyFileProtector(dataDir)).toThrow(/does not hold a 32-byte key/);
    expect(readFileSync(join(dataDir, KEY_FILE_NAME), 'utf8')).toBe('not a key\n');
  });

  it('is not used when GATEHOUSE_MASTER_KEY is set', async () => {
    await chooseHeadlessKeyProtector(dataDir, { GATEHOUSE_MASTER_KEY: randomBytes(32).toString('hex') });
    expect(() => statSync(join(dataDir, KEY_FILE_NAME))).toThrow();
  });
});
