// A virtual key's credential values sealed to the data key (secret-box.ts), and opened again: all at
// once for a change, or per request through a caller that holds only the ciphertext.
import type { KeyObject } from 'node:crypto';
import { GatewayError } from '../../core/errors.js';
import type { ProviderCredentials } from '../../core/credentials.js';
import { toProviderCredentials } from '../../core/credential-values.js';
import type { CredentialValues } from '../../core/key-repository.js';
import { deriveSealedValueKey, openSealedValue, openSecret, sealSecret, SecretBoxError, type SecretContext } from '../secret-box.js';

function credentialsContext(id: string): SecretContext {
  return { table: 'virtual_keys', rowId: id, field: 'credentials' };
}

function undecryptable(id: string, error: unknown): unknown {
  if (!(error instanceof SecretBoxError)) return error;
  return new GatewayError(500, 'api_error', `The stored credentials of virtual key '${id}' cannot be decrypted (altered or moved); rotate its secret.`);
}

const WITHOUT_DATA_KEY = 'This key store was opened without the data key and cannot decrypt secrets';

export function sealCredentials(publicKey: Buffer, id: string, values: CredentialValues): Buffer {
  return sealSecret(publicKey, JSON.stringify(values), credentialsContext(id));
}

export function openCredentials(privateKey: KeyObject | undefined, publicKey: Buffer, id: string, sealed: Buffer): CredentialValues {
  if (!privateKey) throw new Error(WITHOUT_DATA_KEY);
  try {
    return JSON.parse(openSecret(privateKey, publicKey, sealed, credentialsContext(id))) as CredentialValues;
  } catch (error) {
    throw undecryptable(id, error);
  }
}

/**
 * A caller's loadCredentials: only the ciphertext is held, plus (after first use) the key that opens this
 * one value, which spares the key agreement per request; the secret exists in clear for one request at a time.
 * `privateKey` is asked each time: a store closed (or opened for writing only) has none.
 */
export function credentialsLoader(privateKey: () => KeyObject | undefined, publicKey: Buffer, id: string, sealed: Buffer | null): () => Promise<ProviderCredentials> {
  let valueKey: Buffer | undefined;
  return async () => {
    if (!sealed) return {};
    const key = privateKey();
    if (!key) throw new Error(WITHOUT_DATA_KEY);
    try {
      valueKey ??= deriveSealedValueKey(key, publicKey, sealed);
      return toProviderCredentials(JSON.parse(openSealedValue(valueKey, sealed, credentialsContext(id))) as CredentialValues);
    } catch (error) {
      throw undecryptable(id, error);
    }
  };
}
