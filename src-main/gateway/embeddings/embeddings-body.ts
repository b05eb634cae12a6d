// Reading an embeddings request's body: JSON as any generation's is read (request-body.ts), the key's
// default model standing in for none, then the front door's own check. A body of OFF_THREAD_MIN_BYTES or
// more is read and decoded by a preparing thread (prepare/), which hands back the decoded request.
import type { Caller } from '../../core/keys.js';
import { isPlainObject } from '../../core/plain-object.js';
import { defaultModelOf, parseJsonBody, type RawBody } from '../request-body.js';
import { OFF_THREAD_MIN_BYTES, prepareEmbeddings, type PrepareContext } from '../prepare/prepare-pool.js';
import type { EmbeddingsInbound, EmbeddingsIngress } from './embeddings-ingress.js';

export function readEmbeddings(body: RawBody, ingress: EmbeddingsIngress, caller: Caller, preparing?: PrepareContext): EmbeddingsInbound | Promise<EmbeddingsInbound> {
  if (body.bytes.length >= OFF_THREAD_MIN_BYTES) return prepareEmbeddings(body, ingress, defaultModelOf(caller), preparing);
  return parseEmbeddings(body, ingress, defaultModelOf(caller));
}

/** The body parsed and decoded, the default model given: what a preparing thread runs, which has no caller. */
export function parseEmbeddings(body: RawBody, ingress: EmbeddingsIngress, defaultModel: string | undefined): EmbeddingsInbound {
  let json = parseJsonBody(body.bytes, body.text);
  const rawModel = isPlainObject(json) ? json.model : undefined;
  if (defaultModel && isPlainObject(json) && (json.model === undefined || json.model === null || json.model === '')) {
    json = { ...json, model: defaultModel };
  }
  return ingress.inbound(ingress.decode(json), body.bytes, body.text, rawModel);
}
