// ConverseStream's failures: exception frames (a modelled exception, e.g. throttlingException), error frames
// (`:error-code` / `:error-message` headers) and payloads that are not JSON, as stream errors.
import type { ErrorType } from '../../core/errors.js';
import { ProviderStreamError } from '../../core/provider-stream-error.js';
import { exceptionPayload } from './schema.js';

const EXCEPTION_TYPES: Readonly<Record<string, ErrorType>> = {
  validationException: 'invalid_request_error',
  throttlingException: 'rate_limit_error',
  serviceUnavailableException: 'api_error',
  internalServerException: 'api_error',
  modelStreamErrorException: 'api_error',
};

export function notJson(provider: string): ProviderStreamError {
  return new ProviderStreamError(`Provider '${provider}' sent a stream event that is not JSON`, 'gateway_error', 'bad_provider_response');
}

/** An exception frame: its type keeps the exception's name; a payload without a message still ends the stream with this error. */
export function exceptionError(exceptionType: string, details: unknown): ProviderStreamError {
  const read = exceptionPayload.safeParse(details);
  const message = (read.success ? (read.data.message ?? read.data.Message) : undefined) ?? `Bedrock stream failed (${exceptionType})`;
  return new ProviderStreamError(message, EXCEPTION_TYPES[exceptionType] ?? 'api_error', exceptionType);
}

export function errorFrameError(headers: Readonly<Record<string, unknown>>): ProviderStreamError {
  const code = String(headers[':error-code'] ?? 'error');
  return new ProviderStreamError(String(headers[':error-message'] ?? `Bedrock stream failed (${code})`), 'api_error', code);
}
