// Amazon Bedrock's Converse API: a canonical request becomes a Converse / ConverseStream body (the model
// goes in the URL), and an answer or a ConverseStream of AWS event-stream frames becomes canonical events.
// One file per direction; what Bedrock sends is described once, in schema.ts.
import type { ProviderCodec } from '../canonical.js';
import { createStreamDecoder } from './decode-stream.js';
import { decodeResponse } from './decode-response.js';
import { encodeRequest } from './encode-request.js';

export { mapStopReason } from './stop-reason.js';
export { usageOf } from './usage.js';

export const bedrockConverseProvider: ProviderCodec = {
  format: 'bedrock-converse',
  encodeRequest,
  decodeResponse,
  createStreamDecoder,
};
