// The request real Codex CLI (0.171.0, `codex exec`) sends, replayed through a key whose server speaks Chat
// only: its Responses call, with Codex's own tools (functions, a namespace of sub-agent tools, web_search),
// is translated to a Chat request the strict double accepts and streamed back as Responses events, whether
// the key is chatOnly already or learns it from the server's 404.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';

const CODEX = JSON.parse(readFileSync(new URL('../fixtures/codex-0.171-responses-request.json', import.meta.url), 'utf8')) as { userAgent: string; body: Record<string, unknown> };

let gateway: TestGateway;
let chatOnlyServer: OpenAIFake;

beforeAll(async () => {
  [gateway, chatOnlyServer] = await Promise.all([startGateway(), startOpenAIFake()]);
});
afterAll(async () => {
  await gateway.close();
  await chatOnlyServer.close();
});

async function replay(chatOnly: boolean): Promise<{ status: number; events: string[]; text: string }> {
  const created = await gateway.admin('/virtual-keys', { method: 'POST', body: JSON.stringify({ name: `codex-${chatOnly}`, provider: 'openai', secret: 'sk-local-0123456789', customHost: chatOnlyServer.baseUrl, chatOnly }) });
  const { key } = (await created.json()) as { key: string };
  const response = await fetch(`${gateway.baseUrl}/v1/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream', authorization: `Bearer ${key}`, 'user-agent': CODEX.userAgent, originator: 'codex_exec' },
    body: JSON.stringify(CODEX.body),
  });
  const body = await response.text();
  const events: string[] = [];
  let text = '';
  for (const block of body.split('\n\n')) {
    const data = block.split('\n').find((line) => line.startsWith('data: '));
    if (!data) continue;
    const event = JSON.parse(data.slice(6)) as { type: string; delta?: string };
    events.push(event.type);
    if (event.type === 'response.output_text.delta') text += event.delta;
  }
  return { status: response.status, events, text };
}

describe("Codex's own request through a chat-only server", () => {
  it.each([true, false])('chatOnly %s: answered as a Responses stream, the server sent Chat with Codex\'s tools', async (chatOnly) => {
    chatOnlyServer.requests.length = 0;
    const { status, events, text } = await replay(chatOnly);
    expect(status).toBe(200);
    expect(events[0]).toBe('response.created');
    expect(events.at(-1)).toBe('response.completed');
    expect(text).toBe('Hello from the fake');
    expect(chatOnlyServer.requests.map((request) => request.url)).toEqual(chatOnly ? ['/v1/chat/completions'] : ['/v1/responses', '/v1/chat/completions']);
    const sent = chatOnlyServer.requests.at(-1)!.json as { stream: boolean; messages: { role: string }[]; tools: { type: string; function: { name: string } }[] };
    expect(sent.stream).toBe(true);
    // Codex's function tools reach the model (exec_command is how it runs anything).
    expect(sent.tools.map((tool) => tool.function.name)).toContain('exec_command');
    expect(sent.messages.map((message) => message.role)).toContain('user');
  });
});
