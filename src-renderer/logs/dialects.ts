// Names a person reads for the dialects a client spoke and the wire formats a provider was called in
// (the log row's `dialect` and `providerFormat`).
import { CLIENT_DIALECTS, type ClientDialect } from '../../src-main/codecs/usage-from-body';

export { CLIENT_DIALECTS, type ClientDialect };

/** The short badge on a log row, and the option in the dialect filter. */
export const DIALECT_LABELS: Record<ClientDialect, string> = {
  'openai-chat': 'Chat',
  'openai-completions': 'Completions',
  'anthropic-messages': 'Messages',
  'openai-responses': 'Responses',
  'openai-embeddings': 'Embeddings',
  gemini: 'Gemini',
};

/** What the badge's tooltip and the detail view say in full. */
export const DIALECT_DESCRIPTIONS: Record<ClientDialect, string> = {
  'openai-chat': 'OpenAI Chat Completions',
  'openai-completions': 'OpenAI Completions',
  'anthropic-messages': 'Anthropic Messages',
  'openai-responses': 'OpenAI Responses',
  'openai-embeddings': 'OpenAI Embeddings',
  gemini: 'Gemini generateContent',
};

const PROVIDER_FORMAT_LABELS: Record<string, string> = {
  'openai-chat': 'OpenAI Chat Completions',
  'openai-completions': 'OpenAI Completions',
  'openai-responses': 'OpenAI Responses',
  'anthropic-messages': 'Anthropic Messages',
  gemini: 'Gemini generateContent',
  'bedrock-converse': 'Bedrock Converse',
  'openai-embeddings': 'OpenAI Embeddings',
  'gemini-embeddings': 'Gemini batchEmbedContents',
  'vertex-predict': 'Vertex AI predict (embeddings)',
  'bedrock-titan': 'Bedrock InvokeModel (Titan embeddings)',
  'bedrock-cohere': 'Bedrock InvokeModel (Cohere Embed)',
};

export function dialectLabel(dialect: string | null | undefined): string | null {
  if (!dialect) return null;
  return DIALECT_LABELS[dialect as ClientDialect] ?? dialect;
}

export function dialectDescription(dialect: string | null | undefined): string | null {
  if (!dialect) return null;
  return DIALECT_DESCRIPTIONS[dialect as ClientDialect] ?? dialect;
}

export function providerFormatLabel(format: string | null | undefined): string | null {
  if (!format) return null;
  return PROVIDER_FORMAT_LABELS[format] ?? format;
}
