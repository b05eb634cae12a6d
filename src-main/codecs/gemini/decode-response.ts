// A whole GenerateContentResponse → canonical answer.
import { foldEvents, type CanonicalAnswer, type CanonicalRequest } from '../canonical.js';
import { parseProviderAnswer } from '../provider-schema.js';
import { ResponseReader } from './read-response.js';
import { generateContentResponse } from './schema.js';

export function decodeResponse(json: unknown, request: CanonicalRequest): CanonicalAnswer {
  return foldEvents(new ResponseReader().read(parseProviderAnswer(generateContentResponse, json)), { id: `gen-${Date.now()}`, model: request.model });
}
