// The errors a Chat provider's answer or stream turns into: the provider's own `error` object (in a 200
// answer or mid-stream: OpenRouter, vLLM …), and a stream event that is not JSON. JSON that does not fit
// the Chat schemas is refused by provider-schema.ts, as for every format.
import { errorTypeForStatus } from '../../core/errors.js';
import { ProviderStreamError } from '../../core/provider-stream-error.js';
import type { ChatError } from './schema.js';

const CONTRACT_ERROR_TYPES = new Set(['invalid_request_error', 'authentication_error', 'permission_error', 'not_found_error', 'rate_limit_error', 'api_error']);

/** The provider's error in the contract's terms: its type when the contract has it, else one from its HTTP status code. */
export function providerError(value: ChatError): ProviderStreamError {
  const error = typeof value === 'string' ? { message: value } : value;
  const type = error.type ?? undefined;
  const status = typeof error.code === 'number' ? error.code : undefined;
  const contractType = type && CONTRACT_ERROR_TYPES.has(type) ? type : status !== undefined ? errorTypeForStatus(status) : 'api_error';
  const code = typeof error.code === 'string' ? error.code : status !== undefined ? String(status) : (type ?? null);
  return new ProviderStreamError(error.message ?? 'The provider reported an error in the stream', contractType, code);
}

/** A stream event that is not JSON. */
export const unreadableChunk = (what: string): ProviderStreamError => new ProviderStreamError(`The provider sent a stream event that is ${what}`, 'api_error', 'bad_provider_stream');
