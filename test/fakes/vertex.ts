// A stand-in for Vertex AI in its real wire format: Gemini under
// `/v1/projects/{p}/locations/{r}/publishers/google/models/{m}:generateContent` (`:streamGenerateContent?alt=sse`)
// and Claude under `…/publishers/anthropic/models/{m}:rawPredict` (`:streamRawPredict`), both behind an
// OAuth bearer token; Google-shaped errors from the front end, Anthropic-shaped ones from Claude.
import { anthropicError, anthropicRequestProblem, answerMessages } from './anthropic.js';
import { answerGenerateContent, geminiRequestProblem, googleError } from './gemini.js';
import { startRecordingServer, type Behaviour, type RecordingServer } from './recording-server.js';

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
