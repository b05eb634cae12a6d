// Every provider Gatehouse can reach, by slug (CONTRACT §3). Adding a provider adds one line here.
import { invalidRequest } from '../errors.js';
import { deepseek, groq, mistralAi, ollama, openai, openrouter, togetherAi } from './openai-compatible.js';
import { azureOpenAI } from './azure-openai.js';
import { anthropic } from './anthropic.js';
import { google } from './google.js';
import { bedrock } from './bedrock.js';
import { vertexAi } from './vertex-ai.js';
import type { ProviderAdapter } from './types.js';

const providers: readonly ProviderAdapter[] = [openai, ollama, groq, togetherAi, deepseek, mistralAi, openrouter, azureOpenAI, anthropic, google, bedrock, vertexAi];

const bySlug = new Map(providers.map((provider) => [provider.slug, provider]));

export function listProviders(): readonly ProviderAdapter[] {
  return providers;
}

export function getProvider(slug: string): ProviderAdapter {
  const provider = bySlug.get(slug);
  if (!provider) {
    throw invalidRequest(`Unknown provider '${slug}'. Known providers: ${[...bySlug.keys()].join(', ')}`, 'x-gateway-provider', 'unknown_provider');
  }
  return provider;
}
