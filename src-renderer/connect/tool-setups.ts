// Ready set-ups for the tools people point at Gatehouse: coding agents (Claude Code, Codex, OpenCode),
// the official SDKs and curl, with the gateway's address and the key written in. One source for the
// "Connect a tool" page, the Keys page's "Use it" panel and the README's section of the same name.
//
// Each tool speaks one dialect: Claude Code and the anthropic SDKs Anthropic Messages (base URL = the
// gateway's root, they add /v1/messages themselves), Codex OpenAI Responses (base URL …/v1, wire_api
// "responses"), OpenCode and the openai SDKs Chat Completions (base URL …/v1), Gemini CLI and the
// @google/genai SDK the Gemini API (base URL = the root, the key sent as x-goog-api-key).
import type { ClientDialect } from '../../src-main/codecs/usage-from-body';
import { ANTHROPIC_VERSION } from '../playground/messages';

export type ToolId =
  | 'claude-code'
  | 'codex'
  | 'opencode'
  | 'gemini-cli'
  | 'genai-js'
  | 'openai-js'
  | 'openai-python'
  | 'anthropic-js'
  | 'anthropic-python'
  | 'curl-chat'
  | 'curl-messages'
  | 'curl-responses'
  | 'curl-gemini';

export type ToolGroup = 'Coding agents' | 'SDKs' | 'curl';

export interface ToolSetupStep {
  /** What to do with the code: "Set in your shell", "Save as ~/.codex/config.toml" … */
  label: string;
  language: 'shell' | 'toml' | 'json' | 'javascript' | 'python';
  code: string;
}

export interface ToolSetup {
  id: ToolId;
  title: string;
  /** A short name for a tab. */
  short: string;
  group: ToolGroup;
  dialect: ClientDialect;
  /** One sentence on what the set-up does. */
  summary: string;
  steps: ToolSetupStep[];
}

export interface ToolSetupInput {
  /** The gateway's address, `http://127.0.0.1:8787`: no trailing slash, no /v1. */
  origin: string;
  /** A virtual key (gh-vk-…) to write in; null writes KEY_PLACEHOLDER. */
  key: string | null;
  /** The model the tool asks for; empty writes MODEL_PLACEHOLDER. */
  model: string;
}

/** Stands in for the key when none was given: plain letters, so it survives any quoting. */
export const KEY_PLACEHOLDER = 'YOUR_GATEHOUSE_KEY';
export const MODEL_PLACEHOLDER = 'your-model';
/** The variable Codex reads its key from (env_key). */
export const CODEX_ENV_KEY = 'GATEHOUSE_API_KEY';

export function shellSingleQuote(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A TOML basic string. */
function tomlString(text: string): string {
  return JSON.stringify(text);
}

function normalise(input: ToolSetupInput): { origin: string; v1: string; key: string; model: string } {
  const origin = input.origin.replace(/\/+$/, '').replace(/\/v1$/, '');
  return { origin, v1: `${origin}/v1`, key: input.key?.trim() || KEY_PLACEHOLDER, model: input.model.trim() || MODEL_PLACEHOLDER };
}

export function claudeCodeSetup(input: ToolSetupInput): ToolSetup {
  const { origin, key, model } = normalise(input);
  const q = shellSingleQuote;
  return {
    id: 'claude-code',
    title: 'Claude Code',
    short: 'Claude Code',
    group: 'Coding agents',
    dialect: 'anthropic-messages',
    summary: 'Speaks Anthropic Messages. The base URL is the gateway’s root (Claude Code adds /v1/messages); the key goes out as Authorization: Bearer.',
    steps: [
      {
        label: 'Set in your shell, then run claude',
        language: 'shell',
        code: [
          `export ANTHROPIC_BASE_URL=${q(origin)}`,
          `export ANTHROPIC_AUTH_TOKEN=${q(key)}`,
          `export ANTHROPIC_MODEL=${q(model)}`,
          '# Background tasks (titles, summaries) use the small model: point it at the same one.',
          `export ANTHROPIC_DEFAULT_HAIKU_MODEL=${q(model)}`,
          'claude',
        ].join('\n'),
      },
    ],
  };
}

export function codexConfigToml(input: ToolSetupInput): string {
  const { v1, model } = normalise(input);
  return [
    `model = ${tomlString(model)}`,
    'model_provider = "gatehouse"',
    '',
    '[model_providers.gatehouse]',
    'name = "Gatehouse"',
    `base_url = ${tomlString(v1)}`,
    `env_key = ${tomlString(CODEX_ENV_KEY)}`,
    'wire_api = "responses"',
  ].join('\n');
}

export function codexSetup(input: ToolSetupInput): ToolSetup {
  const { key } = normalise(input);
  return {
    id: 'codex',
    title: 'Codex CLI',
    short: 'Codex',
    group: 'Coding agents',
    dialect: 'openai-responses',
    summary: 'Speaks only the OpenAI Responses API (wire_api = "responses"). Codex reads the key from the variable env_key names.',
    steps: [
      { label: 'Save as ~/.codex/config.toml', language: 'toml', code: codexConfigToml(input) },
      { label: 'Set in your shell, then run codex', language: 'shell', code: [`export ${CODEX_ENV_KEY}=${shellSingleQuote(key)}`, 'codex'].join('\n') },
    ],
  };
}

export function openCodeConfig(input: ToolSetupInput): Record<string, unknown> {
  const { v1, key, model } = normalise(input);
  return {
    $schema: 'https://opencode.ai/config.json',
    provider: {
      gatehouse: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Gatehouse',
        options: { baseURL: v1, apiKey: key },
        models: { [model]: { name: model } },
      },
    },
    model: `gatehouse/${model}`,
  };
}

export function openCodeSetup(input: ToolSetupInput): ToolSetup {
  return {
    id: 'opencode',
    title: 'OpenCode',
    short: 'OpenCode',
    group: 'Coding agents',
    dialect: 'openai-chat',
    summary: 'Speaks Chat Completions through a custom OpenAI-compatible provider; add more models to the models map.',
    steps: [
      {
        label: 'Save as opencode.json in your project (or ~/.config/opencode/opencode.json), then run opencode',
        language: 'json',
        code: JSON.stringify(openCodeConfig(input), null, 2),
      },
    ],
  };
}

/** Gemini CLI's user settings: API-key auth (what sends GEMINI_API_KEY as x-goog-api-key) and the model. */
export function geminiCliSettings(input: ToolSetupInput): Record<string, unknown> {
  const { model } = normalise(input);
  return { security: { auth: { selectedType: 'gemini-api-key' } }, model: { name: model } };
}

export function geminiCliSetup(input: ToolSetupInput): ToolSetup {
  const { origin, key, model } = normalise(input);
  const q = shellSingleQuote;
  return {
    id: 'gemini-cli',
    title: 'Gemini CLI',
    short: 'Gemini CLI',
    group: 'Coding agents',
    dialect: 'gemini',
    summary: 'Speaks the Gemini API. The base URL is the gateway’s root (Gemini CLI adds /v1beta/models/…); the key goes out as x-goog-api-key.',
    steps: [
      { label: 'Save as ~/.gemini/settings.json (selects API-key auth)', language: 'json', code: JSON.stringify(geminiCliSettings(input), null, 2) },
      {
        label: 'Set in your shell, then run gemini',
        language: 'shell',
        code: [`export GOOGLE_GEMINI_BASE_URL=${q(origin)}`, `export GEMINI_API_KEY=${q(key)}`, `gemini -m ${q(model)}`].join('\n'),
      },
    ],
  };
}

const USER_MESSAGE = 'Hello!';

function openaiJs(input: ToolSetupInput): ToolSetup {
  const { v1, key, model } = normalise(input);
  return {
    id: 'openai-js',
    title: 'openai SDK (JavaScript)',
    short: 'openai JS',
    group: 'SDKs',
    dialect: 'openai-chat',
    summary: 'npm install openai. The base URL ends in /v1.',
    steps: [
      {
        label: 'JavaScript',
        language: 'javascript',
        code: [
          'import OpenAI from "openai";',
          '',
          `const client = new OpenAI({ baseURL: ${JSON.stringify(v1)}, apiKey: ${JSON.stringify(key)} });`,
          '',
          'const completion = await client.chat.completions.create({',
          `  model: ${JSON.stringify(model)},`,
          `  messages: [{ role: "user", content: ${JSON.stringify(USER_MESSAGE)} }],`,
          '});',
          'console.log(completion.choices[0].message.content);',
          '',
          '// The Responses API goes through the same client:',
          `const response = await client.responses.create({ model: ${JSON.stringify(model)}, input: ${JSON.stringify(USER_MESSAGE)} });`,
          'console.log(response.output_text);',
        ].join('\n'),
      },
    ],
  };
}

function openaiPython(input: ToolSetupInput): ToolSetup {
  const { v1, key, model } = normalise(input);
  return {
    id: 'openai-python',
    title: 'openai SDK (Python)',
    short: 'openai Python',
    group: 'SDKs',
    dialect: 'openai-chat',
    summary: 'pip install openai. The base URL ends in /v1.',
    steps: [
      {
        label: 'Python',
        language: 'python',
        code: [
          'from openai import OpenAI',
          '',
          `client = OpenAI(base_url=${JSON.stringify(v1)}, api_key=${JSON.stringify(key)})`,
          '',
          'completion = client.chat.completions.create(',
          `    model=${JSON.stringify(model)},`,
          `    messages=[{"role": "user", "content": ${JSON.stringify(USER_MESSAGE)}}],`,
          ')',
          'print(completion.choices[0].message.content)',
          '',
          '# The Responses API goes through the same client:',
          `response = client.responses.create(model=${JSON.stringify(model)}, input=${JSON.stringify(USER_MESSAGE)})`,
          'print(response.output_text)',
        ].join('\n'),
      },
    ],
  };
}

function anthropicJs(input: ToolSetupInput): ToolSetup {
  const { origin, key, model } = normalise(input);
  return {
    id: 'anthropic-js',
    title: 'anthropic SDK (JavaScript)',
    short: 'anthropic JS',
    group: 'SDKs',
    dialect: 'anthropic-messages',
    summary: 'npm install @anthropic-ai/sdk. The base URL is the gateway’s root, without /v1.',
    steps: [
      {
        label: 'JavaScript',
        language: 'javascript',
        code: [
          'import Anthropic from "@anthropic-ai/sdk";',
          '',
          `const client = new Anthropic({ baseURL: ${JSON.stringify(origin)}, apiKey: ${JSON.stringify(key)} });`,
          '',
          'const message = await client.messages.create({',
          `  model: ${JSON.stringify(model)},`,
          '  max_tokens: 1024,',
          `  messages: [{ role: "user", content: ${JSON.stringify(USER_MESSAGE)} }],`,
          '});',
          'console.log(message.content);',
        ].join('\n'),
      },
    ],
  };
}

function anthropicPython(input: ToolSetupInput): ToolSetup {
  const { origin, key, model } = normalise(input);
  return {
    id: 'anthropic-python',
    title: 'anthropic SDK (Python)',
    short: 'anthropic Python',
    group: 'SDKs',
    dialect: 'anthropic-messages',
    summary: 'pip install anthropic. The base URL is the gateway’s root, without /v1.',
    steps: [
      {
        label: 'Python',
        language: 'python',
        code: [
          'from anthropic import Anthropic',
          '',
          `client = Anthropic(base_url=${JSON.stringify(origin)}, api_key=${JSON.stringify(key)})`,
          '',
          'message = client.messages.create(',
          `    model=${JSON.stringify(model)},`,
          '    max_tokens=1024,',
          `    messages=[{"role": "user", "content": ${JSON.stringify(USER_MESSAGE)}}],`,
          ')',
          'print(message.content)',
        ].join('\n'),
      },
    ],
  };
}

function genaiJs(input: ToolSetupInput): ToolSetup {
  const { origin, key, model } = normalise(input);
  return {
    id: 'genai-js',
    title: '@google/genai SDK (JavaScript)',
    short: 'genai JS',
    group: 'SDKs',
    dialect: 'gemini',
    summary: 'npm install @google/genai. The base URL is the gateway’s root, in httpOptions.',
    steps: [
      {
        label: 'JavaScript',
        language: 'javascript',
        code: [
          'import { GoogleGenAI } from "@google/genai";',
          '',
          `const ai = new GoogleGenAI({ apiKey: ${JSON.stringify(key)}, httpOptions: { baseUrl: ${JSON.stringify(origin)} } });`,
          '',
          `const response = await ai.models.generateContent({ model: ${JSON.stringify(model)}, contents: ${JSON.stringify(USER_MESSAGE)} });`,
          'console.log(response.text);',
        ].join('\n'),
      },
    ],
  };
}

function curlLines(url: string, headers: string[], body: Record<string, unknown>): string {
  return [`curl ${url}`, ...headers.map((header) => `  -H ${shellSingleQuote(header)}`), `  -d ${shellSingleQuote(JSON.stringify(body))}`].join(' \\\n');
}

function curlChat(input: ToolSetupInput): ToolSetup {
  const { v1, key, model } = normalise(input);
  return {
    id: 'curl-chat',
    title: 'curl: Chat Completions',
    short: 'curl chat',
    group: 'curl',
    dialect: 'openai-chat',
    summary: 'POST /v1/chat/completions with the key as a Bearer token.',
    steps: [
      {
        label: 'Shell',
        language: 'shell',
        code: curlLines(`${v1}/chat/completions`, ['Content-Type: application/json', `Authorization: Bearer ${key}`], {
          model,
          messages: [{ role: 'user', content: USER_MESSAGE }],
        }),
      },
    ],
  };
}

function curlMessages(input: ToolSetupInput): ToolSetup {
  const { v1, key, model } = normalise(input);
  return {
    id: 'curl-messages',
    title: 'curl: Anthropic Messages',
    short: 'curl messages',
    group: 'curl',
    dialect: 'anthropic-messages',
    summary: 'POST /v1/messages with the key in x-api-key (as ANTHROPIC_API_KEY sends it) and anthropic-version.',
    steps: [
      {
        label: 'Shell',
        language: 'shell',
        code: curlLines(`${v1}/messages`, ['Content-Type: application/json', `x-api-key: ${key}`, `anthropic-version: ${ANTHROPIC_VERSION}`], {
          model,
          max_tokens: 1024,
          messages: [{ role: 'user', content: USER_MESSAGE }],
        }),
      },
    ],
  };
}

function curlResponses(input: ToolSetupInput): ToolSetup {
  const { v1, key, model } = normalise(input);
  return {
    id: 'curl-responses',
    title: 'curl: OpenAI Responses',
    short: 'curl responses',
    group: 'curl',
    dialect: 'openai-responses',
    summary: 'POST /v1/responses with the key as a Bearer token. Gatehouse keeps no conversation state: send store: false and the whole input each time.',
    steps: [
      {
        label: 'Shell',
        language: 'shell',
        code: curlLines(`${v1}/responses`, ['Content-Type: application/json', `Authorization: Bearer ${key}`], { model, input: USER_MESSAGE, store: false }),
      },
    ],
  };
}

function curlGemini(input: ToolSetupInput): ToolSetup {
  const { origin, key, model } = normalise(input);
  return {
    id: 'curl-gemini',
    title: 'curl: Gemini API',
    short: 'curl gemini',
    group: 'curl',
    dialect: 'gemini',
    summary: 'POST /v1beta/models/{model}:generateContent with the key in x-goog-api-key; the model is in the path.',
    steps: [
      {
        label: 'Shell',
        language: 'shell',
        code: curlLines(`${origin}/v1beta/models/${encodeURI(model)}:generateContent`, ['Content-Type: application/json', `x-goog-api-key: ${key}`], {
          contents: [{ role: 'user', parts: [{ text: USER_MESSAGE }] }],
        }),
      },
    ],
  };
}

/** A lone step named only by its language ("Python", "Shell") needs no heading: the code says it. */
export function stepNeedsLabel(setup: ToolSetup, step: ToolSetupStep): boolean {
  return setup.steps.length > 1 || step.label.includes(' ');
}

/** Every set-up, in the order the page shows them. */
export function toolSetups(input: ToolSetupInput): ToolSetup[] {
  return [
    claudeCodeSetup(input),
    codexSetup(input),
    openCodeSetup(input),
    geminiCliSetup(input),
    openaiJs(input),
    openaiPython(input),
    anthropicJs(input),
    anthropicPython(input),
    genaiJs(input),
    curlChat(input),
    curlMessages(input),
    curlResponses(input),
    curlGemini(input),
  ];
}

export const TOOL_GROUPS: ToolGroup[] = ['Coding agents', 'SDKs', 'curl'];

/** The README's "Connect a tool" section is written from the same set-ups (with the default address). */
export function toolSetupsMarkdown(input: ToolSetupInput): string {
  const fence: Record<ToolSetupStep['language'], string> = { shell: 'sh', toml: 'toml', json: 'json', javascript: 'js', python: 'python' };
  return toolSetups(input)
    .map((setup) =>
      [`### ${setup.title}`, '', setup.summary, '', ...setup.steps.flatMap((step) => [...(stepNeedsLabel(setup, step) ? [`${step.label}:`, ''] : []), '```' + fence[step.language], step.code, '```', ''])].join('\n'),
    )
    .join('\n');
}
