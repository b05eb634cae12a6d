// A Messages body as clients send it (Claude Code, the official @anthropic-ai/sdk) → canonical request.
// Fields the canonical model has no place for are kept in `extensions` by name, for a Messages provider.
import { invalidRequest } from '../../core/errors.js';
import {
  asRecord,
  asString,
  type CanonicalRequest,
  type ContentPart,
  type ImagePart,
  type ReasoningEffort,
  type TextPart,
  type ToolChoice,
  type ToolDefinition,
  type ToolResultContent,
  type Turn,
} from '../canonical.js';
import { DIALECT } from './format.js';

type Json = Record<string, unknown>;

/** Top-level fields read into the canonical request; everything else is kept in `extensions` by name. */
const READ_FIELDS = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'stop_sequences',
  'temperature',
  'top_p',
  'top_k',
  'stream',
  'metadata',
  'thinking',
  'output_config',
]);

/** Block types the canonical model carries; any other (document, search_result, server tool results …) is kept as an extension. */
const CARRIED_BLOCKS = new Set(['text', 'image', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking']);

const bad = (message: string, param: string) => invalidRequest(message, param);

function requireString(value: unknown, path: string, what = 'a string'): string {
  if (typeof value !== 'string') throw bad(`'${path}' must be ${what}`, path);
  return value;
}

function optionalNumber(body: Json, key: string, check: (n: number) => boolean, what: string): number | undefined {
  const value = body[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || !check(value)) throw bad(`'${key}' must be ${what}`, key);
  return value;
}

function cacheControlOf(block: Json): Pick<TextPart, 'cacheControl'> {
  return block.cache_control !== undefined && block.cache_control !== null ? { cacheControl: asRecord(block.cache_control) } : {};
}

function readTextBlock(value: unknown, path: string): TextPart {
  const block = asRecord(value);
  if (block.type !== 'text') throw bad(`'${path}.type' must be 'text'`, `${path}.type`);
  return { type: 'text', text: requireString(block.text, `${path}.text`), ...cacheControlOf(block) };
}

function readImage(block: Json, path: string): ImagePart {
  const source = asRecord(block.source);
  if (source.type === 'base64') {
    const mediaType = requireString(source.media_type, `${path}.source.media_type`);
    const data = requireString(source.data, `${path}.source.data`);
    return { type: 'image', source: { kind: 'base64', mediaType, data } };
  }
  if (source.type === 'url') return { type: 'image', source: { kind: 'url', url: requireString(source.url, `${path}.source.url`) } };
  throw bad(`'${path}.source.type' must be 'base64' or 'url'`, `${path}.source.type`);
}

function readToolResultContent(value: unknown, path: string): ToolResultContent {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (!Array.isArray(value)) throw bad(`'${path}' must be a string or an array of content blocks`, path);
  return value.map((entry, index): TextPart | ImagePart => {
    const block = asRecord(entry);
    const at = `${path}[${index}]`;
    if (block.type === 'text') return readTextBlock(block, at);
    if (block.type === 'image') return readImage(block, at);
    throw bad(`'${at}.type' must be 'text' or 'image' inside a tool result`, `${at}.type`);
  });
}

/** One content block of a message; undefined for a block the canonical model cannot carry (kept as an extension). */
function readBlock(value: unknown, role: Turn['role'], path: string): ContentPart | undefined {
  const block = asRecord(value);
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw bad(`'${path}' must be a content block object`, path);
  const type = requireString(block.type, `${path}.type`);
  if (!CARRIED_BLOCKS.has(type)) return undefined;
  if ((type === 'tool_use' || type === 'thinking' || type === 'redacted_thinking') && role !== 'assistant') {
    throw bad(`'${path}': '${type}' blocks can only be in assistant messages`, path);
  }
  if (type === 'tool_result' && role !== 'user') throw bad(`'${path}': 'tool_result' blocks can only be in user messages`, path);
  if (role === 'system' && type !== 'text') throw bad(`'${path}': a system message holds text blocks only`, path);
  switch (type) {
    case 'text':
      return readTextBlock(block, path);
    case 'image':
      return readImage(block, path);
    case 'tool_use': {
      const id = requireString(block.id, `${path}.id`);
      const name = requireString(block.name, `${path}.name`);
      const input = block.input;
      if (typeof input !== 'object' || input === null || Array.isArray(input)) throw bad(`'${path}.input' must be an object`, `${path}.input`);
      return { type: 'tool_call', id, name, arguments: JSON.stringify(input) };
    }
    case 'tool_result': {
      const callId = requireString(block.tool_use_id, `${path}.tool_use_id`);
      if (block.is_error !== undefined && typeof block.is_error !== 'boolean') throw bad(`'${path}.is_error' must be a boolean`, `${path}.is_error`);
      return { type: 'tool_result', callId, content: readToolResultContent(block.content, `${path}.content`), ...(block.is_error === true ? { isError: true } : {}) };
    }
    case 'thinking': {
      const text = requireString(block.thinking, `${path}.thinking`);
      const signature = asString(block.signature);
      return { type: 'reasoning', text, ...(signature !== undefined ? { signature } : {}) };
    }
    default:
      return { type: 'reasoning', text: '', encrypted: requireString(block.data, `${path}.data`) };
  }
}

function readMessages(value: unknown, extensions: Json): Turn[] {
  if (!Array.isArray(value) || value.length === 0) throw bad("'messages' must be a non-empty array", 'messages');
  return value.map((entry, i): Turn => {
    const path = `messages[${i}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw bad(`'${path}' must be an object`, path);
    const message = asRecord(entry);
    const role = message.role;
    if (role !== 'user' && role !== 'assistant' && role !== 'system') throw bad(`'${path}.role' must be 'user', 'assistant' or 'system'`, `${path}.role`);
    const content = message.content;
    if (typeof content === 'string') return { role, parts: [{ type: 'text', text: content }], source: path };
    if (!Array.isArray(content)) throw bad(`'${path}.content' must be a string or an array of content blocks`, `${path}.content`);
    const parts: ContentPart[] = [];
    content.forEach((block, j) => {
      const at = `${path}.content[${j}]`;
      const part = readBlock(block, role, at);
      if (part) parts.push(part);
      else extensions[at] = block;
    });
    return { role, parts, source: path };
  });
}

function readSystem(value: unknown): TextPart[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value === '' ? [] : [{ type: 'text', text: value }];
  if (!Array.isArray(value)) throw bad("'system' must be a string or an array of text blocks", 'system');
  return value.map((block, index) => readTextBlock(block, `system[${index}]`));
}

const TOOL_FIELDS = new Set(['type', 'name', 'description', 'input_schema', 'strict']);

/** Custom tools become canonical tools; server tools (`web_search_20250305` …) and tools' other fields are kept as `tools[i]…` extensions. */
function readTools(value: unknown, extensions: Json): ToolDefinition[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw bad("'tools' must be an array", 'tools');
  const tools: ToolDefinition[] = [];
  value.forEach((entry, index) => {
    const path = `tools[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw bad(`'${path}' must be an object`, path);
    const tool = asRecord(entry);
    if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom') {
      // A server tool Anthropic runs itself: only an Anthropic-format provider can honour it.
      requireString(tool.type, `${path}.type`);
      extensions[path] = tool;
      return;
    }
    const name = requireString(tool.name, `${path}.name`, 'a non-empty string');
    if (!name) throw bad(`'${path}.name' must be a non-empty string`, `${path}.name`);
    const schema = tool.input_schema;
    if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) throw bad(`'${path}.input_schema' must be a JSON Schema object`, `${path}.input_schema`);
    const description = tool.description === undefined || tool.description === null ? undefined : requireString(tool.description, `${path}.description`);
    if (tool.strict !== undefined && typeof tool.strict !== 'boolean') throw bad(`'${path}.strict' must be a boolean`, `${path}.strict`);
    tools.push({ name, ...(description !== undefined ? { description } : {}), parameters: asRecord(schema), ...(typeof tool.strict === 'boolean' ? { strict: tool.strict } : {}) });
    for (const [key, field] of Object.entries(tool)) if (!TOOL_FIELDS.has(key)) extensions[`${path}.${key}`] = field;
  });
  return tools;
}

function readToolChoice(value: unknown): { toolChoice?: ToolChoice; parallelToolCalls?: boolean } {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw bad("'tool_choice' must be an object", 'tool_choice');
  const choice = asRecord(value);
  let toolChoice: ToolChoice;
  if (choice.type === 'auto') toolChoice = { mode: 'auto' };
  else if (choice.type === 'any') toolChoice = { mode: 'required' };
  else if (choice.type === 'none') toolChoice = { mode: 'none' };
  else if (choice.type === 'tool') {
    const name = asString(choice.name);
    if (!name) throw bad("'tool_choice.name' must name a tool", 'tool_choice.name');
    toolChoice = { mode: 'tool', name };
  } else throw bad("'tool_choice.type' must be 'auto', 'any', 'tool' or 'none'", 'tool_choice.type');
  const disable = choice.disable_parallel_tool_use;
  if (disable !== undefined && typeof disable !== 'boolean') throw bad("'tool_choice.disable_parallel_tool_use' must be a boolean", 'tool_choice.disable_parallel_tool_use');
  return { toolChoice, ...(disable === true ? { parallelToolCalls: false } : disable === false ? { parallelToolCalls: true } : {}) };
}

const EFFORTS: Readonly<Record<string, ReasoningEffort>> = { low: 'low', medium: 'medium', high: 'high', max: 'xhigh' };

/** `thinking` and `output_config.effort` → canonical reasoning; the rest of `output_config` and `thinking.display` stay extensions. */
function readReasoning(body: Json, extensions: Json): CanonicalRequest['reasoning'] {
  let reasoning: CanonicalRequest['reasoning'];
  const thinking = body.thinking;
  if (thinking !== undefined && thinking !== null) {
    if (typeof thinking !== 'object' || Array.isArray(thinking)) throw bad("'thinking' must be an object", 'thinking');
    const record = asRecord(thinking);
    if (record.type === 'enabled') {
      const budget = record.budget_tokens;
      if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < 1) throw bad("'thinking.budget_tokens' must be a positive integer", 'thinking.budget_tokens');
      reasoning = { enabled: true, budgetTokens: budget };
    } else if (record.type === 'adaptive') reasoning = { enabled: true };
    else if (record.type === 'disabled') reasoning = { enabled: false };
    else throw bad("'thinking.type' must be 'enabled', 'adaptive' or 'disabled'", 'thinking.type');
    for (const [key, value] of Object.entries(record)) if (key !== 'type' && key !== 'budget_tokens') extensions[`thinking.${key}`] = value;
  }
  const config = body.output_config;
  if (config !== undefined && config !== null) {
    if (typeof config !== 'object' || Array.isArray(config)) throw bad("'output_config' must be an object", 'output_config');
    const { effort, ...rest } = asRecord(config);
    if (effort !== undefined && effort !== null) {
      const level = typeof effort === 'string' ? EFFORTS[effort] : undefined;
      if (!level) throw bad("'output_config.effort' must be 'low', 'medium', 'high' or 'max'", 'output_config.effort');
      reasoning = { ...(reasoning ?? { enabled: true }), effort: level };
    }
    if (Object.keys(rest).length) extensions.output_config = rest;
  }
  return reasoning;
}

export function decodeMessagesRequest(json: unknown): CanonicalRequest {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) throw invalidRequest('The request body must be a JSON object');
  const body = asRecord(json);
  const extensions: Json = {};
  const model = body.model;
  if (typeof model !== 'string' || model === '') throw bad("'model' must be a non-empty string", 'model');
  const maxTokens = body.max_tokens;
  if (maxTokens === undefined || maxTokens === null) throw bad("'max_tokens' is required", 'max_tokens');
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens) || maxTokens < 1) throw bad("'max_tokens' must be a positive integer", 'max_tokens');
  const turns = readMessages(body.messages, extensions);
  const system = readSystem(body.system);
  const tools = readTools(body.tools, extensions);
  const { toolChoice, parallelToolCalls } = readToolChoice(body.tool_choice);

  let stop: string[] | undefined;
  if (body.stop_sequences !== undefined && body.stop_sequences !== null) {
    if (!Array.isArray(body.stop_sequences)) throw bad("'stop_sequences' must be an array of strings", 'stop_sequences');
    stop = body.stop_sequences.map((entry, index) => requireString(entry, `stop_sequences[${index}]`));
  }
  const temperature = optionalNumber(body, 'temperature', (n) => n >= 0 && n <= 1, 'a number from 0 to 1');
  const topP = optionalNumber(body, 'top_p', (n) => n >= 0 && n <= 1, 'a number from 0 to 1');
  const topK = optionalNumber(body, 'top_k', (n) => Number.isInteger(n) && n >= 0, 'an integer of at least 0');
  if (body.stream !== undefined && body.stream !== null && typeof body.stream !== 'boolean') throw bad("'stream' must be a boolean", 'stream');

  let user: string | undefined;
  if (body.metadata !== undefined && body.metadata !== null) {
    if (typeof body.metadata !== 'object' || Array.isArray(body.metadata)) throw bad("'metadata' must be an object", 'metadata');
    const { user_id: userId, ...rest } = asRecord(body.metadata);
    if (userId !== undefined && userId !== null) user = requireString(userId, 'metadata.user_id');
    if (Object.keys(rest).length) extensions.metadata = rest;
  }
  const reasoning = readReasoning(body, extensions);
  for (const [key, value] of Object.entries(body)) if (!READ_FIELDS.has(key)) extensions[key] = value;

  return {
    dialect: DIALECT,
    onUnsupported: 'drop',
    model,
    system,
    turns,
    ...(tools ? { tools } : {}),
    ...(toolChoice ? { toolChoice } : {}),
    ...(parallelToolCalls !== undefined ? { parallelToolCalls } : {}),
    maxOutputTokens: maxTokens,
    ...(temperature !== undefined ? { temperature } : {}),
    ...(topP !== undefined ? { topP } : {}),
    ...(topK !== undefined ? { topK } : {}),
    ...(stop ? { stop } : {}),
    ...(reasoning ? { reasoning } : {}),
    stream: body.stream === true,
    ...(user !== undefined ? { user } : {}),
    extensions,
  };
}
