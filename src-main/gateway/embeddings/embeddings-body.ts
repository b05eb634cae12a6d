// Reading an embeddings request's body: JSON as any generation's is read (request-body.ts), the key's
// default model standing in for none, then the front door's own check.
import type { Caller } from '../../core/keys.js';
import { isPlainObject } from '../../core/plain-object.js';
import { parseJsonBody, type RawBody } from '../request-body.js';
import type { EmbeddingsInbound, EmbeddingsIngress } from './embeddings-ingress.js';

export function readEmbeddings(body: RawBody, ingress: EmbeddingsIngress, caller: Caller): EmbeddingsInbound {
  let json = parseJsonBody(body.bytes, body.text);
  const rawModel = isPlainObject(json) ? json.model : undefined;
  if (caller.kind === 'virtual-key' && caller.defaultModel && isPlainObject(json) && (json.model === undefined || json.model === null || json.model === '')) {
    json = { ...json, model: caller.defaultModel };
  }
  return ingress.read(json, body.bytes, body.text, rawModel);
}
