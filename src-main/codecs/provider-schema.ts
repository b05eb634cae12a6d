// A provider's JSON read through its format's zod schema: the one place where an answer or a stream event
// that does not fit the format becomes the gateway's error (502 bad_provider_response), naming the field
// and never its value (a provider may echo a prompt or a key there).
import { z } from 'zod';
import { GatewayError } from '../core/errors.js';
import { isPlainObject } from '../core/plain-object.js';
import { ProviderStreamError } from '../core/provider-stream-error.js';
import { describeSchemaFailure } from './schema-failure.js';

/**
 * A JSON object taken as the provider sent it (tool call arguments): checked, not copied, so every key —
 * `__proto__` too, which zod's objects and records leave out — reaches the client unchanged.
 */
export const jsonObject = z.custom<Record<string, unknown>>(isPlainObject, 'Invalid input: expected object');

/**
 * A whole (held) answer: a 502 the relay passes to the client in its dialect's error shape. `at`: where
 * `json` sits in the answer, when a part of it is checked on its own (a Response's output item).
 */
export function parseProviderAnswer<S extends z.ZodType>(schema: S, json: unknown, at: readonly PropertyKey[] = []): z.output<S> {
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  throw new GatewayError(502, 'gateway_error', `The provider answered with a body that does not fit its format: ${describeSchemaFailure(result.error, at)}`, null, 'bad_provider_response');
}

/** One stream event (or, with `at`, a part of it): the stream ends with the dialect's error event (the relay adds the provider's name). */
export function parseProviderEvent<S extends z.ZodType>(schema: S, json: unknown, at: readonly PropertyKey[] = []): z.output<S> {
  const result = schema.safeParse(json);
  if (result.success) return result.data;
  throw new ProviderStreamError(`The provider sent a stream event that does not fit its format: ${describeSchemaFailure(result.error, at)}`, 'gateway_error', 'bad_provider_response');
}
