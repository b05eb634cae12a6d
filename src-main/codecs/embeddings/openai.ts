// OpenAI's embeddings format (`POST /v1/embeddings`), both ways: the dialect clients speak at the front
// door (request checked and decoded, answer encoded as float or base64) and the format OpenAI, Azure and
// every OpenAI-compatible server take (request encoded for a client of another dialect, answer decoded).
import { invalidRequest } from '../../core/errors.js';
import { isPlainObject } from '../../core/plain-object.js';
import {
  MAX_EMBEDDING_INPUTS,
  badEmbeddingAnswer,
  readVector,
  vectorFromBase64,
  vectorToBase64,
  type DecodedEmbeddings,
  type EmbeddingAnswer,
  type EmbeddingInput,
  type EmbeddingProviderCodec,
  type EmbeddingRequest,
} from './canonical.js';

export { MAX_EMBEDDING_INPUTS };

const isTokenId = (value: unknown): value is number => typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;

/** `input` in any of its four shapes → the inputs, or a 400 naming the field (and the item) that is wrong. */
function readInputs(input: unknown): EmbeddingInput[] {
  if (input === undefined || input === null) throw invalidRequest("'input' is required: a string, an array of strings, an array of token ids or an array of token-id arrays", 'input');
  if (typeof input === 'string') {
    if (input === '') throw invalidRequest("'input' must not be an empty string", 'input');
    return [{ kind: 'text', text: input }];
  }
  if (!Array.isArray(input)) throw invalidRequest("'input' must be a string, an array of strings, an array of token ids or an array of token-id arrays", 'input');
  if (input.length === 0) throw invalidRequest("'input' must not be an empty array", 'input');
  // An array of numbers is one tokenized input; an array of strings or of arrays is one input per item.
  if (typeof input[0] === 'number') {
    const bad = input.findIndex((item) => !isTokenId(item));
    if (bad !== -1) throw invalidRequest(`'input[${bad}]' must be a token id (a non-negative integer), as every item of a token array`, 'input');
    return [{ kind: 'tokens', tokens: input as number[] }];
  }
  if (input.length > MAX_EMBEDDING_INPUTS) throw invalidRequest(`'input' has ${input.length} items; at most ${MAX_EMBEDDING_INPUTS} may be embedded in one request`, 'input');
  const asText = typeof input[0] === 'string';
  return input.map((item, index): EmbeddingInput => {
    if (asText) {
      if (typeof item !== 'string') throw invalidRequest(`'input[${index}]' must be a string, as every item of an array of strings`, 'input');
      if (item === '') throw invalidRequest(`'input[${index}]' must not be an empty string`, 'input');
      return { kind: 'text', text: item };
    }
    if (!Array.isArray(item)) throw invalidRequest(`'input[${index}]' must be an array of token ids, as every item of an array of token arrays`, 'input');
    if (item.length === 0) throw invalidRequest(`'input[${index}]' must not be an empty token array`, 'input');
    const bad = item.findIndex((token) => !isTokenId(token));
    if (bad !== -1) throw invalidRequest(`'input[${index}][${bad}]' must be a token id (a non-negative integer)`, 'input');
    return { kind: 'tokens', tokens: item as number[] };
  });
}

/** The body of `POST /v1/embeddings`, checked: a 400 naming the field for anything OpenAI would refuse. */
export function decodeOpenAIEmbeddingsRequest(json: unknown): EmbeddingRequest {
  if (!isPlainObject(json)) throw invalidRequest('The request body must be a JSON object');
  const { model, input, encoding_format: encoding, dimensions, user } = json;
  if (typeof model !== 'string' || model.trim() === '') throw invalidRequest("'model' is required: a non-empty string", 'model');
  const inputs = readInputs(input);
  if (encoding !== undefined && encoding !== null && encoding !== 'float' && encoding !== 'base64') {
    throw invalidRequest("'encoding_format' must be 'float' or 'base64'", 'encoding_format');
  }
  if (dimensions !== undefined && dimensions !== null && !(typeof dimensions === 'number' && Number.isSafeInteger(dimensions) && dimensions > 0)) {
    throw invalidRequest("'dimensions' must be a positive integer", 'dimensions');
  }
  if (user !== undefined && user !== null && typeof user !== 'string') throw invalidRequest("'user' must be a string", 'user');
  return {
    model,
    inputs,
    encoding: encoding === 'base64' ? 'base64' : 'float',
    ...(typeof dimensions === 'number' ? { dimensions } : {}),
    ...(typeof user === 'string' ? { user } : {}),
    source: 'input',
  };
}

/** The answer as OpenAI writes it, vectors as numbers or base64 as the request asked. */
export function encodeOpenAIEmbeddingsAnswer(answer: EmbeddingAnswer, encoding: EmbeddingRequest['encoding'], inputTokens: number): object {
  return {
    object: 'list',
    data: answer.vectors.map((vector, index) => ({ object: 'embedding', index, embedding: encoding === 'base64' ? vectorToBase64(vector) : vector })),
    model: answer.model,
    usage: { prompt_tokens: inputTokens, total_tokens: inputTokens },
  };
}

/** A client of another dialect's request, as OpenAI's format takes it (floats: the gateway encodes base64 itself). */
function encodeCalls(request: EmbeddingRequest, model: string): string[] {
  return [
    JSON.stringify({
      model,
      input: request.inputs.map((item) => (item.kind === 'text' ? item.text : item.tokens)),
      encoding_format: 'float',
      ...(request.dimensions !== undefined ? { dimensions: request.dimensions } : {}),
      ...(request.user !== undefined ? { user: request.user } : {}),
    }),
  ];
}

/** `{data:[{index, embedding}], usage:{prompt_tokens}}`, vectors as numbers or base64, back in input order. */
export function decodeOpenAIEmbeddingsAnswer(json: unknown, provider: string): DecodedEmbeddings {
  if (!isPlainObject(json) || !Array.isArray(json.data)) throw badEmbeddingAnswer(provider, "no 'data' array");
  const items = json.data.map((item, position) => {
    if (!isPlainObject(item)) throw badEmbeddingAnswer(provider, "a 'data' item that is not an object");
    const index = typeof item.index === 'number' ? item.index : position;
    const vector = typeof item.embedding === 'string' ? vectorFromBase64(item.embedding) : readVector(item.embedding, provider);
    return { index, vector };
  });
  items.sort((a, b) => a.index - b.index);
  const usage = isPlainObject(json.usage) ? json.usage : undefined;
  const tokens = usage && typeof usage.prompt_tokens === 'number' ? usage.prompt_tokens : null;
  return { vectors: items.map((item) => item.vector), inputTokens: tokens };
}

export const openaiEmbeddingsCodec: EmbeddingProviderCodec = {
  format: 'openai-embeddings',
  encodeCalls: (request, model) => encodeCalls(request, model),
  decodeAnswer: (json, _headers, provider) => decodeOpenAIEmbeddingsAnswer(json, provider),
};
