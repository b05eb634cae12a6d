// Gemini's errors both ways: a Google error object a provider sends (in an answer or a stream event) as a
// stream error, and a gateway error as the body Google's APIs answer with, for Gemini clients.
import { errorTypeForStatus, type GatewayError } from '../../core/errors.js';
import { ProviderStreamError } from '../../core/provider-stream-error.js';
import type { z } from 'zod';
import type { googleError } from './schema.js';

type Json = Record<string, unknown>;

/** A Google error object (`{code, message, status}`) as a stream error. */
export function providerError(error: z.output<typeof googleError>): ProviderStreamError {
  return new ProviderStreamError(error.message ?? 'The provider reported an error in the stream', errorTypeForStatus(error.code ?? 500), error.status ?? null);
}

export function notJson(data: string): ProviderStreamError {
  return new ProviderStreamError(`The provider sent a stream event that is not JSON: ${data.slice(0, 200)}`, 'api_error', 'bad_provider_stream');
}

/** google.rpc.Code names by HTTP status, as Google's APIs answer them. */
const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'INVALID_ARGUMENT',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export function googleStatusName(status: number): string {
  return STATUS_NAMES[status] ?? (status >= 500 ? 'INTERNAL' : status >= 400 ? 'FAILED_PRECONDITION' : 'UNKNOWN');
}

/** `{"error":{"code","message","status"}}`, with the field named as Google does (a BadRequest field violation). */
export function geminiErrorBody(error: GatewayError): { error: Json } {
  const body: Json = { code: error.status, message: error.message, status: googleStatusName(error.status) };
  if (error.param) body.details = [{ '@type': 'type.googleapis.com/google.rpc.BadRequest', fieldViolations: [{ field: error.param, description: error.message }] }];
  return { error: body };
}
