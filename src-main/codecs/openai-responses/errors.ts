// The errors a Responses provider's answer or stream turns into: a failed Response, an `error` event, and
// a stream event that is not JSON. JSON that does not fit the Responses schemas is refused by
// provider-schema.ts, as for every format.
import { ProviderStreamError } from '../../core/provider-stream-error.js';
import type { ResponseObject } from './schema.js';

/** A Response whose status is `failed` (or that carries an error and did not complete). */
export const responseFailure = (response: ResponseObject): ProviderStreamError =>
  new ProviderStreamError(response.error?.message ?? 'The provider reported that the response failed', 'api_error', response.error?.code ?? null);

/** An `error` event's fields. */
export const streamErrorEvent = (error: { message?: string | null; type?: string | null; code?: string | null }): ProviderStreamError =>
  new ProviderStreamError(error.message ?? 'The provider reported an error in the stream', error.type ?? 'api_error', error.code ?? null);

/** A stream event that is not JSON. */
export const unreadableEvent = (): ProviderStreamError => new ProviderStreamError('The provider sent a stream event that is not JSON', 'api_error', 'invalid_stream');
