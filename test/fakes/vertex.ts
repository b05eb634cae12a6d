// A stand-in for Vertex AI in its real wire format: Gemini under
// `/v1/projects/{p}/locations/{r}/publishers/google/models/{m}:generateContent` (`:streamGenerateContent?alt=sse`)
// and Claude under `…/publishers/anthropic/models/{m}:rawPredict` (`:streamRawPredict`), both behind an
// OAuth bearer token; Google-shaped errors from the front end, Anthropic-shaped ones from Claude.
import { anthropicError, anthropicRequestProblem, answerMessages } from './anthropic.js';
import { answerGenerateContent, geminiRequestProblem, googleError } from './gemini.js';
import { sendJson, startRecordingServer, type Behaviour, type RecordedRequest, type RecordingServer } from './recording-server.js';
import type { ServerResponse } from 'node:http';
import { fakeTokenCount, fakeVector } from './embeddings.js';

/** The vector length the double makes when no outputDimensionality is asked for (text-embedding-005 makes 768). */
export const VERTEX_EMBEDDING_DIMENSIONS = 10;
const INSTANCE_FIELDS = ['content', 'task_type', 'title'];
const PARAMETER_FIELDS = ['outputDimensionality', 'autoTruncate'];

/** `:predict` for a text embedding model: `{instances:[{content}], parameters}` → predictions with token statistics. */
function answerPredict(request: RecordedRequest, res: ServerResponse, model: string): void | Promise<void> {
  const json = request.json;
  const unknown = Object.keys(json).find((key) => key !== 'instances' && key !== 'parameters');
  if (unknown) return googleError(400, `Invalid JSON payload received. Unknown name "${unknown}": Cannot find field.`)(request, res);
  const instances = json.instances;
  if (!Array.isArray(instances) || instances.length === 0) return googleError(400, 'instances must be a non-empty list')(request, res);
  // gemini-embedding models take one instance a request; the text-embedding ones up to 250.
  const cap = /^gemini-embedding/.test(model) ? 1 : 250;
  if (instances.length > cap) return googleError(400, `Unable to submit request because the number of instances ${instances.length} exceeds the limit of ${cap} for ${model}.`)(request, res);
  for (const [i, instance] of instances.entries()) {
    const fields = typeof instance === 'object' && instance !== null ? Object.keys(instance) : [];
    const extra = fields.find((key) => !INSTANCE_FIELDS.includes(key));
    if (extra) return googleError(400, `Invalid JSON payload received. Unknown name "${extra}" at 'instances[${i}]': Cannot find field.`)(request, res);
    if (typeof (instance as { content?: unknown }).content !== 'string') return googleError(400, `instances[${i}].content must be a string`)(request, res);
  }
  const parameters = (json.parameters ?? {}) as Record<string, unknown>;
  const extra = Object.keys(parameters).find((key) => !PARAMETER_FIELDS.includes(key));
  if (extra) return googleError(400, `Invalid JSON payload received. Unknown name "${extra}" at 'parameters': Cannot find field.`)(request, res);
  const dimensions = (parameters.outputDimensionality as number | undefined) ?? VERTEX_EMBEDDING_DIMENSIONS;
  sendJson(res, 200, {
    predictions: (instances as { content: string }[]).map(({ content }) => ({
      embeddings: { values: fakeVector(content, dimensions), statistics: { token_count: fakeTokenCount(content), truncated: false } },
    })),
    metadata: { billableCharacterCount: (instances as { content: string }[]).reduce((sum, { content }) => sum + content.length, 0) },
  });
}

export interface VertexFake extends RecordingServer {
  /** `http://127.0.0.1:PORT`, as a custom host (Vertex's own path starts with /v1/projects). */
  baseUrl: string;
}

const MODEL_URL = /^\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/(google|anthropic)\/models\/([^/:]+):(\w+)(\?alt=sse)?$/;

const defaultAnswer: Behaviour = async (request, res) => {
  const match = MODEL_URL.exec(request.url);
  if (!match) return googleError(404, `The requested URL ${request.url} was not found on this server.`)(request, res);
  if (!/^Bearer \S+$/.test(request.headers.authorization ?? '')) {
    return googleError(401, 'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.', 'UNAUTHENTICATED')(request, res);
  }
  const [, , , publisher, rawModel, method, altSse] = match;
  const model = decodeURIComponent(rawModel);
  if (publisher === 'google') {
    if (method === 'predict') return answerPredict(request, res, model);
    if (method !== 'generateContent' && method !== 'streamGenerateContent') return googleError(400, `Unknown method ${method}`)(request, res);
    const invalid = geminiRequestProblem(request.json);
    if (invalid) return googleError(400, invalid)(request, res);
    return answerGenerateContent(request, res, model, method === 'streamGenerateContent' && altSse !== undefined);
  }
  if (method !== 'rawPredict' && method !== 'streamRawPredict') return googleError(400, `Unknown method ${method}`)(request, res);
  if (request.json.anthropic_version !== 'vertex-2023-10-16') return anthropicError(400, 'invalid_request_error', 'anthropic_version: Input should be \'vertex-2023-10-16\'')(request, res);
  const invalid = anthropicRequestProblem(request.json, { modelInBody: false });
  if (invalid) return anthropicError(400, 'invalid_request_error', invalid)(request, res);
  return answerMessages(request, res, model);
};

export async function startVertexFake(): Promise<VertexFake> {
  const server = await startRecordingServer(defaultAnswer);
  return { ...server, baseUrl: server.origin };
}
