// Authenticated encryption for stored secrets: AES-256-GCM from node:crypto, a fresh random IV per
// value, a leading version byte, and the owning table, row and field bound in as associated data, so
// a ciphertext copied to another row or field fails to open instead of decrypting there.
//
// Secrets are sealed to the public half of an X25519 "data key pair" (an ephemeral key agreement
// per value derives that value's AES key). Writing a secret therefore needs only the public key,
// which is stored in the clear: the `keys` command line can add a key while the desktop app keeps
// the private half in the OS keychain. Reading a secret needs the private half, which is random
// and only ever stored wrapped by a KeyProtector (see key-protection.ts).
import {
  createCipheriv,
  createDecipheriv,
  createPrivateKey,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';

/** Bumped when the sealed layout or the key derivation changes; old values stay readable by version. */
export const SEALED_SECRET_VERSION = 1;
const WRAPPED_VALUE_VERSION = 1;

const IV_BYTES = 12;
const TAG_BYTES = 16;
const X25519_PUBLIC_BYTES = 32;
const AES_KEY_BYTES = 32;

/** Where a sealed value lives; bound into the ciphertext as associated data. */
export interface SecretContext {
  table: string;
  rowId: string;
  field: string;
}

export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

export interface DataKeyPair {
  /** PKCS#8 DER of the X25519 private key: the bytes a KeyProtector wraps. */
  privateKeyDer: Buffer;
  /** Raw 32-byte X25519 public key, stored in the clear. */
  publicKey: Buffer;
}

export function generateDataKeyPair(): DataKeyPair {
  const { privateKey, publicKey } = generateKeyPairSync('x25519');
  return { privateKeyDer: privateKey.export({ format: 'der', type: 'pkcs8' }), publicKey: rawPublicKey(publicKey) };
}

/** Loads an unwrapped private key; throws SecretBoxError when the bytes are not an X25519 key. */
export function loadDataPrivateKey(privateKeyDer: Buffer): KeyObject {
  try {
    const key = createPrivateKey({ key: privateKeyDer, format: 'der', type: 'pkcs8' });
    if (key.asymmetricKeyType !== 'x25519') throw new Error(`unexpected key type ${key.asymmetricKeyType}`);
    return key;
  } catch (error) {
    throw new SecretBoxError(`The unwrapped data key is not valid (${(error as Error).message})`);
  }
}

/** The raw public key belonging to a private key: lets a store check that an unwrap gave the right key. */
export function publicKeyOf(privateKey: KeyObject): Buffer {
  return rawPublicKey(createPublicKey(privateKey));
}

function rawPublicKey(publicKey: KeyObject): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  if (!jwk.x) throw new SecretBoxError('X25519 public key without coordinates');
  return Buffer.from(jwk.x, 'base64url');
}

function publicKeyFromRaw(raw: Buffer): KeyObject {
  if (raw.length !== X25519_PUBLIC_BYTES) throw new SecretBoxError('A data public key has 32 bytes');
  return createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: raw.toString('base64url') }, format: 'jwk' });
}

function associatedData(version: number, context: SecretContext): Buffer {
  // NUL separators: a table, row or field name cannot run into the next one.
  return Buffer.concat([Buffer.from([version]), Buffer.from(`gatehouse\0${context.table}\0${context.rowId}\0${context.field}`, 'utf8')]);
}

function deriveValueKey(sharedSecret: Buffer, ephemeralPublic: Buffer, recipientPublic: Buffer): Buffer {
  return Buffer.from(
    hkdfSync('sha256', sharedSecret, Buffer.concat([ephemeralPublic, recipientPublic]), 'gatehouse sealed secret v1', AES_KEY_BYTES),
  );
}

/** AES-256-GCM with a random IV: returns iv | tag | ciphertext. */
export function encryptAesGcm(key: Buffer, plaintext: Buffer, aad: Buffer): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, cipher.getAuthTag(), ciphertext]);
}

/** Opens what encryptAesGcm produced; any change to key, bytes or associated data throws. */
export function decryptAesGcm(key: Buffer, box: Buffer, aad: Buffer): Buffer {
  if (box.length < IV_BYTES + TAG_BYTES) throw new SecretBoxError('Encrypted value is truncated');
  const iv = box.subarray(0, IV_BYTES);
  const tag = box.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(box.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  } catch {
    throw new SecretBoxError('Encrypted value failed authentication: wrong key, or the value was altered or moved');
  }
}

/** Seals a secret to the data public key: version | ephemeral public key | iv | tag | ciphertext. */
export function sealSecret(dataPublicKey: Buffer, plaintext: string, context: SecretContext): Buffer {
  const ephemeral = generateKeyPairSync('x25519');
  const ephemeralPublic = rawPublicKey(ephemeral.publicKey);
  const shared = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: publicKeyFromRaw(dataPublicKey) });
  const valueKey = deriveValueKey(shared, ephemeralPublic, dataPublicKey);
  try {
    const box = encryptAesGcm(valueKey, Buffer.from(plaintext, 'utf8'), associatedData(SEALED_SECRET_VERSION, context));
    return Buffer.concat([Buffer.from([SEALED_SECRET_VERSION]), ephemeralPublic, box]);
  } finally {
    shared.fill(0);
    valueKey.fill(0);
  }
}

/**
 * The AES key of one sealed value, from the data private key. The key agreement is the costly step
 * (tens to hundreds of microseconds); a caller that opens the same value on every request may keep
 * this key, which opens nothing but that one value, instead of the secret itself.
 */
export function deriveSealedValueKey(dataPrivateKey: KeyObject, dataPublicKey: Buffer, sealed: Buffer): Buffer {
  checkSealedLayout(sealed);
  const ephemeralPublic = sealed.subarray(1, 1 + X25519_PUBLIC_BYTES);
  const shared = diffieHellman({ privateKey: dataPrivateKey, publicKey: publicKeyFromRaw(Buffer.from(ephemeralPublic)) });
  try {
    return deriveValueKey(shared, ephemeralPublic, dataPublicKey);
  } finally {
    shared.fill(0);
  }
}

/** Opens a sealed value with its value key; throws SecretBoxError if anything does not match. */
export function openSealedValue(valueKey: Buffer, sealed: Buffer, context: SecretContext): string {
  checkSealedLayout(sealed);
  const plaintext = decryptAesGcm(valueKey, sealed.subarray(1 + X25519_PUBLIC_BYTES), associatedData(sealed[0], context));
  const text = plaintext.toString('utf8');
  plaintext.fill(0);
  return text;
}

/** Opens a sealed secret with the data private key; throws SecretBoxError if anything does not match. */
export function openSecret(dataPrivateKey: KeyObject, dataPublicKey: Buffer, sealed: Buffer, context: SecretContext): string {
  const valueKey = deriveSealedValueKey(dataPrivateKey, dataPublicKey, sealed);
  try {
    return openSealedValue(valueKey, sealed, context);
  } finally {
    valueKey.fill(0);
  }
}

function checkSealedLayout(sealed: Buffer): void {
  const version = sealed[0];
  if (version !== SEALED_SECRET_VERSION) throw new SecretBoxError(`Unknown sealed secret version ${String(version)}`);
  if (sealed.length < 1 + X25519_PUBLIC_BYTES + IV_BYTES + TAG_BYTES) throw new SecretBoxError('Sealed secret is truncated');
}

/** Symmetric wrapping (used by the headless key protectors): version | iv | tag | ciphertext. */
export function wrapWithKey(wrappingKey: Buffer, plaintext: Buffer, purpose: string): Buffer {
  const box = encryptAesGcm(wrappingKey, plaintext, wrapAad(purpose));
  return Buffer.concat([Buffer.from([WRAPPED_VALUE_VERSION]), box]);
}

export function unwrapWithKey(wrappingKey: Buffer, wrapped: Buffer, purpose: string): Buffer {
  if (wrapped[0] !== WRAPPED_VALUE_VERSION) throw new SecretBoxError(`Unknown wrapped value version ${String(wrapped[0])}`);
  return decryptAesGcm(wrappingKey, wrapped.subarray(1), wrapAad(purpose));
}

function wrapAad(purpose: string): Buffer {
  return Buffer.from(`gatehouse-wrap\0${WRAPPED_VALUE_VERSION}\0${purpose}`, 'utf8');
}
