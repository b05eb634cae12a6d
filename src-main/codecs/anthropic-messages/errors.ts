// Messages errors both ways: an `error` event a provider streams (as a stream error), and a gateway error as
// Anthropic's `{"type":"error","error":{"type","message"}}`, for Messages clients.
import type { GatewayError } from '../../core/errors.js';
import { ProviderStreamError } from '../../core/provider-stream-error.js';

const CONTRACT_ERROR_TYPES = new Set(['invalid_request_error', 'authentication_error', 'permission_error', 'not_found_error', 'rate_limit_error', 'api_error']);

/** Anthropic error types that are not the contract's (overloaded_error, request_too_large …) read as api_error; the code keeps them. */
function contractErrorType(anthropicType: string | undefined): string {
  return anthropicType && CONTRACT_ERROR_TYPES.has(anthropicType) ? anthropicType : 'api_error';
}

/** A stream's `error` event. */
export function providerError(error: { type?: string; message?: string }): ProviderStreamError {
  return new ProviderStreamError(error.message ?? 'The provider reported an error in the stream', contractErrorType(error.type), error.type ?? null);
}

export function notJson(data: string): ProviderStreamError {
  return new ProviderStreamError(`The provider sent a stream event that is not JSON: ${data.slice(0, 200)}`, 'api_error', 'bad_provider_stream');
}

const ANTHROPIC_ERROR_TYPES = new Set([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'api_error',
  'overloaded_error',
]);

/** Anthropic's error type for a gateway error: its own type when it is one of Anthropic's, else by status. */
export function anthropicErrorType(status: number, type?: string | null): string {
  if (type && ANTHROPIC_ERROR_TYPES.has(type) && type !== 'api_error') return type;
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 503 || status === 529) return 'overloaded_error';
  if (status >= 500) return 'api_error';
  if (status >= 400) return 'invalid_request_error';
  return 'api_error';
}

/** A provider's own Anthropic type (kept in `code`, e.g. overloaded_error) wins over the contract's. */
export function errorTypeOf(error: GatewayError): string {
  const code = typeof error.code === 'string' && ANTHROPIC_ERROR_TYPES.has(error.code) ? error.code : undefined;
  return anthropicErrorType(error.status, code ?? error.type);
}

export function messagesErrorBody(error: GatewayError): object {
  return { type: 'error', error: { type: errorTypeOf(error), message: error.message } };
}
