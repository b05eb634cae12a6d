// A local stand-in for Azure OpenAI, in its wire format: deployment routes with a required
// `api-version`, `api-key` or Entra bearer auth, answers that carry content-filter results, and streams
// that open with an empty-`choices` prompt-filter chunk and slip in annotation-only choice entries.
// Tests read what it received and can script what it answers.
import type { ServerResponse } from 'node:http';
import { openaiChatProblem, openaiCompletionProblem } from './openai.js';
import { startRecordingServer, type RecordedRequest, type RecordingServer } from './recording-server.js';

export interface AzureRecordedRequest extends RecordedRequest {
  path: string;
  deployment: string | null;
  apiVersion: string | null;
}

export type AzureBehaviour = (request: AzureRecordedRequest, res: ServerResponse) => void | Promise<void>;

export interface AzureFake extends RecordingServer<AzureRecordedRequest> {
  /** What a custom host stands in for: `https://{resource}.openai.azure.com/openai`. */
  baseUrl: string;
}

/** The model Azure reports: the deployment's model, whatever the body's `model` said. */
export const AZURE_MODEL = 'gpt-35-turbo-instruct-0914';

const safeFilter = {
  hate: { filtered: false, severity: 'safe' },
  self_harm: { filtered: false, severity: 'safe' },
  sexual: { filtered: false, severity: 'safe' },
  violence: { filtered: false, severity: 'safe' },
};

const promptFilterResults = [{ prompt_index: 0, content_filter_results: safeFilter }];

export const azureCompletionText = (prompt: unknown) => `azure says: ${typeof prompt === 'string' ? prompt : JSON.stringify(prompt)}`;
export const AZURE_CHAT_TEXT = 'Hello from Azure';
const usage = { prompt_tokens: 6, completion_tokens: 4, total_tokens: 10 };

function sse(res: ServerResponse, payload: object | string): void {
  res.write(`data: ${typeof payload === 'string' ? payload : JSON.stringify(payload)}\n\n`);
}

export function defaultAzureAnswer(request: AzureRecordedRequest, res: ServerResponse): void {
  const body = request.json;
  const isChat = request.path.endsWith('/chat/completions');
  // The body rules are OpenAI's, except that the deployment in the path names the model.
  let parsed: unknown;
  try {
    parsed = JSON.parse(request.body.toString('utf8'));
  } catch {
    parsed = undefined;
  }
  const invalid = isChat ? openaiChatProblem(parsed, { modelInPath: true }) : openaiCompletionProblem(parsed, { modelInPath: true });
  if (invalid) return void azureError(400, { message: invalid.message, type: 'invalid_request_error', param: invalid.param, code: invalid.code })(request, res);
  const text = isChat ? AZURE_CHAT_TEXT : azureCompletionText(body.prompt);
  const object = isChat ? 'chat.completion.chunk' : 'text_completion';
  const id = isChat ? 'chatcmpl-azure' : 'cmpl-azure';
  if (body.stream === true) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'apim-request-id': 'azure-req-1', 'x-request-id': 'azure-req-1' });
    // Azure's first event: prompt filter results and no choices at all.
    sse(res, { id: '', object: '', created: 0, model: '', choices: [], prompt_filter_results: promptFilterResults });
    const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    text.split(' ').forEach((word, i) => {
      const piece = (i ? ' ' : '') + word;
      const choice = isChat
        ? { index: 0, finish_reason: null, delta: i === 0 ? { role: 'assistant', content: piece } : { content: piece }, content_filter_results: safeFilter }
        : { index: 0, text: piece, logprobs: null, finish_reason: null, content_filter_results: safeFilter };
      sse(res, { id, object, created: 1700000000, model: AZURE_MODEL, choices: [choice], ...(includeUsage ? { usage: null } : {}) });
    });
    // Asynchronous filtering: an entry with filter results and offsets but no text or delta.
    sse(res, { id: '', object: '', created: 0, model: '', choices: [{ index: 0, finish_reason: null, content_filter_results: safeFilter, content_filter_offsets: { check_offset: 0, start_offset: 0, end_offset: 20 } }] });
    const last = isChat ? { index: 0, finish_reason: 'stop', delta: {} } : { index: 0, text: '', logprobs: null, finish_reason: 'stop' };
    sse(res, { id, object, created: 1700000000, model: AZURE_MODEL, choices: [last] });
    if (includeUsage) sse(res, { id, object, created: 1700000000, model: AZURE_MODEL, choices: [], usage });
    sse(res, '[DONE]');
    res.end();
    return;
  }
  const answer = isChat
    ? {
        id,
        object: 'chat.completion',
        created: 1700000000,
        model: AZURE_MODEL,
        prompt_filter_results: promptFilterResults,
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: text }, logprobs: null, content_filter_results: safeFilter }],
        usage,
      }
    : {
        id,
        object: 'text_completion',
        created: 1700000000,
        model: AZURE_MODEL,
        prompt_filter_results: promptFilterResults,
        choices: [{ index: 0, text, logprobs: null, finish_reason: 'stop', content_filter_results: safeFilter }],
        usage,
      };
  res.writeHead(200, { 'content-type': 'application/json', 'apim-request-id': 'azure-req-1' });
  res.end(JSON.stringify(answer));
}

/** Azure's error envelope: OpenAI-like, `code` first, sometimes an `innererror`. */
export function azureError(status: number, error: Record<string, unknown>, headers: Record<string, string> = {}): AzureBehaviour {
  return (_request, res) => {
    res.writeHead(status, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ error }));
  };
}

/** The 400 Azure answers when the prompt trips its content filter. */
export const contentFilterError = azureError(400, {
  message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.",
  type: null,
  param: 'prompt',
  code: 'content_filter',
  status: 400,
  innererror: {
    code: 'ResponsibleAIPolicyViolation',
    content_filter_result: { ...safeFilter, violence: { filtered: true, severity: 'medium' } },
  },
});

/** A stream that fails after it started: Azure sends an `error` object as a data event. */
export const streamThatFails: AzureBehaviour = (_request, res) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  sse(res, { id: 'cmpl-azure', object: 'text_completion', created: 1700000000, model: AZURE_MODEL, choices: [{ index: 0, text: 'partial', logprobs: null, finish_reason: null }] });
  sse(res, { error: { code: 'server_error', message: 'The server had an error while processing your request.' } });
  res.end();
};

const DEPLOYMENT_ROUTE = /^\/openai\/deployments\/([^/]+)\/(completions|chat\/completions)$/;

const INVALID_KEY_MESSAGE =
  'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.';

export async function startAzureFake(): Promise<AzureFake> {
  const server = await startRecordingServer<AzureRecordedRequest>(defaultAzureAnswer, {
    describe: (request) => {
      const url = new URL(request.url || '/', 'http://fake');
      const route = DEPLOYMENT_ROUTE.exec(url.pathname);
      return { ...request, path: url.pathname, deployment: route ? decodeURIComponent(route[1]) : null, apiVersion: url.searchParams.get('api-version') };
    },
    // What the real service checks before anything else: route, api-version, credentials.
    gate: (request, res) => {
      if (!request.deployment || !request.apiVersion) {
        azureError(404, { code: '404', message: 'Resource not found' })(request, res);
        return true;
      }
      if (!request.headers['api-key'] && !/^Bearer eyJ/.test(String(request.headers.authorization ?? ''))) {
        azureError(401, { code: '401', message: INVALID_KEY_MESSAGE })(request, res);
        return true;
      }
      return false;
    },
  });
  return { ...server, baseUrl: `${server.origin}/openai` };
}
