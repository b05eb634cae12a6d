// What the gateway says on a Responses WebSocket in its own name: an error as OpenAI's WebSocket mode sends
// one (`type: "error"`, the HTTP status, and the `error` object a POST would have answered with), and the
// two events that answer a warm-up (`generate: false`) without calling a provider.
import { GatewayError } from '../../core/errors.js';

/** The error event of a turn refused before its stream began, or of a message the socket cannot take. */
export function errorEvent(status: number, error: { type?: unknown; code?: unknown; message?: unknown; param?: unknown }): string {
  return JSON.stringify({ type: 'error', status, error: { type: error.type ?? 'invalid_request_error', code: error.code ?? null, message: error.message ?? '', param: error.param ?? null } });
}

export function gatewayErrorEvent(error: GatewayError): string {
  return errorEvent(error.status, error.toBody().error);
}

/** Another `response.create` arrived while one runs: a socket serves one turn at a time. */
export const TURN_IN_FLIGHT = (): string =>
  gatewayErrorEvent(new GatewayError(409, 'invalid_request_error', 'A response is already being generated on this socket: send the next response.create after its response.completed (or open another socket)', 'type', 'response_already_in_flight'));

/**
 * The answer to a warm-up: a response with no output, whose id a later turn may name as
 * `previous_response_id` (its input then leads that turn's input), as OpenAI answers `generate: false`.
 */
export function warmupEvents(id: string, body: Record<string, unknown>): string[] {
  const response = {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status: 'completed',
    model: body.model ?? null,
    output: [],
    previous_response_id: body.previous_response_id ?? null,
    store: body.store ?? false,
    usage: { input_tokens: 0, input_tokens_details: { cached_tokens: 0 }, output_tokens: 0, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 0 },
  };
  return [
    JSON.stringify({ type: 'response.created', sequence_number: 0, response: { ...response, status: 'in_progress', usage: null } }),
    JSON.stringify({ type: 'response.completed', sequence_number: 1, response }),
  ];
}
