// New key strings and ids: random, shown once, kept only as their hash and a short display prefix.
import { randomBytes } from 'node:crypto';
import { hashKey } from '../../core/keys.js';

/** 24 random bytes: 192 bits, above the 160 the contract asks for. */
const KEY_RANDOM_BYTES = 24;
/** Characters of the key kept for display: the prefix plus four random characters. */
const DISPLAY_PREFIX_RANDOM_CHARS = 4;

export function newKey(prefix: string): { key: string; hash: Buffer; displayPrefix: string } {
  const key = `${prefix}${randomBytes(KEY_RANDOM_BYTES).toString('base64url')}`;
  return { key, hash: hashKey(key), displayPrefix: key.slice(0, prefix.length + DISPLAY_PREFIX_RANDOM_CHARS) };
}

export function newId(kind: 'vk' | 'gk'): string {
  return `${kind}_${randomBytes(8).toString('hex')}`;
}
