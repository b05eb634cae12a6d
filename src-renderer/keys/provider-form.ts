// How a provider's credential fields (from GET /admin/api/providers) map onto the create and
// rotate bodies: the API key goes in `secret`, the custom host in `customHost`, the rest in `cloud`.
import type { NewVirtualKey, ProviderField, ProviderInfo, VirtualKeyRotation } from '../api/types';

const SECRET_FIELD_NAMES = new Set(['secret', 'apiKey', 'api_key', 'key', 'token']);
const HOST_FIELD_NAMES = new Set(['customHost', 'custom_host', 'baseUrl', 'host']);

export const API_KEY_FIELD: ProviderField = { name: 'secret', label: 'API key', secret: true, required: false };

export function isSecretField(field: ProviderField): boolean {
  return SECRET_FIELD_NAMES.has(field.name);
}

/**
 * The credential fields to show for a provider. One without any secret field of its own (a local
 * server, or an unknown provider) still gets an optional "API key".
 */
export function credentialFields(provider: ProviderInfo | undefined): ProviderField[] {
  const fields = (provider?.fields ?? []).filter((field) => !HOST_FIELD_NAMES.has(field.name));
  return fields.some((field) => field.secret) ? fields : [API_KEY_FIELD, ...fields];
}

export type FieldValues = Record<string, string>;

/**
 * Whether the field must be filled in now. As on the server, a custom host makes the API key optional
 * (local models need none), and a field's alternative stands in for it (a service account for a token).
 */
export function isFieldRequired(field: ProviderField, values: FieldValues, customHost = ''): boolean {
  if (!field.required) return false;
  if (customHost.trim() !== '' && isSecretField(field)) return false;
  return !(field.alternative && (values[field.alternative] ?? '').trim());
}

/** Required fields left empty. */
export function missingRequiredFields(provider: ProviderInfo | undefined, values: FieldValues, customHost = ''): ProviderField[] {
  return credentialFields(provider).filter((field) => isFieldRequired(field, values, customHost) && !(values[field.name] ?? '').trim());
}

function splitCredentials(provider: ProviderInfo | undefined, values: FieldValues): VirtualKeyRotation {
  const result: VirtualKeyRotation = {};
  const cloud: Record<string, string> = {};
  for (const field of credentialFields(provider)) {
    const value = (values[field.name] ?? '').trim();
    if (!value) continue;
    if (isSecretField(field)) result.secret = value;
    else cloud[field.name] = value;
  }
  if (Object.keys(cloud).length) result.cloud = cloud;
  return result;
}

export function buildNewVirtualKey(name: string, provider: ProviderInfo | undefined, providerSlug: string, values: FieldValues, customHost: string): NewVirtualKey {
  const body: NewVirtualKey = { name: name.trim(), provider: providerSlug, ...splitCredentials(provider, values) };
  if (customHost.trim()) body.customHost = customHost.trim();
  return body;
}

export function buildRotation(provider: ProviderInfo | undefined, values: FieldValues): VirtualKeyRotation {
  return splitCredentials(provider, values);
}

const EXAMPLE_MODELS: Record<string, string> = {
  openai: 'gpt-4o-mini',
  anthropic: 'claude-3-5-haiku-latest',
  'azure-openai': 'gpt-4o-mini',
  'vertex-ai': 'gemini-2.0-flash',
  google: 'gemini-2.0-flash',
  bedrock: 'anthropic.claude-3-5-haiku-20241022-v1:0',
  'mistral-ai': 'mistral-small-latest',
  groq: 'llama-3.1-8b-instant',
  'together-ai': 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
  deepseek: 'deepseek-chat',
  openrouter: 'openai/gpt-4o-mini',
  ollama: 'llama3.2',
};

export function exampleModelFor(providerSlug: string | null): string {
  return (providerSlug && EXAMPLE_MODELS[providerSlug]) || 'your-model';
}
