// The errors a Responses provider's answer or stream turns into: a failed Response, an `error` event, and
// JSON the gateway cannot read as Responses.
import type { z } from 'zod';
import { ProviderStreamError } from '../../core/provider-stream-error.js';
import { describeSchemaFailure } from '../schema-failure.js';
import type { ResponseObject } from './schema.js';

/** A Response whose status is `failed` (or that carries an error and did not complete). */
export const responseFailure = (response: ResponseObject): ProviderStreamError =>
  new ProviderStreamError(response.error?.message ?? 'The provider reported that the response failed', 'api_error', response.error?.code ?? null);

/** An `error` event's fields. */
export const streamErrorEvent = (error: { message?: string | null; type?: string | null; code?: string | null }): ProviderStreamError =>
  new ProviderStreamError(error.message ?? 'The provider reported an error in the stream', error.type ?? 'api_error', error.code ?? null);

/** A whole answer that is JSON but not a Response. */
export const unreadableAnswer = (failure: z.ZodError, at: readonly PropertyKey[] = []): ProviderStreamError =>
  new ProviderStreamError(`The provider answered with JSON that is not a Response: ${describeSchemaFailure(failure, at)}`, 'gateway_error', 'bad_provider_response');

/** A stream event that is not JSON, or not the event its type names: the same error either way. */
export const unreadableEvent = (why?: string): ProviderStreamError =>
  new ProviderStreamError(`The provider sent a stream event that is not ${why ?? 'JSON'}`, 'api_error', 'invalid_stream');
