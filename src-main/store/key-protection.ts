// Key protection: what keeps the data key (the key every stored secret depends on) safe at rest.
// One small interface with one implementation per environment: the desktop app wraps the data key
// with the OS keychain (src-main/electron/), headless processes with GATEHOUSE_MASTER_KEY (a raw key
// or a passphrase through scrypt), and, as a last resort, with a key file beside the database.
import { randomBytes, scrypt as scryptCallback, type ScryptOptions } from 'node:crypto';
import { chmodSync, existsSync, linkSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDataDir } from './database.js';
import { unwrapWithKey, wrapWithKey } from './secret-box.js';

export interface KeyProtector {
  /** A stable name for how the data key is protected; recorded with the wrapped key. */
  readonly mode: string;
  /** False when the wrapping key sits beside the data (key file, `basic_text` keychain). */
  readonly isProtected: boolean;
  /** Shown to the user (stderr, UI) when protection is weak; null when there is nothing to say. */
  readonly warning: string | null;
  wrap(dataKey: Buffer): Promise<Buffer>;
  unwrap(wrapped: Buffer): Promise<Buffer>;
}

export const MASTER_KEY_ENV = 'GATEHOUSE_MASTER_KEY';
export const KEY_FILE_NAME = 'master.key';

const MASTER_KEY_BYTES = 32;
const WRAP_PURPOSE = 'data-key';

/** How a user would recognise each headless mode in an error message. */
export function describeProtectorMode(mode: string): string {
  switch (mode) {
    case 'master-key':
      return `the ${MASTER_KEY_ENV} key`;
    case 'passphrase':
      return `the ${MASTER_KEY_ENV} passphrase`;
    case 'key-file':
      return `the key file ${KEY_FILE_NAME} in the data directory`;
    case 'os-keychain':
      return "the desktop app's OS keychain";
    default:
      return `the '${mode}' key protection (for example the desktop app's OS keychain)`;
  }
}

/** GATEHOUSE_MASTER_KEY is either 32 bytes in hex or base64, or else a passphrase. */
export function parseMasterKey(value: string): { kind: 'key'; key: Buffer } | { kind: 'passphrase'; passphrase: string } {
  const trimmed = value.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return { kind: 'key', key: Buffer.from(trimmed, 'hex') };
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const decoded = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (decoded.length === MASTER_KEY_BYTES) return { kind: 'key', key: decoded };
  }
  return { kind: 'passphrase', passphrase: value };
}

/** GATEHOUSE_MASTER_KEY as a raw 32-byte key. */
class RawKeyProtector implements KeyProtector {
  readonly mode = 'master-key';
  readonly isProtected = true;
  readonly warning = null;

  constructor(private readonly wrappingKey: Buffer) {}

  async wrap(dataKey: Buffer): Promise<Buffer> {
    return wrapWithKey(this.wrappingKey, dataKey, `${this.mode}:${WRAP_PURPOSE}`);
  }

  async unwrap(wrapped: Buffer): Promise<Buffer> {
    return unwrapWithKey(this.wrappingKey, wrapped, `${this.mode}:${WRAP_PURPOSE}`);
  }
}

const SCRYPT_SALT_BYTES = 16;
// OWASP's scrypt setting (N=2^17, r=8, p=1): about half a second, once per process start.
const SCRYPT_LOG_N = 17;
const SCRYPT_R = 8;
const SCRYPT_P = 1;
const MIN_PASSPHRASE_LENGTH = 12;

function scrypt(passphrase: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** logN, r, p, maxmem: 256 * 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scryptCallback(passphrase.normalize('NFC'), salt, MASTER_KEY_BYTES, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

/**
 * A passphrase through scrypt. The salt and cost travel with the wrapped key (stored in the
 * database), so the passphrase alone, not a second file, is what a copy of the data dir lacks.
 * Layout: logN | r | p | salt(16) | wrapped.
 */
class PassphraseProtector implements KeyProtector {
  readonly mode = 'passphrase';
  readonly isProtected = true;
  readonly warning: string | null;
  private readonly derivedBySalt = new Map<string, Promise<Buffer>>();

  constructor(private readonly passphrase: string) {
    this.warning =
      passphrase.length < MIN_PASSPHRASE_LENGTH
        ? `${MASTER_KEY_ENV} is a short passphrase (${passphrase.length} characters): anyone holding a copy of the data directory can try to guess it. Use ${MIN_PASSPHRASE_LENGTH} characters or more, or a random 32-byte key (openssl rand -base64 32).`
        : null;
  }

  private deriveKey(salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
    const cacheKey = `${logN}:${r}:${p}:${salt.toString('hex')}`;
    let derived = this.derivedBySalt.get(cacheKey);
    if (!derived) {
      derived = scrypt(this.passphrase, salt, logN, r, p);
      this.derivedBySalt.set(cacheKey, derived);
    }
    return derived;
  }

  async wrap(dataKey: Buffer): Promise<Buffer> {
    const salt = randomBytes(SCRYPT_SALT_BYTES);
    const key = await this.deriveKey(salt, SCRYPT_LOG_N, SCRYPT_R, SCRYPT_P);
    return Buffer.concat([Buffer.from([SCRYPT_LOG_N, SCRYPT_R, SCRYPT_P]), salt, wrapWithKey(key, dataKey, `passphrase:${WRAP_PURPOSE}`)]);
  }

  async unwrap(wrapped: Buffer): Promise<Buffer> {
    if (wrapped.length < 3 + SCRYPT_SALT_BYTES) throw new Error('The wrapped data key is truncated');
    const [logN, r, p] = [wrapped[0], wrapped[1], wrapped[2]];
    // Bounds keep a tampered header from asking scrypt for absurd memory or time.
    if (logN < 14 || logN > 20 || r < 1 || r > 16 || p < 1 || p > 4) throw new Error('The wrapped data key has invalid scrypt parameters');
    const salt = wrapped.subarray(3, 3 + SCRYPT_SALT_BYTES);
    const key = await this.deriveKey(Buffer.from(salt), logN, r, p);
    return unwrapWithKey(key, wrapped.subarray(3 + SCRYPT_SALT_BYTES), `passphrase:${WRAP_PURPOSE}`);
  }
}

export function masterKeyProtector(value: string): KeyProtector {
  const parsed = parseMasterKey(value);
  return parsed.kind === 'key' ? new RawKeyProtector(parsed.key) : new PassphraseProtector(parsed.passphrase);
}

export function keyFileWarning(keyFile: string): string {
  return (
    `Provider secrets are encrypted with a key kept in ${keyFile}: they are only as safe as that file. ` +
    `Set ${MASTER_KEY_ENV} (a passphrase or a random 32-byte key) or use the desktop app with an OS keychain to protect them.`
  );
}

/**
 * The last resort: a random key in `<dataDir>/master.key`, mode 0600. The file is created only
 * when a data key is first wrapped, so a process that merely fails to open a store protected some
 * other way leaves no stray key file behind. Two processes starting at once (server and CLI) must
 * end up with the same key: the file is written aside and linked into place, which fails if the
 * other process got there first, and then its key is read.
 */
export function keyFileProtector(dataDir: string): KeyProtector {
  const keyFile = join(dataDir, KEY_FILE_NAME);
  const purpose = `key-file:${WRAP_PURPOSE}`;
  let key: Buffer | undefined;
  const keyForWrapping = (): Buffer => (key ??= readKeyFile(keyFile) ?? createKeyFile(dataDir, keyFile));
  const keyForUnwrapping = (): Buffer => {
    key ??= readKeyFile(keyFile);
    if (!key) throw new Error(`The key file ${keyFile} is missing; the stored secrets cannot be opened without it.`);
    return key;
  };
  return {
    mode: 'key-file',
    isProtected: false,
    warning: keyFileWarning(keyFile),
    wrap: async (dataKey) => wrapWithKey(keyForWrapping(), dataKey, purpose),
    unwrap: async (wrapped) => unwrapWithKey(keyForUnwrapping(), wrapped, purpose),
  };
}

function createKeyFile(dataDir: string, keyFile: string): Buffer {
  ensureDataDir(dataDir);
  const pending = `${keyFile}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(pending, `${randomBytes(MASTER_KEY_BYTES).toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  try {
    linkSync(pending, keyFile);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    rmSync(pending, { force: true });
  }
  const key = readKeyFile(keyFile);
  if (!key) throw new Error(`Could not create the key file ${keyFile}`);
  return key;
}

function readKeyFile(keyFile: string): Buffer | undefined {
  let text: string;
  try {
    text = readFileSync(keyFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  // Someone widened the mode: narrow it again rather than leave the key readable by others.
  if ((statSync(keyFile).mode & 0o077) !== 0) chmodSync(keyFile, 0o600);
  const key = Buffer.from(text.trim(), 'base64');
  if (key.length !== MASTER_KEY_BYTES) {
    throw new Error(`${keyFile} does not hold a 32-byte key; it was left untouched. Restore it from a backup, or move it away only if no secrets depend on it.`);
  }
  return key;
}

/** The key file's protector if the file exists (never creates one): to move its data key elsewhere. */
export function existingKeyFileProtector(dataDir: string): KeyProtector | undefined {
  return existsSync(join(dataDir, KEY_FILE_NAME)) ? keyFileProtector(dataDir) : undefined;
}

/** Once the data key is wrapped by something stronger the key file protects nothing: removing it removes the weak point. */
export function retireKeyFile(dataDir: string): void {
  rmSync(join(dataDir, KEY_FILE_NAME), { force: true });
}

/** The protector for `gatehouse serve` and the `keys` command line (no Electron). */
export async function chooseHeadlessKeyProtector(dataDir: string, env: NodeJS.ProcessEnv): Promise<KeyProtector> {
  const masterKey = env[MASTER_KEY_ENV];
  if (masterKey !== undefined && masterKey.trim() !== '') return masterKeyProtector(masterKey);
  return keyFileProtector(dataDir);
}
