// The embeddings codecs on their own: OpenAI's request checks, base64 as OpenAI writes it, the Gemini
// dialect's embedContent / batchEmbedContents both ways (what the Gemini front door calls), and what each
// provider format refuses or reads (Titan's lengths, Cohere's header count, Vertex's statistics).
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src-main/core/errors.js';
import { vectorFromBase64, vectorToBase64, type EmbeddingRequest } from '../../../src-main/codecs/embeddings/canonical.js';
import { decodeOpenAIEmbeddingsRequest, encodeOpenAIEmbeddingsAnswer } from '../../../src-main/codecs/embeddings/openai.js';
import { decodeGeminiEmbeddingsRequest, encodeGeminiEmbeddingsAnswer, geminiEmbeddingsCodec } from '../../../src-main/codecs/embeddings/gemini.js';
import { titanEmbeddingsCodec } from '../../../src-main/codecs/embeddings/bedrock-titan.js';
import { cohereEmbeddingsCodec } from '../../../src-main/codecs/embeddings/bedrock-cohere.js';
import { vertexEmbeddingsCodec } from '../../../src-main/codecs/embeddings/vertex.js';

const request = (overrides: Partial<EmbeddingRequest> = {}): EmbeddingRequest => ({
  model: 'm',
  inputs: [
    { kind: 'text', text: 'alpha' },
    { kind: 'text', text: 'beta' },
  ],
  encoding: 'float',
  source: 'input',
  ...overrides,
});

function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a GatewayError');
}

describe('OpenAI format', () => {
  it('takes the four shapes of input', () => {
    expect(decodeOpenAIEmbeddingsRequest({ model: 'm', input: 'a' }).inputs).toEqual([{ kind: 'text', text: 'a' }]);
    expect(decodeOpenAIEmbeddingsRequest({ model: 'm', input: ['a', 'b'] }).inputs).toHaveLength(2);
    expect(decodeOpenAIEmbeddingsRequest({ model: 'm', input: [1, 2] }).inputs).toEqual([{ kind: 'tokens', tokens: [1, 2] }]);
    expect(decodeOpenAIEmbeddingsRequest({ model: 'm', input: [[1], [2, 3]] }).inputs).toEqual([
      { kind: 'tokens', tokens: [1] },
      { kind: 'tokens', tokens: [2, 3] },
    ]);
  });

  it('names the item that is wrong', () => {
    expect(refusal(() => decodeOpenAIEmbeddingsRequest({ model: 'm', input: ['a', ''] })).message).toContain("'input[1]'");
    expect(refusal(() => decodeOpenAIEmbeddingsRequest({ model: 'm', input: [[1], [2, 1.5]] })).message).toContain("'input[1][1]'");
  });

  it('writes base64 as little-endian float32, which reads back to the same numbers', () => {
    const vector = [0.5, -1, 0.25, 3];
    const answer = encodeOpenAIEmbeddingsAnswer({ model: 'm', vectors: [vector], inputTokens: 2 }, 'base64', 2) as { data: { embedding: string }[] };
    expect(Buffer.from(answer.data[0].embedding, 'base64')).toEqual(Buffer.from(new Float32Array(vector).buffer));
    expect(vectorFromBase64(vectorToBase64(vector))).toEqual(vector);
  });
});

describe('Gemini dialect (for the Gemini front door)', () => {
  it('decodes embedContent and batchEmbedContents into one canonical request', () => {
    const one = decodeGeminiEmbeddingsRequest({ content: { parts: [{ text: 'a' }, { text: 'b' }] }, taskType: 'RETRIEVAL_QUERY', outputDimensionality: 8 }, 'gemini-embedding-001', 'embedContent');
    expect(one).toMatchObject({ model: 'gemini-embedding-001', inputs: [{ kind: 'text', text: 'a\nb' }], purpose: 'query', dimensions: 8 });
    const batch = decodeGeminiEmbeddingsRequest({ requests: [{ model: 'models/x', content: { parts: [{ text: 'a' }] } }, { content: { parts: [{ text: 'b' }] } }] }, 'x', 'batchEmbedContents');
    expect(batch.inputs).toEqual([
      { kind: 'text', text: 'a' },
      { kind: 'text', text: 'b' },
    ]);
  });

  it('refuses a request without text, naming where', () => {
    expect(refusal(() => decodeGeminiEmbeddingsRequest({ requests: [{ content: { parts: [] } }] }, 'x', 'batchEmbedContents')).param).toBe('requests[0].content');
    expect(refusal(() => decodeGeminiEmbeddingsRequest({ requests: [] }, 'x', 'batchEmbedContents')).param).toBe('requests');
  });

  it('answers in the method shape', () => {
    const answer = { model: 'x', vectors: [[1], [2]], inputTokens: null };
    expect(encodeGeminiEmbeddingsAnswer(answer, 'embedContent')).toEqual({ embedding: { values: [1] } });
    expect(encodeGeminiEmbeddingsAnswer(answer, 'batchEmbedContents')).toEqual({ embeddings: [{ values: [1] }, { values: [2] }] });
  });

  it('sends the purpose as taskType, and reads no token count', () => {
    const [body] = geminiEmbeddingsCodec.encodeCalls(request({ purpose: 'document' }), 'gemini-embedding-001', 'google');
    expect(JSON.parse(body).requests[0]).toEqual({ model: 'models/gemini-embedding-001', content: { parts: [{ text: 'alpha' }] }, taskType: 'RETRIEVAL_DOCUMENT' });
    expect(geminiEmbeddingsCodec.decodeAnswer({ embeddings: [{ values: [1, 2] }] }, {}, 'google')).toEqual({ vectors: [[1, 2]], inputTokens: null });
  });
});

describe('provider formats', () => {
  it('Titan: one body per input; v1 takes no dimensions at all', () => {
    expect(titanEmbeddingsCodec.encodeCalls(request({ dimensions: 256 }), 'amazon.titan-embed-text-v2:0', 'bedrock').map((body) => JSON.parse(body))).toEqual([
      { inputText: 'alpha', dimensions: 256 },
      { inputText: 'beta', dimensions: 256 },
    ]);
    expect(refusal(() => titanEmbeddingsCodec.encodeCalls(request({ dimensions: 256 }), 'amazon.titan-embed-text-v1', 'bedrock')).param).toBe('dimensions');
  });

  it('Cohere: input_type as the purpose says (search_document by default); the count from the header', () => {
    expect(JSON.parse(cohereEmbeddingsCodec.encodeCalls(request({ purpose: 'query' }), 'cohere.embed-english-v3', 'bedrock')[0]).input_type).toBe('search_query');
    expect(cohereEmbeddingsCodec.decodeAnswer({ embeddings: { float: [[1]] } }, { 'x-amzn-bedrock-input-token-count': '7' }, 'bedrock')).toEqual({ vectors: [[1]], inputTokens: 7 });
    expect(cohereEmbeddingsCodec.decodeAnswer({ embeddings: [[1]] }, {}, 'bedrock').inputTokens).toBeNull();
  });

  it('Vertex: sums the per-input token counts; a broken answer is a 502, never a crash', () => {
    const decoded = vertexEmbeddingsCodec.decodeAnswer({ predictions: [{ embeddings: { values: [1], statistics: { token_count: 3 } } }, { embeddings: { values: [2], statistics: { token_count: 4 } } }] }, {}, 'vertex-ai');
    expect(decoded).toEqual({ vectors: [[1], [2]], inputTokens: 7 });
    expect(refusal(() => vertexEmbeddingsCodec.decodeAnswer({ predictions: [{ embeddings: { values: ['x'] } }] }, {}, 'vertex-ai')).status).toBe(502);
  });

  it('token arrays go only to OpenAI-format providers', () => {
    const tokens = request({ inputs: [{ kind: 'tokens', tokens: [1, 2] }] });
    expect(refusal(() => vertexEmbeddingsCodec.encodeCalls(tokens, 'text-embedding-005', 'vertex-ai'))).toMatchObject({ status: 400, param: 'input' });
  });
});
