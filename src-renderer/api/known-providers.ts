// CONTRACT §3: the provider slugs every Gatehouse knows. Pickers use them only when the live list
// (GET /admin/api/providers) cannot be fetched.
export const KNOWN_PROVIDER_SLUGS = ['openai', 'anthropic', 'azure-openai', 'vertex-ai', 'bedrock', 'google', 'mistral-ai', 'groq', 'together-ai', 'deepseek', 'openrouter', 'ollama'];
