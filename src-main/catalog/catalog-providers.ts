// Which catalog providers stand for each Gatehouse provider (catalog.ts looks models up in them;
// scripts/catalog-data.ts keeps only their data).

/** Gatehouse provider slug → genai-prices provider id. Ollama runs local models: no price unless the user sets one. */
export const GENAI_PRICES_PROVIDER: Readonly<Record<string, string>> = {
  openai: 'openai',
  anthropic: 'anthropic',
  'azure-openai': 'azure',
  'vertex-ai': 'google',
  google: 'google',
  bedrock: 'aws',
  'mistral-ai': 'mistral',
  groq: 'groq',
  'together-ai': 'together',
  deepseek: 'deepseek',
  openrouter: 'openrouter',
};

/** Gatehouse provider slug → models.dev providers, searched in order. */
export const MODELS_DEV_PROVIDERS: Readonly<Record<string, readonly string[]>> = {
  openai: ['openai'],
  anthropic: ['anthropic'],
  'azure-openai': ['azure', 'openai'],
  'vertex-ai': ['google-vertex', 'google-vertex-anthropic', 'google', 'anthropic'],
  google: ['google'],
  bedrock: ['amazon-bedrock'],
  'mistral-ai': ['mistral'],
  groq: ['groq'],
  'together-ai': ['togetherai'],
  deepseek: ['deepseek'],
  openrouter: ['openrouter'],
};
