import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  generateDataKeyPair,
  loadDataPrivateKey,
  openSecret,
  sealSecret,
  SEALED_SECRET_VERSION,
  SecretBoxError,
  unwrapWithKey,
  wrapWithKey,
  type SecretContext,
} from '../../../src-main/store/secret-box.js';

const context: SecretContext = { table: 'virtual_keys', rowId: 'vk_1', field: 'credentials' };

function dataKeys() {
  const pair = generateDataKeyPair();
  return { publicKey: pair.publicKey, privateKey: loadDataPrivateKey(pair.privateKeyDer) };
}

describe('sealed secrets', () => {
  it('round-trips a secret sealed to the data public key', () => {
    const keys = dataKeys();
    const sealed = sealSecret(keys.publicKey, 'sk-live-éü-secret', context);
    expect(sealed[0]).toBe(SEALED_SECRET_VERSION);
    expect(openSecret(keys.privateKey, keys.publicKey, sealed, context)).toBe('sk-live-éü-secret');
  });

  it('never contains the plaintext and differs every time (fresh IV and ephemeral key per value)', () => {
    const keys = dataKeys();
    const first = sealSecret(keys.publicKey, 'sk-same-secret', context);
    const second = sealSecret(keys.publicKey, 'sk-same-secret', context);
    expect(first.equals(second)).toBe(false);
    expect(first.includes(Buffer.from('sk-same-secret'))).toBe(false);
    // version | ephemeral public key | IV: the IVs differ too
    expect(first.subarray(33, 45).equals(second.subarray(33, 45))).toBe(false);
  });

  it('refuses a ciphertext with any single byte flipped', () => {
    const keys = dataKeys();
    const sealed = sealSecret(keys.publicKey, 'sk-flip-me', context);
    for (let index = 0; index < sealed.length; index++) {
      const tampered = Buffer.from(sealed);
      tampered[index] ^= 0x01;
      expect(() => openSecret(keys.privateKey, keys.publicKey, tampered, context), `byte ${index}`).toThrow();
    }
  });

  it('refuses a ciphertext moved to another row, field or table', () => {
    const keys = dataKeys();
    const sealed = sealSecret(keys.publicKey, 'sk-row-bound', context);
    expect(() => openSecret(keys.privateKey, keys.publicKey, sealed, { ...context, rowId: 'vk_2' })).toThrow(SecretBoxError);
    expect(() => openSecret(keys.privateKey, keys.publicKey, sealed, { ...context, field: 'settings' })).toThrow(SecretBoxError);
    expect(() => openSecret(keys.privateKey, keys.publicKey, sealed, { ...context, table: 'gateway_keys' })).toThrow(SecretBoxError);
  });

  it('does not let one field name run into the row id', () => {
    const keys = dataKeys();
    const sealed = sealSecret(keys.publicKey, 'sk-x', { table: 't', rowId: 'a', field: 'bc' });
    expect(() => openSecret(keys.privateKey, keys.publicKey, sealed, { table: 't', rowId: 'ab', field: 'c' })).toThrow(SecretBoxError);
  });

  it('refuses to open with another data key', () => {
    const keys = dataKeys();
    const other = dataKeys();
    const sealed = sealSecret(keys.publicKey, 'sk-mine', context);
    expect(() => openSecret(other.privateKey, other.publicKey, sealed, context)).toThrow(SecretBoxError);
  });

  it('refuses an unknown version byte and a truncated value', () => {
    const keys = dataKeys();
    const sealed = sealSecret(keys.publicKey, 'sk', context);
    const future = Buffer.from(sealed);
    future[0] = 99;
    expect(() => openSecret(keys.privateKey, keys.publicKey, future, context)).toThrow(/version/);
    expect(() => openSecret(keys.privateKey, keys.publicKey, sealed.subarray(0, 40), context)).toThrow(/truncated/);
  });
});

describe('symmetric wrapping', () => {
  it('round-trips, and refuses a wrong key, another purpose or a flipped byte', () => {
    const key = randomBytes(32);
    const secret = randomBytes(48);
    const wrapped = wrapWithKey(key, secret, 'data-key');
    expect(unwrapWithKey(key, wrapped, 'data-key').equals(secret)).toBe(true);
    expect(() => unwrapWithKey(randomBytes(32), wrapped, 'data-key')).toThrow(SecretBoxError);
    expect(() => unwrapWithKey(key, wrapped, 'other')).toThrow(SecretBoxError);
    const tampered = Buffer.from(wrapped);
    tampered[tampered.length - 1] ^= 0x80;
    expect(() => unwrapWithKey(key, tampered, 'data-key')).toThrow(SecretBoxError);
  });
});
