// The data key pair every sealed secret depends on: created on first use, its private half wrapped by a
// protector (key-protection.ts) and unwrapped at start; moved to a new protector when the user changed it.
import { timingSafeEqual, type KeyObject } from 'node:crypto';
import type { SqliteDatabase } from '../database.js';
import { describeProtectorMode, existingKeyFileProtector, masterKeyProtector, MASTER_KEY_ENV, retireKeyFile, type KeyProtector } from '../key-protection.js';
import { generateDataKeyPair, loadDataPrivateKey, publicKeyOf } from '../secret-box.js';

const KEY_STORE_FORMAT = 1;

export class KeyStoreLockedError extends Error {
  override name = 'KeyStoreLockedError';
}

interface KeyStoreRow {
  format: number;
  protector_mode: string;
  wrapped_private_key: Buffer;
  public_key: Buffer;
}

export interface KeyStoreOpenOptions {
  /**
   * Protectors the data key may have been wrapped with before (say the key file, before the user
   * set GATEHOUSE_MASTER_KEY or moved to the desktop app). If the stored wrapping names one of
   * their modes, the key is unwrapped with it and rewrapped with the current protector.
   */
  previousProtectors?: readonly KeyProtector[];
  /** Called after a rewrap, e.g. to delete the key file that is no longer needed. */
  onRewrapped?(fromMode: string, toMode: string): void;
}

/** The data key as a store holds it; the private half is absent where nothing is decrypted (the CLI). */
export interface DataKey {
  publicKey: Buffer;
  privateKey: KeyObject | undefined;
  /** How the data key is protected, as recorded in the database. */
  protectorMode: string;
}

/**
 * Lets a store protected the headless way move to the protector in use now: from the key file to
 * GATEHOUSE_MASTER_KEY (the step the key-file warning recommends), or from either to the desktop
 * keychain. The key file is deleted once nothing depends on it.
 */
export function headlessProtectionUpgrade(dataDir: string, env: NodeJS.ProcessEnv): KeyStoreOpenOptions {
  const previousProtectors: KeyProtector[] = [];
  const masterKey = env[MASTER_KEY_ENV];
  if (masterKey !== undefined && masterKey.trim() !== '') previousProtectors.push(masterKeyProtector(masterKey));
  const keyFile = existingKeyFileProtector(dataDir);
  if (keyFile) previousProtectors.push(keyFile);
  return {
    previousProtectors,
    onRewrapped: (fromMode) => {
      if (fromMode === 'key-file') retireKeyFile(dataDir);
    },
  };
}

/** Whether a database already holds a data key (and so keys may depend on it). */
export function hasDataKey(db: SqliteDatabase): boolean {
  return readKeyStoreRow(db) !== undefined;
}

/** The public half alone, for a store that only seals (the CLI); undefined before the first key. */
export function storedPublicKey(db: SqliteDatabase): Omit<DataKey, 'privateKey'> | undefined {
  const row = readKeyStoreRow(db);
  return row && { publicKey: row.public_key, protectorMode: row.protector_mode };
}

/**
 * The data key of a database for a server: creates the pair on first use, else unwraps the private
 * key. A wrong master key or another protector gives a KeyStoreLockedError.
 */
export async function openDataKey(db: SqliteDatabase, protector: KeyProtector, options: KeyStoreOpenOptions = {}): Promise<DataKey> {
  let row = readKeyStoreRow(db);
  if (!row) {
    const pair = generateDataKeyPair();
    const wrapped = await protector.wrap(pair.privateKeyDer);
    // Another process may have initialised the store while we were wrapping: theirs wins.
    db.prepare('INSERT OR IGNORE INTO key_store (id, format, protector_mode, wrapped_private_key, public_key, created_at) VALUES (1, ?, ?, ?, ?, ?)').run(
      KEY_STORE_FORMAT,
      protector.mode,
      wrapped,
      pair.publicKey,
      Date.now(),
    );
    pair.privateKeyDer.fill(0);
    // Unwrapping what was just stored (below) also proves the protector can give the key back,
    // before any secret depends on it.
    row = readKeyStoreRow(db);
    if (!row) throw new Error('The key store could not be initialised');
  }
  if (row.format !== KEY_STORE_FORMAT) {
    throw new KeyStoreLockedError(`The key store was written in format ${row.format}, which this version of Gatehouse does not know. Update Gatehouse.`);
  }

  let unwrapWith = protector;
  if (row.protector_mode !== protector.mode) {
    const previous = options.previousProtectors?.find((candidate) => candidate.mode === row.protector_mode);
    if (!previous) {
      throw new KeyStoreLockedError(
        `The stored secrets are protected by ${describeProtectorMode(row.protector_mode)}, but this process uses ${describeProtectorMode(protector.mode)}. ` +
          `Start Gatehouse the way the keys were created (same ${row.protector_mode === 'key-file' ? 'data directory with its key file' : 'master key or desktop keychain'}); nothing was changed.`,
      );
    }
    unwrapWith = previous;
  }
  const privateKey = await unwrapPrivateKey(unwrapWith, row);
  if (unwrapWith !== protector) {
    const der = privateKey.export({ format: 'der', type: 'pkcs8' });
    const rewrapped = await protector.wrap(der);
    der.fill(0);
    // Durable before onRewrapped may delete the old key: WAL with synchronous=NORMAL does not fsync commits.
    const synchronous = db.pragma('synchronous', { simple: true }) as number;
    db.pragma('synchronous = FULL');
    try {
      db.prepare('UPDATE key_store SET protector_mode = ?, wrapped_private_key = ? WHERE id = 1').run(protector.mode, rewrapped);
    } finally {
      db.pragma(`synchronous = ${synchronous}`);
    }
    options.onRewrapped?.(row.protector_mode, protector.mode);
    return { publicKey: row.public_key, privateKey, protectorMode: protector.mode };
  }
  return { publicKey: row.public_key, privateKey, protectorMode: row.protector_mode };
}

function readKeyStoreRow(db: SqliteDatabase): KeyStoreRow | undefined {
  return db.prepare('SELECT format, protector_mode, wrapped_private_key, public_key FROM key_store WHERE id = 1').get() as KeyStoreRow | undefined;
}

async function unwrapPrivateKey(protector: KeyProtector, row: KeyStoreRow): Promise<KeyObject> {
  const lockedMessage =
    `Cannot unlock the stored secrets: they are protected by ${describeProtectorMode(row.protector_mode)}, and the key given does not open them. ` +
    (row.protector_mode === 'master-key' || row.protector_mode === 'passphrase'
      ? 'GATEHOUSE_MASTER_KEY is wrong or changed; start with the one the keys were created with. '
      : '') +
    'Nothing was changed; without that key the stored provider secrets cannot be recovered.';
  let der: Buffer;
  try {
    der = await protector.unwrap(row.wrapped_private_key);
  } catch (error) {
    // The protector's reason (a missing key file, a locked keychain) helps; it never holds key material.
    throw new KeyStoreLockedError(`${lockedMessage} (${(error as Error).message})`);
  }
  try {
    const privateKey = loadDataPrivateKey(der);
    // A protector that "unwraps" without authenticating (some keychains) must not hand back garbage.
    const derived = publicKeyOf(privateKey);
    if (derived.length !== row.public_key.length || !timingSafeEqual(derived, row.public_key)) throw new KeyStoreLockedError(lockedMessage);
    return privateKey;
  } catch (error) {
    if (error instanceof KeyStoreLockedError) throw error;
    throw new KeyStoreLockedError(lockedMessage);
  } finally {
    der.fill(0);
  }
}
