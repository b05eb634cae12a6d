// Every wire format's codec, by format: adding a format is one codec file and one line here.
import type { Dialect, DialectCodec, ProviderCodec, WireFormat } from './canonical.js';
import { anthropicMessagesDialect, anthropicMessagesProvider } from './anthropic-messages.js';
import { openaiChatDialect, openaiChatProvider } from './openai-chat.js';
import { openaiCompletionsDialect } from './openai-completions.js';
import { openaiResponsesDialect, openaiResponsesProvider } from './openai-responses.js';
import { geminiProvider } from './gemini.js';
import { bedrockConverseProvider } from './bedrock-converse.js';
import { GatewayError } from '../core/errors.js';

const providerCodecs: Partial<Record<WireFormat, ProviderCodec>> = {
  'openai-chat': openaiChatProvider,
  'openai-responses': openaiResponsesProvider,
  'anthropic-messages': anthropicMessagesProvider,
  gemini: geminiProvider,
  'bedrock-converse': bedrockConverseProvider,
};

const dialectCodecs: Record<Dialect, DialectCodec> = {
  'openai-chat': openaiChatDialect,
  'openai-completions': openaiCompletionsDialect,
  'openai-responses': openaiResponsesDialect,
  'anthropic-messages': anthropicMessagesDialect,
};

/** The codec that writes requests in `format` and reads its answers. */
export function providerCodec(format: WireFormat): ProviderCodec {
  const codec = providerCodecs[format];
  // Only the legacy completions format has no encoder: no provider needs a translation into it.
  if (!codec) throw new GatewayError(500, 'api_error', `No codec writes the '${format}' format`);
  return codec;
}

export function dialectCodec(dialect: Dialect): DialectCodec {
  return dialectCodecs[dialect];
}
