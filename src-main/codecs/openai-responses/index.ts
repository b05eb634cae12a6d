// OpenAI's Responses API (`POST /v1/responses`), both ways round:
// - as a dialect (Codex CLI, the `openai` SDK's `responses.create`): a Responses body → canonical, and the
//   canonical answer → a Response object or the full `response.created` … `response.completed` stream;
// - as a provider format (OpenAI, Azure OpenAI): canonical → a stateless (`store: false`) Responses body,
//   and a Response object or its stream → canonical events.
// One file a direction; namespace tools are flattened and named back in tool-names.ts.
import type { GatewayError } from '../../core/errors.js';
import type { CanonicalRequest, DialectCodec, ProviderCodec, StreamEncoder } from '../canonical.js';
import { decodeResponsesRequest } from './decode-request.js';
import { decodeResponsesResponse } from './decode-response.js';
import { createResponsesStreamDecoder } from './decode-stream.js';
import { encodeResponsesRequest } from './encode-request.js';
import { encodeResponsesAnswer } from './encode-response.js';
import { ResponsesWriter } from './encode-stream.js';

export { decodeResponsesRequest } from './decode-request.js';
export { refusesStatefulFields } from './stateful-fields.js';
export { NAMESPACE_SEPARATOR, flatToolName } from './tool-names.js';
export { readResponsesUsage } from './usage.js';

/** Responses at the front door (Codex, `openai.responses.create`) for providers that are not Responses-native. */
export const openaiResponsesDialect: DialectCodec = {
  dialect: 'openai-responses',
  decodeRequest: decodeResponsesRequest,
  encodeResponse: encodeResponsesAnswer,
  createStreamEncoder(request: CanonicalRequest): StreamEncoder {
    // Responses has no `n`: a Responses request is never fanned out.
    return new ResponsesWriter(request);
  },
  errorBody(error: GatewayError): object {
    return error.toBody(); // OpenAI's {"error":{message,type,param,code}}, as on the gateway's other OpenAI paths
  },
};

/** OpenAI's (and Azure OpenAI's) Responses API as the provider a Chat or Messages request is translated to. */
export const openaiResponsesProvider: ProviderCodec = {
  format: 'openai-responses',
  encodeRequest: encodeResponsesRequest,
  decodeResponse: decodeResponsesResponse,
  createStreamDecoder: createResponsesStreamDecoder,
};
