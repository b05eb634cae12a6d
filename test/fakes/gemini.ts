// A stand-in for Google's Gemini API (AI Studio) in its real wire format:
// `POST /v1beta/models/{m}:generateContent` and `:streamGenerateContent?alt=sse` with `x-goog-api-key`,
// GenerateContentResponse JSON, SSE streams of response fragments (no [DONE]) and `{error:{code,message,status}}`.
// The same answers serve Gemini on Vertex (test/fakes/vertex.ts).
import type { ServerResponse } from 'node:http';
import { sendJson, startRecordingServer, writeSseEvents, type Behaviour, type RecordedRequest, type RecordingServer } from './recording-server.js';
import { fakeVector } from './embeddings.js';

export interface GeminiFake extends RecordingServer {
  /** `http://127.0.0.1:PORT`, as a custom host (the API's own path starts with /v1beta). */
  baseUrl: string;
}

const STATUS_NAMES: Record<number, string> = { 400: 'INVALID_ARGUMENT', 403: 'PERMISSION_DENIED', 404: 'NOT_FOUND', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE' };

export function googleError(status: number, message: string, statusName = STATUS_NAMES[status] ?? 'UNKNOWN'): Behaviour {
  return (_request, res) => sendJson(res, status, { error: { code: status, message, status: statusName } });
}

export const FAKE_USAGE_METADATA = { promptTokenCount: 9, candidatesTokenCount: 5, thoughtsTokenCount: 2, cachedContentTokenCount: 4, totalTokenCount: 16 };

interface Content {
  role?: string;
  parts?: { text?: string }[];
}

export const geminiReply = (json: Record<string, unknown>): string => {
  const contents = Array.isArray(json.contents) ? (json.contents as Content[]) : [];
  const lastUser = [...contents].reverse().find((content) => content.role === 'user');
  return `Gemini heard: ${(lastUser?.parts ?? []).map((part) => part.text ?? '').join('')}`;
};

const PART_DATA_KEYS = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult'];
const EMPTY_TEXT = 'Unable to submit request because it has an empty text parameter. Add a value to the parameter and try again. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/gemini';

function partsProblem(parts: unknown, where: string): string | undefined {
  if (!Array.isArray(parts) || parts.length === 0) return `* GenerateContentRequest.${where}.parts: contents.parts must not be empty.\n`;
  for (const [j, part] of parts.entries()) {
    const set = typeof part === 'object' && part !== null ? PART_DATA_KEYS.filter((key) => key in part) : [];
    if (set.length !== 1) return `* GenerateContentRequest.${where}.parts[${j}].data: required oneof field 'data' must have one initialized field\n`;
    const text = (part as { text?: unknown }).text;
    if (set[0] === 'text' && (typeof text !== 'string' || text === '')) return EMPTY_TEXT;
  }
  return undefined;
}

/**
 * The checks the Gemini API (AI Studio and Vertex) makes of a generateContent body, in its own words
 * (a 400 INVALID_ARGUMENT). Returns the message, or undefined when the real API would accept the body.
 */
export function geminiRequestProblem(json: unknown): string | undefined {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) return 'Invalid JSON payload received. Expected an object.';
  const body = json as Record<string, unknown>;
  const contents = body.contents;
  if (!Array.isArray(contents) || contents.length === 0) return '* GenerateContentRequest.contents: contents is not specified\n';
  for (const [i, content] of (contents as Content[]).entries()) {
    // `role` may be left out (it means `user`); anything but user/model is refused, `function` and `system` included.
    if (content.role !== undefined && content.role !== 'user' && content.role !== 'model') return 'Please use a valid role: user, model.';
    const problem = partsProblem(content.parts, `contents[${i}]`);
    if (problem) return problem;
  }
  if (body.systemInstruction !== undefined) {
    const problem = partsProblem((body.systemInstruction as Content | null)?.parts, 'system_instruction');
    if (problem) return problem;
  }
  const config = (body.generationConfig ?? {}) as Record<string, unknown>;
  if (typeof config.temperature === 'number' && (config.temperature < 0 || config.temperature > 2)) return 'Unable to submit request because it has a temperature value out of range';
  return undefined;
}

/** The older name of `geminiRequestProblem`. */
export const invalidGenerateContentBody = (json: Record<string, unknown>): string | undefined => geminiRequestProblem(json);

/** Log probabilities as Gemini gives them with `responseLogprobs`: one step per token (here: per word). */
function logprobsResult(tokens: string[], alternatives: number): object {
  return {
    chosenCandidates: tokens.map((token, i) => ({ token, tokenId: i, logProbability: -0.5 * (i + 1) })),
    topCandidates: tokens.map((token, i) => ({
      candidates: [{ token, tokenId: i, logProbability: -0.5 * (i + 1) }, { token: '?', tokenId: 999, logProbability: -9 }].slice(0, alternatives),
    })),
  };
}

interface Part {
  text?: string;
  functionResponse?: { name: string; response: unknown };
}

/** With function declarations, the fake calls the first function, unless the last turn brings function responses. */
function functionToCall(json: Record<string, unknown>): string | undefined {
  const tools = Array.isArray(json.tools) ? (json.tools as { functionDeclarations?: { name: string }[] }[]) : [];
  const name = tools[0]?.functionDeclarations?.[0]?.name;
  const last = (json.contents as { parts: Part[] }[]).at(-1)!;
  return name && !last.parts.some((part) => part.functionResponse) ? name : undefined;
}

function functionResponsesReply(json: Record<string, unknown>): string | undefined {
  const last = (json.contents as { parts: Part[] }[]).at(-1)!;
  const responses = last.parts.filter((part) => part.functionResponse).map((part) => `${part.functionResponse!.name}=${JSON.stringify(part.functionResponse!.response)}`);
  return responses.length ? `Tools said: ${responses.join(', ')}` : undefined;
}

/** A generateContent answer: JSON, or with `stream` an SSE series of fragments ending in finishReason + usage. */
export async function answerGenerateContent(request: RecordedRequest, res: ServerResponse, model: string, stream: boolean): Promise<void> {
  const functionName = functionToCall(request.json);
  if (functionName) {
    const response = {
      candidates: [{ content: { role: 'model', parts: [{ functionCall: { name: functionName, args: { city: 'Paris' } } }] }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 3, totalTokenCount: 15 },
      modelVersion: model,
      responseId: 'gemini-fn-01',
    };
    if (stream) await writeSseEvents(res, [{ data: response }]);
    else sendJson(res, 200, response);
    return;
  }
  const text = functionResponsesReply(request.json) ?? geminiReply(request.json);
  const responseId = 'gemini-response-01';
  const config = (request.json.generationConfig ?? {}) as { responseLogprobs?: boolean; logprobs?: number };
  const tokensOf = (piece: string) => piece.split(/(?= )/);
  const withLogprobs = (tokens: string[]) => (config.responseLogprobs ? { logprobsResult: logprobsResult(tokens, config.logprobs ?? 0) } : {});
  if (stream) {
    const words = text.split(' ');
    await writeSseEvents(
      res,
      words.map((word, i) => {
        const last = i === words.length - 1;
        return {
          data: {
            candidates: [{ content: { role: 'model', parts: [{ text: (i ? ' ' : '') + word }] }, index: 0, ...(last ? { finishReason: 'STOP' } : {}), ...withLogprobs([(i ? ' ' : '') + word]) }],
            usageMetadata: last ? FAKE_USAGE_METADATA : { promptTokenCount: 9, candidatesTokenCount: i + 1, totalTokenCount: 10 + i },
            modelVersion: model,
            responseId,
          },
        };
      }),
    );
    return;
  }
  sendJson(res, 200, {
    candidates: [
      {
        content: { role: 'model', parts: [{ text: 'thinking about it…', thought: true }, { text }] },
        finishReason: 'STOP',
        index: 0,
        ...withLogprobs(tokensOf(text)),
        safetyRatings: [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'NEGLIGIBLE' }],
      },
    ],
    usageMetadata: FAKE_USAGE_METADATA,
    modelVersion: model,
    responseId,
  });
}

// ---- Embeddings (`:embedContent`, `:batchEmbedContents`) -------------------------------------------------

/** The vector length the double makes when no outputDimensionality is asked for (gemini-embedding-001 makes 3072). */
export const GEMINI_EMBEDDING_DIMENSIONS = 12;
const EMBED_FIELDS = ['model', 'content', 'taskType', 'title', 'outputDimensionality'];
const TASK_TYPES = ['TASK_TYPE_UNSPECIFIED', 'RETRIEVAL_QUERY', 'RETRIEVAL_DOCUMENT', 'SEMANTIC_SIMILARITY', 'CLASSIFICATION', 'CLUSTERING', 'QUESTION_ANSWERING', 'FACT_VERIFICATION', 'CODE_RETRIEVAL_QUERY'];

/** One EmbedContentRequest's problem in Gemini's words, or undefined. `where` is its place (`requests[0]`). */
function embedContentProblem(item: unknown, where: string, model: string, inBatch: boolean): string | undefined {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return `Invalid JSON payload received. Expected an object at '${where}'.`;
  const body = item as Record<string, unknown>;
  const unknown = Object.keys(body).find((key) => !EMBED_FIELDS.includes(key));
  if (unknown) return `Invalid JSON payload received. Unknown name "${unknown}" at '${where}': Cannot find field.`;
  // In a batch every request names its model, and it must be the one in the URL.
  if (inBatch && body.model !== `models/${model}`) return `Model names in the batch requests must be the same as the model in the URL: models/${model}, got ${String(body.model)}.`;
  const content = body.content as { parts?: unknown } | undefined;
  if (!content || !Array.isArray(content.parts) || content.parts.length === 0) return `* BatchEmbedContentsRequest.${where}.content.parts: contents.parts must not be empty.\n`;
  for (const [j, part] of content.parts.entries()) {
    if (typeof (part as { text?: unknown })?.text !== 'string' || (part as { text: string }).text === '') return `* ${where}.content.parts[${j}]: text must be a non-empty string`;
  }
  if (body.taskType !== undefined && !TASK_TYPES.includes(body.taskType as string)) return `Invalid value at '${where}.task_type' (type.googleapis.com/google.ai.generativelanguage.v1beta.TaskType), "${String(body.taskType)}"`;
  if (body.outputDimensionality !== undefined && !(Number.isInteger(body.outputDimensionality) && (body.outputDimensionality as number) > 0)) return `* ${where}.output_dimensionality: must be a positive integer`;
  return undefined;
}

const textOf = (item: Record<string, unknown>): string => ((item.content as { parts: { text: string }[] }).parts.map((part) => part.text).join('\n'));
const valuesFor = (item: Record<string, unknown>): number[] => fakeVector(textOf(item), (item.outputDimensionality as number | undefined) ?? GEMINI_EMBEDDING_DIMENSIONS);

/** `:embedContent` → `{embedding:{values}}`; `:batchEmbedContents` → `{embeddings:[{values}]}`. Neither reports tokens. */
export function answerEmbedContent(request: RecordedRequest, res: ServerResponse, model: string, method: 'embedContent' | 'batchEmbedContents'): void | Promise<void> {
  const json = request.json;
  if (method === 'embedContent') {
    const problem = embedContentProblem(json, 'request', model, false);
    if (problem) return googleError(400, problem)(request, res);
    return sendJson(res, 200, { embedding: { values: valuesFor(json) } });
  }
  const unknown = Object.keys(json).find((key) => key !== 'requests');
  if (unknown) return googleError(400, `Invalid JSON payload received. Unknown name "${unknown}": Cannot find field.`)(request, res);
  const requests = json.requests;
  if (!Array.isArray(requests) || requests.length === 0) return googleError(400, '* BatchEmbedContentsRequest.requests: requests must not be empty\n')(request, res);
  if (requests.length > 100) return googleError(400, '* BatchEmbedContentsRequest.requests: at most 100 requests can be in one batch\n')(request, res);
  for (const [i, item] of requests.entries()) {
    const problem = embedContentProblem(item, `requests[${i}]`, model, true);
    if (problem) return googleError(400, problem)(request, res);
  }
  sendJson(res, 200, { embeddings: (requests as Record<string, unknown>[]).map((item) => ({ values: valuesFor(item) })) });
}


const MODEL_URL = /^\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent|countTokens|embedContent|batchEmbedContents)(\?alt=sse)?$/;

/** The models `GET /v1beta/models` lists (the real list is longer, and pages). */
export const FAKE_GEMINI_MODELS = ['gemini-2.5-flash', 'gemini-2.5-pro', 'text-embedding-004'];

function modelList(res: ServerResponse): void {
  sendJson(res, 200, {
    models: FAKE_GEMINI_MODELS.map((id) => ({
      name: `models/${id}`,
      displayName: id,
      inputTokenLimit: 1048576,
      supportedGenerationMethods: id.startsWith('text-embedding') ? ['embedContent'] : ['generateContent', 'countTokens'],
    })),
  });
}

/** `:countTokens`: `{contents}` or `{generateContentRequest}`, answered `{totalTokens}` (here: a word count). */
async function countTokens(request: RecordedRequest, res: ServerResponse): Promise<void> {
  const inner = (request.json.generateContentRequest ?? request.json) as Record<string, unknown>;
  if (!Array.isArray(inner.contents)) return googleError(400, '* CountTokensRequest.contents: contents is not specified\n')(request, res);
  const words = JSON.stringify(inner.contents).match(/"text":"([^"]*)"/g)?.join(' ').split(/\s+/).length ?? 0;
  sendJson(res, 200, { totalTokens: words, promptTokensDetails: [{ modality: 'TEXT', tokenCount: words }] });
}

/** `streamGenerateContent` without `alt=sse`: one JSON array, its elements written one network write at a time. */
async function answerAsJsonArray(request: RecordedRequest, res: ServerResponse, model: string): Promise<void> {
  const fragments: unknown[] = [];
  const collector = { writeHead: () => collector, write: (text: string) => (fragments.push(...[...text.matchAll(/^data: (.*)$/gm)].map((m) => JSON.parse(m[1]) as unknown)), true), end: () => undefined } as unknown as ServerResponse;
  await answerGenerateContent(request, collector, model, true);
  res.writeHead(200, { 'content-type': 'application/json; charset=UTF-8' });
  for (const [i, fragment] of fragments.entries()) {
    res.write(`${i ? ',\r\n' : '['}${JSON.stringify(fragment, null, 2)}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
  res.end(fragments.length ? ']' : '[]');
}

const defaultAnswer: Behaviour = async (request, res) => {
  const listing = request.method === 'GET' && request.url.split('?')[0] === '/v1beta/models';
  const match = MODEL_URL.exec(request.url);
  if (!listing && (!match || request.method !== 'POST')) return googleError(404, `Requested entity was not found: ${request.url}`)(request, res);
  if (!request.headers['x-goog-api-key']) return googleError(403, "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.")(request, res);
  if (!match) return modelList(res);
  if (match[2] === 'embedContent' || match[2] === 'batchEmbedContents') return answerEmbedContent(request, res, decodeURIComponent(match[1]), match[2]);
  if (match[2] === 'countTokens') return countTokens(request, res);
  const invalid = geminiRequestProblem(request.json);
  if (invalid) return googleError(400, invalid)(request, res);
  if (match[2] === 'streamGenerateContent' && !match[3]) return answerAsJsonArray(request, res, decodeURIComponent(match[1]));
  await answerGenerateContent(request, res, decodeURIComponent(match[1]), match[2] === 'streamGenerateContent');
};

/** A prompt Gemini blocks: no candidates, only promptFeedback. */
export const blockedPrompt: Behaviour = (_request, res) =>
  sendJson(res, 200, { promptFeedback: { blockReason: 'SAFETY', safetyRatings: [] }, usageMetadata: { promptTokenCount: 7, totalTokenCount: 7 }, modelVersion: 'gemini-2.0-flash', responseId: 'blocked-01' });

/** A stream that stops on the token limit. */
export const streamCutByMaxTokens: Behaviour = (_request, res) =>
  writeSseEvents(res, [
    { data: { candidates: [{ content: { role: 'model', parts: [{ text: 'Once upon' }] }, index: 0 }], responseId: 'r2', modelVersion: 'gemini-2.0-flash' } },
    { data: { candidates: [{ content: { role: 'model', parts: [{ text: ' a time' }] }, index: 0, finishReason: 'MAX_TOKENS' }], usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 4, totalTokenCount: 7 }, responseId: 'r2', modelVersion: 'gemini-2.0-flash' } },
  ]);

/** A stream that breaks off with an error object, as Gemini sends when the backend fails mid-answer. */
export const streamThenError: Behaviour = (_request, res) =>
  writeSseEvents(res, [
    { data: { candidates: [{ content: { role: 'model', parts: [{ text: 'Partial' }] }, index: 0 }], responseId: 'r3', modelVersion: 'gemini-2.0-flash' } },
    { data: { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } } },
  ]);

export async function startGeminiFake(): Promise<GeminiFake> {
  const server = await startRecordingServer(defaultAnswer);
  return { ...server, baseUrl: server.origin };
}
