// A local stand-in for an OpenAI-format provider (OpenAI, Groq, Ollama's /v1 ...), speaking OpenAI's
// wire format: JSON answers, `data:` SSE streams ending in `data: [DONE]`, `{error:{...}}` errors.
// Tests read what it received (URL, headers, exact body bytes) and can script what it answers.
import type { ServerResponse } from 'node:http';
import { startRecordingServer, type Behaviour, type RecordedRequest, type RecordingServer } from './recording-server.js';

export type { RecordedRequest };
/** A scripted answer for the next request. */
export type FakeBehaviour = Behaviour;

export interface OpenAIFake extends RecordingServer {
  /** Base URL including `/v1`, as a custom host. */
  baseUrl: string;
}

export const completionText = (prompt: unknown) => `echo: ${typeof prompt === 'string' ? prompt : JSON.stringify(prompt)}`;

export const FAKE_MODELS = {
  object: 'list',
  data: [
    { id: 'gpt-3.5-turbo-instruct', object: 'model', created: 1692901427, owned_by: 'system' },
    { id: 'gpt-4o-mini', object: 'model', created: 1721172741, owned_by: 'system' },
  ],
};

export function defaultAnswer(request: RecordedRequest, res: ServerResponse): void {
  if (request.method === 'GET' && request.url.endsWith('/models')) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(FAKE_MODELS));
    return;
  }
  const body = request.json;
  const isChat = request.url.endsWith('/chat/completions');
  const text = isChat ? 'Hello from the fake' : completionText(body.prompt);
  const usage = { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8 };
  if (body.stream === true) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'x-request-id': 'req_fake' });
    const words = text.split(' ');
    const includeUsage = (body.stream_options as { include_usage?: boolean } | undefined)?.include_usage === true;
    words.forEach((word, i) => {
      const piece = (i ? ' ' : '') + word;
      const choice = isChat
        ? { index: 0, delta: i === 0 ? { role: 'assistant', content: piece } : { content: piece }, finish_reason: null }
        : { index: 0, text: piece, logprobs: null, finish_reason: null };
      const chunk = { id: 'cmpl-fake', object: isChat ? 'chat.completion.chunk' : 'text_completion', created: 1700000000, model: body.model, choices: [choice], ...(includeUsage ? { usage: null } : {}) };
      res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    });
    const last = isChat ? { index: 0, delta: {}, finish_reason: 'stop' } : { index: 0, text: '', logprobs: null, finish_reason: 'stop' };
    res.write(`data: ${JSON.stringify({ id: 'cmpl-fake', object: isChat ? 'chat.completion.chunk' : 'text_completion', created: 1700000000, model: body.model, choices: [last] })}\n\n`);
    if (includeUsage) {
      res.write(`data: ${JSON.stringify({ id: 'cmpl-fake', object: isChat ? 'chat.completion.chunk' : 'text_completion', created: 1700000000, model: body.model, choices: [], usage })}\n\n`);
    }
    res.end('data: [DONE]\n\n');
    return;
  }
  const answer = isChat
    ? { id: 'chatcmpl-fake', object: 'chat.completion', created: 1700000000, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: text }, logprobs: null, finish_reason: 'stop' }], usage }
    : { id: 'cmpl-fake', object: 'text_completion', created: 1700000000, model: body.model, choices: [{ index: 0, text, logprobs: null, finish_reason: 'stop' }], usage };
  const json = JSON.stringify(answer);
  res.writeHead(200, { 'content-type': 'application/json', 'x-request-id': 'req_fake' });
  res.end(json);
}

export function openAIError(status: number, message: string, type = 'invalid_request_error', code: string | null = null): FakeBehaviour {
  return (_request, res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message, type, param: null, code } }));
  };
}

export async function startOpenAIFake(): Promise<OpenAIFake> {
  const server = await startRecordingServer(defaultAnswer);
  return { ...server, baseUrl: `${server.origin}/v1` };
}
