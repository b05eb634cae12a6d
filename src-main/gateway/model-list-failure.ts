// Why a host did not list its models, in the words a person setting up a key needs: nothing listens
// there, the credential was refused, it took too long, it has no list at that path, or what answered is
// not an OpenAI-style server. One reading for the admin API's Test connection and the CLI's check.
import { toGatewayError } from '../core/http-io.js';

export type ModelListFailureReason = 'refused' | 'unreachable' | 'unauthorized' | 'timeout' | 'not-found' | 'not-a-model-list' | 'provider-error';

export interface ModelListFailure {
  reason: ModelListFailureReason;
  /** The HTTP status the gateway would have answered with (the provider's own for its refusals). */
  status: number;
  /** One clause after "<host> …": what happened and what to check. Built from redacted messages only. */
  explanation: string;
}

/** The code readModelList gives an answer that parsed as JSON but is not a model list. */
export const NOT_A_MODEL_LIST = 'not_a_model_list';

export function modelListFailure(error: unknown): ModelListFailure {
  const failure = toGatewayError(error);
  const { status, code, message } = failure;
  if (code === 'timeout' || status === 504) {
    return { reason: 'timeout', status, explanation: 'did not answer in time: is the server busy, or is this the right address?' };
  }
  if (code === 'provider_unreachable') {
    if (/ECONNREFUSED/.test(message)) return { reason: 'refused', status, explanation: 'refused the connection: nothing listens on that port. Is the server running?' };
    return { reason: 'unreachable', status, explanation: `could not be reached (${message.replace(/^Could not reach provider '[^']*': /, '')})` };
  }
  if (status === 401 || status === 403) return { reason: 'unauthorized', status, explanation: `refused the key's credential (${status}): ${message}. Check the API key.` };
  if (status === 404) return { reason: 'not-found', status, explanation: 'has no model list at this address (404): OpenAI-style servers answer under /v1, e.g. http://127.0.0.1:8000/v1.' };
  if (code === NOT_A_MODEL_LIST || code === 'bad_provider_response') {
    return { reason: 'not-a-model-list', status, explanation: 'answered, but not as an OpenAI-style server: its answer to /models is not a model list.' };
  }
  return { reason: 'provider-error', status, explanation: `answered ${status}: ${message}` };
}
