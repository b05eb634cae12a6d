// Every provider Gatehouse can reach, by slug (CONTRACT §3). Adding a provider adds one line here; one that
// speaks OpenAI's format is that line alone (its slug, name, base URL and whether it needs a token).
import { invalidRequest } from '../core/errors.js';
import { createOpenAICompatibleProvider } from './openai-compatible.js';
import { azureOpenAI } from './azure-openai.js';
import { anthropic } from './anthropic.js';
import { google } from './google.js';
import { bedrock } from './bedrock.js';
import { vertexAi } from './vertex-ai.js';
import type { ProviderAdapter, ProviderCredentials } from './types.js';

const providers: readonly ProviderAdapter[] = [
  createOpenAICompatibleProvider({ slug: 'openai', name: 'OpenAI', defaultBaseUrl: 'https://api.openai.com/v1', tokenRequired: true, responses: true }),
  // vLLM, LM Studio, llama.cpp, a proxy …: its own badge and no catalog prices (it is not OpenAI's models).
  createOpenAICompatibleProvider({ slug: 'openai-compatible', name: 'OpenAI-compatible server', defaultBaseUrl: '', tokenRequired: false, responses: true, hostRequired: true }),
  createOpenAICompatibleProvider({ slug: 'ollama', name: 'Ollama', defaultBaseUrl: 'http://localhost:11434/v1', tokenRequired: false }),
  createOpenAICompatibleProvider({ slug: 'groq', name: 'Groq', defaultBaseUrl: 'https://api.groq.com/openai/v1', tokenRequired: true }),
  createOpenAICompatibleProvider({ slug: 'together-ai', name: 'Together AI', defaultBaseUrl: 'https://api.together.xyz/v1', tokenRequired: true }),
  createOpenAICompatibleProvider({ slug: 'deepseek', name: 'DeepSeek', defaultBaseUrl: 'https://api.deepseek.com/v1', tokenRequired: true }),
  createOpenAICompatibleProvider({ slug: 'mistral-ai', name: 'Mistral AI', defaultBaseUrl: 'https://api.mistral.ai/v1', tokenRequired: true }),
  createOpenAICompatibleProvider({ slug: 'openrouter', name: 'OpenRouter', defaultBaseUrl: 'https://openrouter.ai/api/v1', tokenRequired: true }),
  azureOpenAI,
  anthropic,
  google,
  bedrock,
  vertexAi,
];

const bySlug = new Map(providers.map((provider) => [provider.slug, provider]));

/**
 * The credential fields that come in headers of their own (spec §5.3's cloud headers), lower-case header
 * → field name: each header is named once, on its provider's field, and read from here.
 */
export const CREDENTIAL_FIELD_HEADERS: ReadonlyMap<string, string> = new Map(
  providers
    .flatMap((provider) => provider.credentialFields)
    .filter((field) => field.header?.toLowerCase().startsWith('x-'))
    .map((field) => [field.header!.toLowerCase(), field.name]),
);

export function listProviders(): readonly ProviderAdapter[] {
  return providers;
}

/** The provider of a slug, or undefined: for code that runs after a request was refused for naming an unknown one. */
export function findProvider(slug: string): ProviderAdapter | undefined {
  return bySlug.get(slug);
}

export function getProvider(slug: string): ProviderAdapter {
  const provider = bySlug.get(slug);
  if (!provider) {
    throw invalidRequest(`Unknown provider '${slug}'. Known providers: ${[...bySlug.keys()].join(', ')}`, 'x-gateway-provider', 'unknown_provider');
  }
  return provider;
}

/** Every credential field any provider marks secret, by its path in ProviderCredentials (`token`, `bedrock.secretAccessKey` …). */
const SECRET_FIELD_PATHS: readonly string[][] = [
  ...new Set(providers.flatMap((provider) => provider.credentialFields.filter((field) => field.secret).map((field) => field.name))),
].map((name) => name.split('.'));

/** The secret values among a call's credentials: what must never appear in an answer, an error or the log. */
export function secretCredentialValues(credentials: ProviderCredentials | undefined): string[] {
  if (!credentials) return [];
  const values: string[] = [];
  for (const path of SECRET_FIELD_PATHS) {
    let value: unknown = credentials;
    for (const step of path) value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[step] : undefined;
    if (typeof value === 'string' && value !== '') values.push(value);
  }
  return values;
}
