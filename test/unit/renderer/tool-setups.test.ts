// The Connect a tool set-ups: each has the gateway's address (root or /v1, as its tool wants) and the
// key written in; Codex's config.toml parses to the provider table Codex reads; OpenCode's JSON names an
// OpenAI-compatible provider with baseURL, apiKey and the model; nothing is left as a placeholder once a
// key and a model are given.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { codexConfigToml, CODEX_ENV_KEY, geminiCliSettings, KEY_PLACEHOLDER, MODEL_PLACEHOLDER, openCodeConfig, toolSetups, toolSetupsMarkdown, type ToolSetup } from '../../../src-renderer/connect/tool-setups';

const ORIGIN = 'http://127.0.0.1:8799';
const KEY = 'gh-vk-0123456789abcdef';
const MODEL = 'qwen2.5-coder:7b';
const input = { origin: ORIGIN, key: KEY, model: MODEL };

type TomlValue = string | number | boolean | TomlTable;
interface TomlTable { [key: string]: TomlValue }

/**
 * Just enough TOML for a config file of tables and `key = value` lines (basic strings, numbers,
 * booleans): any other line is an error, so a malformed file fails the test.
 */
function parseToml(text: string): TomlTable {
  const root: TomlTable = {};
  let table = root;
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const header = /^\[([A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)\]$/.exec(line);
    if (header) {
      table = root;
      for (const part of header[1].split('.')) table = (table[part] ??= {}) as TomlTable;
      continue;
    }
    const pair = /^([A-Za-z0-9_-]+)\s*=\s*(.+)$/.exec(line);
    if (!pair) throw new Error(`line ${index + 1} is not TOML: ${raw}`);
    const [, key, valueText] = pair;
    if (key in table) throw new Error(`line ${index + 1}: ${key} defined twice`);
    let value: TomlValue;
    if (/^"(?:[^"\\]|\\.)*"$/.test(valueText)) value = JSON.parse(valueText) as string;
    else if (/^-?\d+(\.\d+)?$/.test(valueText)) value = Number(valueText);
    else if (valueText === 'true' || valueText === 'false') value = valueText === 'true';
    else throw new Error(`line ${index + 1}: unsupported value ${valueText}`);
    table[key] = value;
  }
  return root;
}

const allCode = (setup: ToolSetup) => setup.steps.map((step) => step.code).join('\n');
const byId = (id: ToolSetup['id']) => toolSetups(input).find((setup) => setup.id === id)!;

describe('tool set-ups', () => {
  it('each have the key and the address written in, and no placeholder left', () => {
    const setups = toolSetups(input);
    expect(setups.map((setup) => setup.id)).toEqual(['claude-code', 'codex', 'opencode', 'gemini-cli', 'openai-js', 'openai-python', 'anthropic-js', 'anthropic-python', 'genai-js', 'curl-chat', 'curl-messages', 'curl-responses', 'curl-gemini']);
    for (const setup of setups) {
      const code = allCode(setup);
      expect(code, setup.id).toContain(KEY);
      expect(code, setup.id).toContain(ORIGIN);
      expect(code, setup.id).toContain(MODEL);
      expect(code, setup.id).not.toContain(KEY_PLACEHOLDER);
      expect(code, setup.id).not.toContain(MODEL_PLACEHOLDER);
    }
  });

  it('write placeholders where no key or model was given', () => {
    for (const setup of toolSetups({ origin: ORIGIN, key: null, model: ' ' })) {
      expect(allCode(setup), setup.id).toContain(KEY_PLACEHOLDER);
      expect(allCode(setup), setup.id).toContain(MODEL_PLACEHOLDER);
    }
  });

  it('give Claude Code the root address (no /v1) and the key as ANTHROPIC_AUTH_TOKEN', () => {
    const code = allCode(byId('claude-code'));
    expect(code).toContain(`export ANTHROPIC_BASE_URL=${ORIGIN}\n`);
    expect(code).toContain(`export ANTHROPIC_AUTH_TOKEN=${KEY}\n`);
    expect(code).toContain(`export ANTHROPIC_MODEL=${MODEL}\n`);
    expect(code).not.toContain('/v1');
  });

  it('quote shell values that need it', () => {
    const code = allCode(toolSetups({ origin: ORIGIN, key: KEY, model: "it's a model" })[0]);
    expect(code).toContain(`export ANTHROPIC_MODEL='it'\\''s a model'`);
  });

  it('give Codex a config.toml that parses to a Responses provider reading the key from its env_key', () => {
    const parsed = parseToml(codexConfigToml(input));
    expect(parsed).toEqual({
      model: MODEL,
      model_provider: 'gatehouse',
      model_providers: { gatehouse: { name: 'Gatehouse', base_url: `${ORIGIN}/v1`, env_key: CODEX_ENV_KEY, wire_api: 'responses' } },
    });
    const codex = byId('codex');
    expect(codex.steps[0]).toMatchObject({ language: 'toml', label: expect.stringContaining('~/.codex/config.toml') });
    expect(codex.steps[1].code).toContain(`export GATEHOUSE_API_KEY=${KEY}`);
  });

  it('keep a model name with TOML-special characters a valid string', () => {
    expect(parseToml(codexConfigToml({ ...input, model: 'a "quoted" \\ model' })).model).toBe('a "quoted" \\ model');
  });

  it('give OpenCode an OpenAI-compatible provider with baseURL, apiKey and the model', () => {
    const config = openCodeConfig(input);
    expect(config).toEqual({
      $schema: 'https://opencode.ai/config.json',
      provider: { gatehouse: { npm: '@ai-sdk/openai-compatible', name: 'Gatehouse', options: { baseURL: `${ORIGIN}/v1`, apiKey: KEY }, models: { [MODEL]: { name: MODEL } } } },
      model: `gatehouse/${MODEL}`,
    });
    expect(JSON.parse(byId('opencode').steps[0].code)).toEqual(config);
  });

  it('give Gemini CLI the root address, the key as GEMINI_API_KEY and settings that select API-key auth', () => {
    const gemini = byId('gemini-cli');
    expect(gemini.dialect).toBe('gemini');
    expect(gemini.steps[0]).toMatchObject({ language: 'json', label: expect.stringContaining('~/.gemini/settings.json') });
    expect(JSON.parse(gemini.steps[0].code)).toEqual({ security: { auth: { selectedType: 'gemini-api-key' } }, model: { name: MODEL } });
    expect(geminiCliSettings(input)).toEqual(JSON.parse(gemini.steps[0].code));
    expect(gemini.steps[1].code).toContain(`export GOOGLE_GEMINI_BASE_URL=${ORIGIN}\n`);
    expect(gemini.steps[1].code).toContain(`export GEMINI_API_KEY=${KEY}\n`);
    expect(allCode(gemini)).not.toContain('/v1');
    expect(allCode(byId('genai-js'))).toContain(`httpOptions: { baseUrl: "${ORIGIN}" }`);
    const curl = allCode(byId('curl-gemini'));
    expect(curl).toContain(`curl ${ORIGIN}/v1beta/models/${MODEL}:generateContent`);
    expect(curl).toContain(`-H 'x-goog-api-key: ${KEY}'`);
  });

  it('point the openai SDKs at /v1 and the anthropic SDKs at the root', () => {
    expect(allCode(byId('openai-js'))).toContain(`baseURL: "${ORIGIN}/v1"`);
    expect(allCode(byId('openai-python'))).toContain(`base_url="${ORIGIN}/v1"`);
    expect(allCode(byId('anthropic-js'))).toContain(`baseURL: "${ORIGIN}"`);
    expect(allCode(byId('anthropic-python'))).toContain(`base_url="${ORIGIN}"`);
  });

  it('send curl to each API with its own headers and a JSON body', () => {
    const chat = allCode(byId('curl-chat'));
    expect(chat).toContain(`curl ${ORIGIN}/v1/chat/completions`);
    expect(chat).toContain(`-H 'Authorization: Bearer ${KEY}'`);
    const messages = allCode(byId('curl-messages'));
    expect(messages).toContain(`curl ${ORIGIN}/v1/messages`);
    expect(messages).toContain(`-H 'x-api-key: ${KEY}'`);
    expect(messages).toContain(`-H 'anthropic-version: 2023-06-01'`);
    expect(allCode(byId('curl-responses'))).toContain(`curl ${ORIGIN}/v1/responses`);
    for (const id of ['curl-chat', 'curl-messages', 'curl-responses'] as const) {
      const body = /-d '(.*)'$/.exec(allCode(byId(id)))![1];
      expect(JSON.parse(body)).toMatchObject({ model: MODEL });
    }
    expect(JSON.parse(/-d '(.*)'$/.exec(allCode(byId('curl-gemini')))![1])).toMatchObject({ contents: [{ role: 'user' }] });
  });

  it('take an address given with /v1 or a trailing slash as the same root', () => {
    expect(allCode(toolSetups({ ...input, origin: `${ORIGIN}/v1/` })[0])).toContain(`ANTHROPIC_BASE_URL=${ORIGIN}\n`);
  });

  it('are what the README section "Connect a tool" says, for the default address', () => {
    const markdown = toolSetupsMarkdown({ origin: 'http://127.0.0.1:8787', key: 'gh-vk-…', model: '' });
    expect(markdown).toContain('### Claude Code');
    expect(markdown).toContain('```toml\nmodel = "your-model"');
    const readme = readFileSync(resolve(import.meta.dirname, '../../../README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Connect a tool'), readme.indexOf('\n## ', readme.indexOf('## Connect a tool') + 1));
    expect(section).toContain(markdown.trim());
  });
});
