// A virtual key's credential values checked against what its provider declares, and turned into the
// credentials a call carries. Shared by every key store, so each checks them the same way.
import { invalidRequest } from './errors.js';
import { credentialParameter, setCredentialField, type CredentialField, type ProviderCredentials } from './credentials.js';
import type { CredentialValues, VirtualKeyChange } from './key-repository.js';

/** What the checks need of a provider (a ProviderAdapter is one). */
export interface CredentialSchema {
  readonly slug: string;
  readonly name?: string;
  /** The provider has no host of its own: a key must name one. */
  readonly hostRequired?: boolean;
  readonly credentialFields: readonly CredentialField[];
  /** Checks stored credential values when a virtual key is created or rotated; throws GatewayError (400). */
  checkCredentials?(values: Readonly<Record<string, string>>): void;
}

/**
 * The field a credential name stands for at this provider: the field's own name (`azure.resourceName`),
 * `token` (or `secret`), or the spec parameter of the header the field comes in (`cloud_a_resource_name`,
 * or camel case `cloudAResourceName`) — each header is named once, on its provider's field.
 */
export function credentialFieldName(name: string, provider: CredentialSchema): string | undefined {
  if (name === 'token' || name === 'secret') return 'token';
  if (name.includes('.')) return name;
  const snake = name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);
  return provider.credentialFields.find((field) => field.header !== undefined && credentialParameter(field.header) === snake)?.name;
}

/** The field a bare "secret" fills: the token, or the first secret field (Bedrock's secret access key). */
export function mainSecretField(provider: CredentialSchema): CredentialField | undefined {
  return provider.credentialFields.find((field) => field.name === 'token') ?? provider.credentialFields.find((field) => field.secret);
}

export function toProviderCredentials(values: CredentialValues): ProviderCredentials {
  const credentials: ProviderCredentials = {};
  for (const [name, value] of Object.entries(values)) setCredentialField(credentials, name, value);
  return credentials;
}

/**
 * For a change of a key's host: each secret the key holds must be given again (400 naming the first one
 * missing), and the ones held are dropped from `current`, so the old secret is never sealed for the new host.
 */
export function requireSecretsAgain(provider: CredentialSchema, id: string, current: CredentialValues, change: VirtualKeyChange): void {
  const given = new Set(Object.keys(change.fields ?? {}).map((name) => credentialFieldName(name, provider)));
  const main = mainSecretField(provider);
  if (change.secret !== undefined && change.secret !== '' && main) given.add(main.name);
  for (const field of provider.credentialFields) {
    if (!field.secret || !current[field.name]) continue;
    if (!given.has(field.name)) {
      const param = field.name === main?.name ? 'secret' : field.name;
      throw invalidRequest(`Changing the host of virtual key '${id}' needs its '${field.label}' again ('${param}'): a stored secret never follows a key to a new host`, param);
    }
    delete current[field.name];
  }
}

/** Checks credential fields against what the provider declares; returns them by canonical name. */
export function validCredentials(provider: CredentialSchema, secret: string | undefined, fields: Record<string, string | undefined>, base: CredentialValues, customHost: string | null): CredentialValues {
  if (provider.hostRequired && customHost === null) {
    throw invalidRequest(`${provider.name ?? provider.slug} has no address of its own: give its custom host (a URL like http://127.0.0.1:8000/v1)`, 'customHost');
  }
  const values: CredentialValues = { ...base };
  const declared = new Map(provider.credentialFields.map((field) => [field.name, field]));
  for (const [rawName, value] of Object.entries(fields)) {
    const name = credentialFieldName(rawName, provider);
    if (!name || !declared.has(name)) {
      const known = [...declared.keys()].join(', ') || 'none';
      throw invalidRequest(`Provider '${provider.slug}' takes no credential field '${rawName}' (it takes: ${known})`, rawName);
    }
    if (value === undefined || value === '') delete values[name];
    else values[name] = value;
  }
  if (secret !== undefined && secret !== '') {
    const field = mainSecretField(provider);
    if (!field) throw invalidRequest(`Provider '${provider.slug}' takes no secret`, 'secret');
    values[field.name] = secret;
  }
  for (const field of provider.credentialFields) {
    // A custom host may be a local model that needs no token; the other fields still say where to go.
    const exempt = field.name === 'token' && customHost !== null;
    const standsIn = field.alternative !== undefined && Boolean(values[field.alternative]);
    if (field.required && !exempt && !standsIn && !values[field.name]) {
      throw invalidRequest(`A virtual key for '${provider.slug}' needs '${field.label}' (${field.name})`, field.name === mainSecretField(provider)?.name ? 'secret' : field.name);
    }
  }
  provider.checkCredentials?.(values);
  return values;
}

/** The values shown beside a key (resource, region ...): every field the provider does not call secret. */
export function nonSecretValues(provider: CredentialSchema, values: CredentialValues): CredentialValues {
  const shown: CredentialValues = {};
  for (const field of provider.credentialFields) {
    if (!field.secret && values[field.name] !== undefined) shown[field.name] = values[field.name];
  }
  return shown;
}
