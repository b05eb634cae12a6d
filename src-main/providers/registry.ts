// Every provider Gatehouse can reach, by slug (CONTRACT §3). Adding a provider adds one line here.
import { invalidRequest } from '../core/errors.js';
import { deepseek, groq, mistralAi, ollama, openai, openrouter, togetherAi } from './openai-compatible.js';
import { azureOpenAI } from './azure-openai.js';
import { anthropic } from './anthropic.js';
import { google } from './google.js';
import { bedrock } from './bedrock.js';
import { vertexAi } from './vertex-ai.js';
import type { ProviderAdapter, ProviderCredentials } from './types.js';

const providers: readonly ProviderAdapter[] = [openai, ollama, groq, togetherAi, deepseek, mistralAi, openrouter, azureOpenAI, anthropic, google, bedrock, vertexAi];

const bySlug = new Map(providers.map((provider) => [provider.slug, provider]));

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
