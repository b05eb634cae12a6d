// OpenAI Chat Completions, both ways round. As a dialect (OpenCode, pi, Cursor, the `openai` SDKs): a client's
// body → canonical, and canonical answers back as `chat.completion` / `chat.completion.chunk` for providers
// that speak something else. As a provider format (OpenAI-compatible servers, Ollama, Groq, Azure …): a
// canonical request → a Chat body, and the provider's answer or chunk stream → canonical events.
// One file a direction; the answer and chunk writers are shared with the legacy Completions dialect.
import type { DialectCodec, ProviderCodec } from '../canonical.js';
import { decodeChatRequest } from './decode-request.js';
import { decodeChatResponse } from './decode-response.js';
import { createChatStreamDecoder } from './decode-stream.js';
import { encodeChatRequest } from './encode-request.js';
import { encodeOpenAIAnswer } from './encode-response.js';
import { createOpenAIStreamEncoder, openaiFanOutTail } from './encode-stream.js';

export { REFUSAL_REASONS, SHARED_FIELDS, Unsupported, isDefaultValue, keepOtherFields, readSharedFields } from './client-fields.js';
export { decodeChatRequest } from './decode-request.js';
export { newToolCallId } from './decode-response.js';
export { encodeOpenAIAnswer } from './encode-response.js';
export { createOpenAIStreamEncoder, openaiFanOutTail } from './encode-stream.js';
export { readChatUsage } from './usage.js';

export const openaiChatDialect: DialectCodec = {
  dialect: 'openai-chat',
  decodeRequest: decodeChatRequest,
  encodeResponse: (answer) => encodeOpenAIAnswer('chat', answer),
  createStreamEncoder: (request, fanOut) => createOpenAIStreamEncoder('chat', request, fanOut),
  fanOutTail: (request, usage) => openaiFanOutTail('chat', request, usage),
  errorBody: (error) => error.toBody(),
};

export const openaiChatProvider: ProviderCodec = {
  format: 'openai-chat',
  encodeRequest: encodeChatRequest,
  decodeResponse: decodeChatResponse,
  createStreamDecoder: createChatStreamDecoder,
};
