// The Anthropic double's own rules: bodies the real Messages API accepts pass, bodies it refuses fail
// with its message. A double that silently accepts is caught here, not by a translation test that passes.
import { describe, expect, it } from 'vitest';
import { anthropicOutputLimit, anthropicRequestProblem, isKnownAnthropicVersion, startAnthropicFake } from '../../fakes/anthropic.js';

const MODEL = 'claude-sonnet-4-5';
const user = (content: unknown) => ({ role: 'user', content });
const assistant = (content: unknown) => ({ role: 'assistant', content });
const body = (messages: unknown[], extra: Record<string, unknown> = {}) => ({ model: MODEL, max_tokens: 1024, messages, ...extra });

/** What Claude Code 2.1 sends: system blocks with cache_control, tools, thinking, system turns mid-conversation, a tool round trip. */
const CLAUDE_CODE = {
  model: MODEL,
  max_tokens: 32000,
  stream: true,
  system: [
    { type: 'text', text: "You are Claude Code, Anthropic's official CLI for Claude.", cache_control: { type: 'ephemeral' } },
    { type: 'text', text: 'Work in /repo.', cache_control: { type: 'ephemeral' } },
  ],
  tools: [{ name: 'Bash', description: 'Run a command', input_schema: { type: 'object', properties: { command: { type: 'string' } } } }],
  thinking: { type: 'adaptive', display: 'omitted' },
  metadata: { user_id: '{"session":"abc"}' },
  context_management: { edits: [] },
  output_config: { effort: 'medium' },
  messages: [
    user([{ type: 'text', text: '<system-reminder>context</system-reminder>' }, { type: 'text', text: 'List the files', cache_control: { type: 'ephemeral' } }]),
    assistant([
      { type: 'thinking', thinking: 'I should run ls.', signature: 'sig' },
      { type: 'text', text: 'Listing.' },
      { type: 'tool_use', id: 'toolu_01', name: 'Bash', input: { command: 'ls' } },
    ]),
    user([
      { type: 'tool_result', tool_use_id: 'toolu_01', content: 'a.txt\nb.txt' },
      { type: 'text', text: 'Thanks' },
    ]),
    { role: 'system', content: 'The user switched to plan mode.' },
    assistant([{ type: 'redacted_thinking', data: 'xyz' }, { type: 'text', text: 'Two files.' }]),
    user('And now?'),
  ],
};

const GOOD: [string, unknown, Parameters<typeof anthropicRequestProblem>[1]?][] = [
  ['one user string', body([user('Hi')])],
  ['a Claude Code body', CLAUDE_CODE],
  ['consecutive user turns (merged by the API)', body([user('Hi'), user('Again')])],
  ['an empty final assistant turn (prefill)', body([user('Hi'), assistant('')])],
  ['a final assistant prefill', body([user('Hi'), assistant('The answer is')])],
  ['tool results in a merged user turn', body([user('Hi'), assistant([{ type: 'tool_use', id: 't1', name: 'f', input: {} }, { type: 'tool_use', id: 't2', name: 'f', input: {} }]), user([{ type: 'tool_result', tool_use_id: 't1' }]), user([{ type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: 'ok' }] }])])],
  ['an assistant tool_use as the last turn', body([user('Hi'), assistant([{ type: 'tool_use', id: 't1', name: 'f', input: {} }])])],
  ['an image and a document', body([user([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }, { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'doc' } }, { type: 'text', text: 'What is this?' }])])],
  ['server tool blocks', body([user('Search'), assistant([{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } }, { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_1', content: [] }, { type: 'text', text: 'Found it' }]), user('Thanks')])],
  ['temperature 1', body([user('Hi')], { temperature: 1 })],
  ['max_tokens at the model limit', body([user('Hi')], { max_tokens: 64000 })],
  ['an unknown model with Claude Code’s 128000', { ...body([user('Hi')], { max_tokens: 128000 }), model: 'glm-4.6' }],
  ['Claude on Vertex (no model in the body)', { anthropic_version: 'vertex-2023-10-16', max_tokens: 10, messages: [user('Hi')] }, { modelInBody: false }],
  ['anthropic-version 2023-06-01', body([user('Hi')]), { anthropicVersion: '2023-06-01' }],
  ['anthropic-version 2023-01-01', body([user('Hi')]), { anthropicVersion: '2023-01-01' }],
  ["the SDK 1.x's anthropic-version 2026-10-21", body([user('Hi')]), { anthropicVersion: '2026-10-21' }],
];

const BAD: [string, unknown, RegExp, Parameters<typeof anthropicRequestProblem>[1]?][] = [
  ['no messages', { model: MODEL, max_tokens: 10 }, /^messages: Field required$/],
  ['empty messages', body([]), /^messages: at least one message is required$/],
  ['system turns only', body([{ role: 'system', content: 'Be terse' }]), /at least one message is required/],
  ['an assistant first', body([assistant('Hello'), user('Hi')]), /first message must use the "user" role/],
  ['a user content ""', body([user(''), assistant('Hi'), user('x')]), /^messages\.0: all messages must have non-empty content except for the optional final assistant message$/],
  ['a user content []', body([user([])]), /^messages\.0: all messages must have non-empty content/],
  ['an empty text block beside tool_use', body([user('Hi'), assistant([{ type: 'text', text: '' }, { type: 'tool_use', id: 't1', name: 'f', input: {} }]), user([{ type: 'tool_result', tool_use_id: 't1' }])]), /^messages: text content blocks must be non-empty$/],
  ['a whitespace-only text block', body([user([{ type: 'text', text: ' \n' }])]), /text content blocks must contain non-whitespace text/],
  ['a whitespace-only user string', body([user('  ')]), /text content blocks must contain non-whitespace text/],
  ['an empty system text block', body([user('Hi')], { system: [{ type: 'text', text: '' }] }), /^system: text content blocks must be non-empty$/],
  ['a final assistant ending in whitespace', body([user('Hi'), assistant('The answer is ')]), /final assistant content cannot end with trailing whitespace/],
  ['an unknown block type', body([user([{ type: 'input_text', text: 'Hi' }])]), /messages\.0\.content\.0: Input tag 'input_text' found using 'type' does not match/],
  ['a tool_result without a tool_use before it', body([user('Hi'), assistant('Sure'), user([{ type: 'tool_result', tool_use_id: 't9' }])]), /unexpected `tool_use_id` found in `tool_result` blocks: t9/],
  ['a tool_result after text in its turn', body([user('Hi'), assistant([{ type: 'tool_use', id: 't1', name: 'f', input: {} }]), user([{ type: 'text', text: 'Here' }, { type: 'tool_result', tool_use_id: 't1' }])]), /Did not find 1 `tool_result` block\(s\) at the beginning of this message/],
  ['a tool_use left without its result', body([user('Hi'), assistant([{ type: 'tool_use', id: 't1', name: 'f', input: {} }]), user('Never mind')]), /`tool_use` ids were found without `tool_result` blocks immediately after: t1/],
  ['no max_tokens', { model: MODEL, messages: [user('Hi')] }, /^max_tokens: Field required$/],
  ['max_tokens 0', body([user('Hi')], { max_tokens: 0 }), /greater than or equal to 1/],
  ['max_tokens 1.5', body([user('Hi')], { max_tokens: 1.5 }), /valid integer/],
  ['max_tokens above the model limit', body([user('Hi')], { max_tokens: 64001 }), /^max_tokens: 64001 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5$/],
  ['max_tokens above Claude 3.5 Haiku', { ...body([user('Hi')], { max_tokens: 10000 }), model: 'claude-3-5-haiku-20241022' }, /10000 > 8192/],
  ['temperature 1.5', body([user('Hi')], { temperature: 1.5 }), /^temperature: Input should be less than or equal to 1$/],
  ['no model', { max_tokens: 10, messages: [user('Hi')] }, /^model: Field required$/],
  ['a model in a Vertex body', body([user('Hi')]), /^model: Extra inputs are not permitted$/, { modelInBody: false }],
  ['anthropic-version made up', body([user('Hi')]), /anthropic-version/, { anthropicVersion: '2024-13-45' }],
  ['anthropic-version not a date', body([user('Hi')]), /anthropic-version/, { anthropicVersion: 'latest' }],
  ['an unknown role', body([{ role: 'tool', content: 'x' }]), /messages\.0\.role: Input should be 'user' or 'assistant'/],
];

describe('the Anthropic double accepts what the Messages API accepts', () => {
  it.each(GOOD)('%s', (_name, json, options) => {
    expect(anthropicRequestProblem(json, options)).toBeUndefined();
  });
});

describe('the Anthropic double refuses what the Messages API refuses, in its words', () => {
  it.each(BAD)('%s', (_name, json, message, options) => {
    expect(anthropicRequestProblem(json, options)).toMatch(message);
  });
});

describe('the Anthropic double tables', () => {
  it('knows the output limits of the model families', () => {
    expect(anthropicOutputLimit('claude-3-haiku-20240307')).toBe(4096);
    expect(anthropicOutputLimit('anthropic.claude-3-5-sonnet-20240620-v1:0')).toBe(8192);
    expect(anthropicOutputLimit('claude-opus-4-1-20250805')).toBe(32000);
    expect(anthropicOutputLimit('claude-opus-4-5')).toBe(64000);
    expect(anthropicOutputLimit('claude-sonnet-4-5@20250929')).toBe(64000);
    expect(anthropicOutputLimit('claude-test')).toBe(128000);
  });

  it('knows real anthropic-version values', () => {
    expect(['2023-06-01', '2023-01-01', '2026-10-21'].every(isKnownAnthropicVersion)).toBe(true);
    expect(['2023-06-02', '', '2026-02-30', 'vertex-2023-10-16'].some(isKnownAnthropicVersion)).toBe(false);
  });
});

describe('the Anthropic double server answers a refusal in the real shape', () => {
  it('400 {type:"error", error:{type:"invalid_request_error", message}, request_id}', async () => {
    const fake = await startAnthropicFake();
    try {
      const headers = { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': '2023-06-01' };
      const bad = await fetch(`${fake.baseUrl}/messages`, { method: 'POST', headers, body: JSON.stringify(body([user([{ type: 'text', text: '' }])])) });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({ type: 'error', error: { type: 'invalid_request_error', message: 'messages: text content blocks must be non-empty' }, request_id: expect.any(String) });
      const badVersion = await fetch(`${fake.baseUrl}/messages`, { method: 'POST', headers: { ...headers, 'anthropic-version': '2099-99-99' }, body: JSON.stringify(body([user('Hi')])) });
      expect(badVersion.status).toBe(400);
      const good = await fetch(`${fake.baseUrl}/messages`, { method: 'POST', headers, body: JSON.stringify(CLAUDE_CODE) });
      expect(good.status).toBe(200);
    } finally {
      await fake.close();
    }
  });
});
