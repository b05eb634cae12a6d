// The MCP servers page's rules without a browser: server names as the gateway accepts them, argument
// lines split as a shell would, the presets' placeholders refused until replaced, secret rows sent in
// secretEnv / secretHeaders (never with the plain values); "Try a tool"'s JSON checks and result text.
import { describe, expect, it } from 'vitest';
import { draftToServer, EMPTY_DRAFT, joinArguments, SERVER_PRESETS, serverNameProblem, splitArguments } from '../../../src-renderer/mcp/server-form';
import { argumentsTemplate, parseToolArguments, resultText } from '../../../src-renderer/mcp/tool-call';
import type { McpTool } from '../../../src-renderer/api/types';

const preset = (id: string) => SERVER_PRESETS.find((item) => item.id === id)!.draft;

describe('server names', () => {
  it('are lower-case letters, digits and "-", at most 32', () => {
    expect(serverNameProblem('github')).toBeNull();
    expect(serverNameProblem('a'.repeat(32))).toBeNull();
    expect(serverNameProblem('a'.repeat(33))).toMatch(/32/);
    expect(serverNameProblem('GitHub')).toMatch(/lower-case/);
    expect(serverNameProblem('my_server')).toMatch(/lower-case/);
    expect(serverNameProblem('')).toMatch(/name/);
  });
});

describe('argument lines', () => {
  it('split on spaces, with quotes keeping spaces inside one argument', () => {
    expect(splitArguments('-y @modelcontextprotocol/server-filesystem "/home/me/My Projects" \'a b\' ""')).toEqual(['-y', '@modelcontextprotocol/server-filesystem', '/home/me/My Projects', 'a b', '']);
    expect(splitArguments('   ')).toEqual([]);
    expect(() => splitArguments('"open')).toThrow(/not closed/);
  });

  it('join back to a line that splits to the same arguments', () => {
    const args = ['-y', 'pkg', '/a folder/x', ''];
    expect(splitArguments(joinArguments(args))).toEqual(args);
  });
});

describe('the add form', () => {
  it('refuses the filesystem preset until <dir> is replaced', () => {
    expect(draftToServer(preset('filesystem'))).toEqual({ problem: { field: 'args', message: 'Replace <dir> with a real value' } });
    const filled = draftToServer({ ...preset('filesystem'), args: '-y @modelcontextprotocol/server-filesystem /srv/notes' });
    expect(filled).toEqual({ server: { name: 'filesystem', transport: 'stdio', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/notes'], env: {}, secretEnv: {}, timeoutMs: 60_000 } });
  });

  it('sends a secret variable in secretEnv only, and wants its value', () => {
    expect(draftToServer(preset('github'))).toEqual({ problem: { field: 'env', message: 'Fill in the secret value of GITHUB_PERSONAL_ACCESS_TOKEN' } });
    const github = preset('github');
    const result = draftToServer({ ...github, env: [{ ...github.env[0], value: 'ghp_x' }, { name: 'LOG_LEVEL', value: 'info', secret: false }] });
    expect(result).toMatchObject({ server: { env: { LOG_LEVEL: 'info' }, secretEnv: { GITHUB_PERSONAL_ACCESS_TOKEN: 'ghp_x' } } });
  });

  it('sends secret headers of a URL server in secretHeaders, and checks the URL and header names', () => {
    const draft = { ...EMPTY_DRAFT, name: 'docs', transport: 'sse' as const, url: 'https://docs.example.com/sse', headers: [{ name: 'Authorization', value: 'Bearer t', secret: true }, { name: 'X-Team', value: 'a', secret: false }] };
    expect(draftToServer(draft)).toEqual({ server: { name: 'docs', transport: 'sse', url: 'https://docs.example.com/sse', headers: { 'X-Team': 'a' }, secretHeaders: { Authorization: 'Bearer t' }, timeoutMs: 60_000 } });
    expect(draftToServer({ ...draft, url: 'ftp://x' })).toMatchObject({ problem: { field: 'url' } });
    expect(draftToServer({ ...draft, headers: [{ name: 'Bad Header', value: 'x', secret: false }] })).toMatchObject({ problem: { field: 'headers' } });
    expect(draftToServer({ ...draft, headers: [{ name: 'a', value: '1', secret: false }, { name: 'A', value: '2', secret: false }] })).toMatchObject({ problem: { field: 'headers', message: 'A is there twice' } });
  });

  it('takes the timeout in seconds and sends milliseconds', () => {
    expect(draftToServer({ ...preset('fetch'), timeoutSeconds: '2.5' })).toMatchObject({ server: { timeoutMs: 2500 } });
    expect(draftToServer({ ...preset('fetch'), timeoutSeconds: '0' })).toMatchObject({ problem: { field: 'timeout' } });
  });
});

const echo: McpTool = { name: 'echo', enabled: true, inputSchema: { type: 'object', properties: { message: { type: 'string' }, times: { type: 'integer' }, loud: { type: 'boolean' } }, required: ['message'] } };

describe('Try a tool', () => {
  it('starts from the schema’s properties', () => {
    expect(JSON.parse(argumentsTemplate(echo))).toEqual({ message: '', times: 0, loud: false });
    expect(argumentsTemplate({ name: 'bare', enabled: true })).toBe('{}');
  });

  it('checks the JSON before anything is sent, saying what is wrong', () => {
    expect(parseToolArguments('{"message": ', echo)).toMatchObject({ problem: expect.stringMatching(/^Not valid JSON/) });
    expect(parseToolArguments('[1]', echo)).toEqual({ problem: 'The arguments are one JSON object, { "name": value, … }' });
    expect(parseToolArguments('{}', echo)).toEqual({ problem: 'echo needs “message”' });
    expect(parseToolArguments('{"message": "hi"}', echo)).toEqual({ args: { message: 'hi' } });
    expect(parseToolArguments('  ', { name: 'bare', enabled: true })).toEqual({ args: {} });
  });

  it('reads a result’s text items, notes the others, falls back to structured content', () => {
    expect(resultText({ content: [{ type: 'text', text: 'one' }, { type: 'image', data: 'AAAA', mimeType: 'image/png' }, { type: 'text', text: 'two' }] })).toBe('one\n\n[image, image/png]\n\ntwo');
    expect(resultText({ content: [], structuredContent: { sum: 3 } })).toBe('{\n  "sum": 3\n}');
  });
});
