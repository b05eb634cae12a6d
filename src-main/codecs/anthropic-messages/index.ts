// Anthropic's Messages format, both at the front door (Claude Code, the official @anthropic-ai/sdk) and
// upstream (Anthropic, Claude on Vertex and Bedrock): a Messages body ↔ canonical request, and a Messages
// answer or typed SSE stream (message_start … message_stop) ↔ canonical events. One file per direction;
// what Anthropic sends is described once, in schema.ts.
import type { DialectCodec, ProviderCodec } from '../canonical.js';
import { decodeMessagesRequest } from './decode-request.js';
import { decodeMessagesResponse } from './decode-response.js';
import { createMessagesStreamDecoder } from './decode-stream.js';
import { encodeMessagesRequest } from './encode-request.js';
import { encodeMessagesResponse } from './encode-response.js';
import { createMessagesStreamEncoder } from './encode-stream.js';
import { messagesErrorBody } from './errors.js';
import { DIALECT } from './format.js';

export { anthropicErrorType } from './errors.js';
export { createMessagesStreamEncoder } from './encode-stream.js';
export { canonicalUsage, readUsage, type MessagesUsage } from './usage.js';

export const anthropicMessagesDialect: DialectCodec = {
  dialect: DIALECT,
  decodeRequest: decodeMessagesRequest,
  encodeResponse: (answer) => encodeMessagesResponse(answer),
  createStreamEncoder: (request) => createMessagesStreamEncoder(request),
  errorBody: messagesErrorBody,
};

export const anthropicMessagesProvider: ProviderCodec = {
  format: DIALECT,
  encodeRequest: encodeMessagesRequest,
  decodeResponse: decodeMessagesResponse,
  createStreamDecoder: createMessagesStreamDecoder,
};
