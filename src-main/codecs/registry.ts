// Every provider wire format's codec, by format: adding a format is one codec file and one line here.
// (A dialect's half of its codec is named by its ingress: gateway/ingress/registry.ts.)
import type { ProviderCodec, WireFormat } from './canonical.js';
import { anthropicMessagesProvider } from './anthropic-messages/index.js';
import { openaiChatProvider } from './openai-chat/index.js';
import { openaiResponsesProvider } from './openai-responses/index.js';
import { geminiProvider } from './gemini/index.js';
import { bedrockConverseProvider } from './bedrock-converse/index.js';
import { GatewayError } from '../core/errors.js';

const providerCodecs: Partial<Record<WireFormat, ProviderCodec>> = {
  'openai-chat': openaiChatProvider,
  'openai-responses': openaiResponsesProvider,
  'anthropic-messages': anthropicMessagesProvider,
  gemini: geminiProvider,
  'bedrock-converse': bedrockConverseProvider,
};

/** Every provider codec, once each (the suites that must cover every format walk this list). */
export const PROVIDER_CODECS: readonly ProviderCodec[] = Object.values(providerCodecs);

/** The codec that writes requests in `format` and reads its answers. */
export function providerCodec(format: WireFormat): ProviderCodec {
  const codec = providerCodecs[format];
  // Only the legacy completions format has no encoder: no provider needs a translation into it.
  if (!codec) throw new GatewayError(500, 'api_error', `No codec writes the '${format}' format`);
  return codec;
}
