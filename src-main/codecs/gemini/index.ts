// Google's generateContent format, both upstream (`google`, Gemini models on `vertex-ai`) and at the front
// door (`@google/genai`, Gemini CLI): a GenerateContentRequest ↔ canonical request, and a
// GenerateContentResponse or a stream of them (`alt=sse`, or one JSON array) ↔ canonical events. One file
// per direction; what Google sends is described once, in schema.ts.
import type { DialectCodec, ProviderCodec } from '../canonical.js';
import { decodeGeminiRequest } from './decode-request.js';
import { decodeResponse } from './decode-response.js';
import { createStreamDecoder } from './decode-stream.js';
import { encodeRequest } from './encode-request.js';
import { encodeResponse } from './encode-response.js';
import { createStreamEncoder, fanOutTail } from './encode-stream.js';
import { geminiErrorBody } from './errors.js';

export { geminiMaxOutputTokens, type GeminiCallRequest } from './decode-request.js';
export { SKIP_THOUGHT_SIGNATURE } from './encode-request.js';
export { geminiTokenCount } from './encode-response.js';
export { geminiErrorBody } from './errors.js';
export { usageOf } from './usage.js';

export const geminiProvider: ProviderCodec = {
  format: 'gemini',
  encodeRequest,
  decodeResponse,
  createStreamDecoder,
};

export const geminiDialect: DialectCodec = {
  dialect: 'gemini',
  decodeRequest: decodeGeminiRequest,
  encodeResponse,
  createStreamEncoder,
  fanOutTail,
  errorBody: geminiErrorBody,
};
