// Anthropic's Messages format, both at the front door (Claude Code, the official @anthropic-ai/sdk) and
// upstream (Anthropic, Claude on Vertex): a Messages body ↔ canonical request, and a Messages answer or
// typed SSE stream (message_start … message_stop) ↔ canonical events. The error body is Anthropic's
// `{"type":"error","error":{"type","message"}}`.
import { COMPLETION_BOUNDS } from '../core/spec-bounds.js';
import { invalidRequest, unsupportedField, type GatewayError } from '../core/errors.js';
import { ProviderStreamError } from '../core/provider-stream-error.js';
import { isDefaultValue, REFUSAL_REASONS } from './openai-chat.js';
import {
  asArray,
  asNumber,
  asRecord,
  asString,
  assistantFirst,
  cannotHonour,
  emptyUserTurn,
  fieldName,
  turnSource,
  type CanonicalAnswer,
  type CanonicalEvent,
  type CanonicalRequest,
  type ContentPart,
  type DialectCodec,
  type EncodedRequest,
  type EncodeTarget,
  type FinishReason,
  type ImagePart,
  type ImageSource,
  type ProviderCodec,
  type ReasoningEffort,
  type StreamDecoder,
  type StreamEncoder,
  type TextPart,
  type ToolChoice,
  type ToolDefinition,
  type ToolResultContent,
  type Turn,
  type UpstreamEvent,
  type Usage,
} from './canonical.js';

const DIALECT = 'anthropic-messages' as const;

/**
 * OpenAI's chat API has no token limit by default, but Messages requires `max_tokens`. 4096 is the
 * largest output every current Claude model accepts (the older Haiku models stop there), so a chat
 * that names no limit is only cut where the model itself would have to stop.
 */
export const DEFAULT_CHAT_MAX_TOKENS = 4096;

/** Messages takes a temperature of 0 to 1; OpenAI's 0 to 2 cannot be squeezed in without changing its meaning. */
const MAX_TEMPERATURE = 1;

/** Claude on Vertex (rawPredict) and on Bedrock (InvokeModel) take the version in the body instead of a header. */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';
export const BEDROCK_ANTHROPIC_VERSION = 'bedrock-2023-05-31';

/**
 * Thinking budgets for an effort level asked for in another dialect (Chat's `reasoning_effort`, Responses'
 * `reasoning.effort`). Messages' smallest budget is 1024; each level roughly doubles the one below, and the
 * largest stays small enough that budget + the default answer room fits every thinking model's output limit.
 */
export const EFFORT_BUDGETS: Readonly<Record<ReasoningEffort, number>> = { minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 24576 };
const MIN_THINKING_BUDGET = 1024;

type Json = Record<string, unknown>;

// ---- Request: Messages body → canonical ----------------------------------------------------------

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

// ---- Request: canonical → Messages body ----------------------------------------------------------

type Block = Json;
interface Message {
  role: 'user' | 'assistant' | 'system';
  blocks: Block[];
  /** Its first turn, for errors naming where it came from. */
  first: Turn;
}


function imageBlock(source: ImageSource): Block {
  return { type: 'image', source: source.kind === 'base64' ? { type: 'base64', media_type: source.mediaType, data: source.data } : { type: 'url', url: source.url } };
}

/** Real Messages refuses empty and whitespace-only text blocks: such text adds nothing and is left out. */
const hasText = (text: string): boolean => text.trim() !== '';

function textBlock(part: TextPart): Block {
  return { type: 'text', text: part.text, ...(part.cacheControl ? { cache_control: part.cacheControl } : {}) };
}

/**
 * Messages takes tool ids of letters, digits, `_` and `-` only; ids other servers made (`functions.get_weather:0`)
 * are mapped the same way in a call and its result. They only go upstream: Anthropic never answers with them.
 */
const toolUseId = (id: string): string => id.replace(/[^a-zA-Z0-9_-]/g, '_');

function toolResultBlock(part: Extract<ContentPart, { type: 'tool_result' }>): Block {
  let content: string | Block[];
  if (typeof part.content === 'string') content = part.content;
  else if (part.content.every((item) => item.type === 'text' && !item.cacheControl)) content = part.content.map((item) => (item as TextPart).text).join('');
  else content = part.content.flatMap((item) => (item.type === 'text' ? (hasText(item.text) ? [textBlock(item)] : []) : [imageBlock(item.source)]));
  // `content` is optional: an empty result is sent without it rather than as an empty text.
  return { type: 'tool_result', tool_use_id: toolUseId(part.callId), ...(content === '' || content.length === 0 ? {} : { content }), ...(part.isError ? { is_error: true } : {}) };
}

function parseArguments(text: string, where: string): Json {
  if (text.trim() === '') return {};
  try {
    return asRecord(JSON.parse(text));
  } catch {
    throw invalidRequest(`'${where}' arguments are not valid JSON`, where);
  }
}

/** A canonical turn as Messages blocks: empty text left out, reasoning kept only where it can be sent back. */
function turnBlocks(request: CanonicalRequest, target: EncodeTarget, turn: Turn, where: string): Block[] {
  const blocks: Block[] = [];
  turn.parts.forEach((part, index) => {
    const at = `${where}.content[${index}]`;
    switch (part.type) {
      case 'text':
        if (hasText(part.text)) blocks.push(textBlock(part));
        return;
      case 'image':
        // Messages shows images to the model in user turns (and tool results) only.
        if (turn.role !== 'user') throw unsupportedField(at, target.provider, `(an image in a${turn.role === 'assistant' ? 'n assistant' : ' system'} message) is not supported`);
        blocks.push(imageBlock(part.source));
        return;
      case 'tool_call':
        blocks.push({ type: 'tool_use', id: toolUseId(part.id), name: part.name, input: parseArguments(part.arguments, at) });
        return;
      case 'tool_result':
        blocks.push(toolResultBlock(part));
        return;
      case 'reasoning':
        // Messages only takes back thinking it signed itself; unsigned reasoning (another provider's) cannot go.
        if (part.signature) blocks.push({ type: 'thinking', thinking: part.text, signature: part.signature });
        else if (part.encrypted && request.dialect === DIALECT) blocks.push({ type: 'redacted_thinking', data: part.encrypted });
        return;
    }
  });
  return blocks;
}

/** A single plain text stays a string, as a Messages client would write it; anything else is blocks. */
function contentOf(blocks: Block[]): string | Block[] {
  const [first] = blocks;
  return blocks.length === 1 && first.type === 'text' && first.cache_control === undefined ? (first.text as string) : blocks;
}

/**
 * `blocks` with each kept block at its index in the final list (as if spliced in one by one in index
 * order, an index past the end appending), in one pass: splicing each in was quadratic in a message of
 * many such blocks.
 */
function withBlocksAt(blocks: Block[], kept: { at: number; block: Block }[]): Block[] {
  kept.sort((a, b) => a.at - b.at);
  const out: Block[] = [];
  let next = 0;
  for (const block of blocks) {
    while (next < kept.length && kept[next].at <= out.length) out.push(kept[next++].block);
    out.push(block);
  }
  while (next < kept.length) out.push(kept[next++].block);
  return out;
}

/**
 * The conversation as Messages turns, in the shape the real API insists on: consecutive same-role turns
 * merged, tool results first in their user turn and each answering a tool_use of the turn before, the
 * first turn the user's. System turns in the middle go to `system` unless the client spoke Messages itself.
 */
function buildMessages(request: CanonicalRequest, target: EncodeTarget, lateSystem: TextPart[]): { role: string; content: string | Block[] }[] {
  const field = fieldName(request, 'turns');
  const keepSystemTurns = request.dialect === DIALECT;
  const merged: Message[] = [];
  // The client's own blocks by the turn they were in, read once: a search of every extension per turn was
  // quadratic in a long conversation that kept a document block in each turn.
  const keptBlocks = new Map<number, { at: number; block: Block }[]>();
  if (keepSystemTurns) {
    for (const [key, block] of Object.entries(request.extensions)) {
      const match = /^messages\[(\d+)\]\.content\[(\d+)\]$/.exec(key);
      if (!match) continue;
      const turnIndex = Number(match[1]);
      const list = keptBlocks.get(turnIndex) ?? [];
      list.push({ at: Number(match[2]), block: asRecord(block) });
      keptBlocks.set(turnIndex, list);
    }
  }
  request.turns.forEach((turn, index) => {
    const where = turnSource(request, turn, index);
    if (turn.role === 'system' && !keepSystemTurns) {
      for (const part of turn.parts) {
        if (part.type === 'text') {
          if (hasText(part.text)) lateSystem.push(part);
        } else if (part.type !== 'reasoning') throw unsupportedField(`${where}.content`, target.provider, `(a ${part.type} in a system message) is not supported`);
      }
      return;
    }
    let blocks = turnBlocks(request, target, turn, where);
    // Blocks the canonical model cannot carry (document, search_result …) go back where the client had them.
    const kept = keptBlocks.get(index);
    if (kept) blocks = withBlocksAt(blocks, kept);
    if (blocks.length === 0) {
      // Messages refuses an empty user message; an assistant's with nothing in it is left out.
      if (turn.role === 'user') throw emptyUserTurn(request, turn, target.provider);
      return;
    }
    const previous = merged.at(-1);
    if (previous && previous.role === turn.role) for (const block of blocks) previous.blocks.push(block);
    else merged.push({ role: turn.role, blocks, first: turn });
  });

  // Messages refuses a final assistant turn (a prefill) whose text ends in whitespace: cut there, and only there.
  const last = merged.at(-1);
  const lastBlock = last?.blocks.at(-1);
  if (last?.role === 'assistant' && lastBlock?.type === 'text') {
    const text = String(lastBlock.text).trimEnd();
    if (text) last.blocks[last.blocks.length - 1] = { ...lastBlock, text };
    else last.blocks.pop();
    if (last.blocks.length === 0) merged.pop();
  }

  const conversational = merged.filter((message) => message.role !== 'system');
  if (conversational.length === 0) {
    if (request.dialect === 'openai-completions') {
      throw invalidRequest(`'${field}' must not be empty: provider '${target.provider}' answers a conversation and refuses an empty message`, field);
    }
    throw invalidRequest(`'${field}' must hold at least one user or assistant message with content: provider '${target.provider}' cannot answer system instructions alone`, field);
  }
  if (conversational[0].role !== 'user') {
    throw assistantFirst(request, conversational[0].first, target.provider);
  }

  let before: Message | undefined;
  for (const message of merged) {
    if (message.role === 'system') continue;
    if (message.role === 'user') {
      const results = message.blocks.filter((block) => block.type === 'tool_result');
      const calls = before ? before.blocks.filter((block) => block.type === 'tool_use').map((block) => block.id as string) : [];
      const called = new Set(calls);
      for (const result of results) {
        if (!called.has(result.tool_use_id as string)) {
          throw invalidRequest(`The tool result for '${String(result.tool_use_id)}' in '${field}' answers no tool call of the assistant message before it`, field);
        }
      }
      const answered = new Set(results.map((block) => block.tool_use_id as string));
      const unanswered = calls.filter((id) => !answered.has(id));
      if (unanswered.length) throw invalidRequest(`The tool call(s) ${unanswered.join(', ')} in '${field}' need a tool result right after them`, field);
      // Messages wants the results at the start of the turn, before any text.
      message.blocks = [...results, ...message.blocks.filter((block) => block.type !== 'tool_result')];
    }
    before = message;
  }
  return merged.map((message) => ({ role: message.role, content: contentOf(message.blocks) }));
}

const FORCED = (choice: ToolChoice | undefined): boolean => choice?.mode === 'required' || choice?.mode === 'tool';

function messagesToolChoice(choice: ToolChoice | undefined, parallel: boolean): Json | undefined {
  const flag = parallel ? {} : { disable_parallel_tool_use: true };
  if (choice?.mode === 'tool') return { type: 'tool', name: choice.name, ...flag };
  if (choice?.mode === 'required') return { type: 'any', ...flag };
  if (choice?.mode === 'none') return { type: 'none' };
  if (choice?.mode === 'auto' || !parallel) return { type: 'auto', ...flag };
  return undefined;
}

/** Canonical tools back into the tool list, with a Messages client's server tools and tool fields put back where they were. */
function messagesTools(request: CanonicalRequest): Json[] {
  const tools = request.tools ?? [];
  const own = request.dialect === DIALECT;
  const server = own ? Object.keys(request.extensions).filter((key) => /^tools\[\d+\]$/.test(key)) : [];
  const out: Json[] = [];
  let next = 0;
  for (let index = 0; out.length < tools.length + server.length; index++) {
    const kept = own ? request.extensions[`tools[${index}]`] : undefined;
    if (kept !== undefined) {
      out.push(asRecord(kept));
      continue;
    }
    const tool = tools[next++];
    const schema = Object.keys(tool.parameters).length ? tool.parameters : { type: 'object', properties: {} };
    const extra: Json = {};
    if (own) {
      for (const [key, value] of Object.entries(request.extensions)) {
        const prefix = `tools[${index}].`;
        if (key.startsWith(prefix)) extra[key.slice(prefix.length)] = value;
      }
      if (tool.strict !== undefined) extra.strict = tool.strict;
    }
    out.push({ name: tool.name, ...(tool.description ? { description: tool.description } : {}), input_schema: schema, ...extra });
  }
  return out;
}

/** Whether an extension key is one `messagesTools` or the turns put back (not a top-level field). */
const isPlacedExtension = (key: string): boolean => /^tools\[\d+\]/.test(key) || /^messages\[\d+\]/.test(key) || key.startsWith('thinking.');

/** The Messages request body for any dialect's canonical request. */
export function encodeMessagesRequest(request: CanonicalRequest, target: EncodeTarget): EncodedRequest {
  const dropped: string[] = [];
  const own = request.dialect === DIALECT;
  const body: Json = {};
  if (!target.modelInBody) body.anthropic_version = target.provider === 'bedrock' ? BEDROCK_ANTHROPIC_VERSION : VERTEX_ANTHROPIC_VERSION;
  else body.model = request.model;

  // Sampling and fields Messages has no place for, checked first as the old translator did.
  if (request.presencePenalty !== undefined && request.presencePenalty !== 0) cannotHonour(request, target, dropped, 'presencePenalty');
  if (request.frequencyPenalty !== undefined && request.frequencyPenalty !== 0) cannotHonour(request, target, dropped, 'frequencyPenalty');
  if (request.seed !== undefined) cannotHonour(request, target, dropped, 'seed');
  if (request.logprobs !== undefined) cannotHonour(request, target, dropped, 'logprobs', REFUSAL_REASONS.logprobs);
  if (request.responseFormat !== undefined && request.responseFormat.type !== 'text') cannotHonour(request, target, dropped, 'responseFormat');
  if (request.n !== undefined && request.n > 1) cannotHonour(request, target, dropped, 'n');
  if (!own) {
    for (const [key, value] of Object.entries(request.extensions)) {
      if (value === undefined || value === null || isDefaultValue(key, value)) continue;
      const decoderWords = request.unsupportedWhy?.[fieldName(request, key)];
      cannotHonour(request, target, dropped, key, decoderWords ? undefined : REFUSAL_REASONS[key]);
    }
  }
  let temperature = request.temperature;
  if (temperature !== undefined && temperature > MAX_TEMPERATURE) {
    cannotHonour(request, target, dropped, 'temperature', `above ${MAX_TEMPERATURE} is not supported (the provider accepts 0 to 1)`);
    temperature = undefined;
  }

  const lateSystem: TextPart[] = [];
  const messages = buildMessages(request, target, lateSystem);
  const defaultMax = request.dialect === 'openai-completions' ? COMPLETION_BOUNDS.max_tokens.default : DEFAULT_CHAT_MAX_TOKENS;
  let maxTokens = request.maxOutputTokens ?? defaultMax;

  // Reasoning: a budget (given, or from the effort level) below max_tokens, or adaptive thinking for a Messages client.
  let thinking: Json | undefined;
  let effort: string | undefined;
  let topK = request.topK;
  let topP = request.topP;
  const reasoning = request.reasoning;
  if (reasoning?.enabled) {
    // With thinking on, Messages wants the last assistant message of a tool loop to start with its signed
    // thinking, and takes no prefilled answer.
    const conversational = messages.filter((message) => message.role !== 'system');
    const lastAssistant = conversational.filter((message) => message.role === 'assistant').at(-1);
    const lastBlocks = Array.isArray(lastAssistant?.content) ? lastAssistant.content : [];
    const startsWithThinking = lastBlocks[0]?.type === 'thinking' || lastBlocks[0]?.type === 'redacted_thinking';
    const unsignedToolTurn = lastBlocks.some((block) => block.type === 'tool_use') && !startsWithThinking;
    if (FORCED(request.toolChoice)) cannotHonour(request, target, dropped, 'reasoning', 'together with a forced tool choice is not supported');
    else if (conversational.at(-1)?.role === 'assistant') cannotHonour(request, target, dropped, 'reasoning', 'together with a prefilled assistant message is not supported');
    else if (unsignedToolTurn && !own) {
      cannotHonour(request, target, dropped, 'reasoning', 'is not supported on a turn that answers tool calls made without the provider’s signed thinking');
    } else if (own && reasoning.budgetTokens === undefined) {
      thinking = { type: 'adaptive' };
    } else {
      let budget = reasoning.budgetTokens ?? EFFORT_BUDGETS[reasoning.effort ?? 'medium'];
      if (request.maxOutputTokens === undefined) maxTokens = Math.max(maxTokens, budget + defaultMax);
      if (budget >= maxTokens) budget = maxTokens - 1;
      if (budget < MIN_THINKING_BUDGET) cannotHonour(request, target, dropped, 'reasoning', `needs ${fieldName(request, 'maxOutputTokens')} above ${MIN_THINKING_BUDGET} on this provider`);
      else thinking = { type: 'enabled', budget_tokens: budget };
    }
    if (thinking) {
      // Thinking takes no sampling changes besides top_p of 0.95 and above.
      if (temperature !== undefined && temperature !== 1) {
        cannotHonour(request, target, dropped, 'temperature', 'other than 1 is not supported together with reasoning');
        temperature = undefined;
      }
      if (topK !== undefined) {
        cannotHonour(request, target, dropped, 'topK', 'is not supported together with reasoning');
        topK = undefined;
      }
      if (topP !== undefined && topP < 0.95) {
        cannotHonour(request, target, dropped, 'topP', 'below 0.95 is not supported together with reasoning');
        topP = undefined;
      }
    }
  } else if (reasoning && own) thinking = { type: 'disabled' };
  // Claude's newer models refuse temperature and top_p together. A client of another dialect whose body
  // carries both on every turn (Gemini CLI) gets the one that matters, temperature; Anthropic's own
  // clients and refusing dialects send what they chose.
  if (!own && request.onUnsupported === 'drop' && temperature !== undefined && topP !== undefined) {
    cannotHonour(request, target, dropped, 'topP', 'together with temperature is not supported by Claude models');
    topP = undefined;
  }
  if (own && reasoning?.effort) effort = reasoning.effort === 'xhigh' ? 'max' : reasoning.effort === 'minimal' ? 'low' : reasoning.effort;
  if (thinking && own) {
    for (const [key, value] of Object.entries(request.extensions)) if (key.startsWith('thinking.')) thinking[key.slice('thinking.'.length)] = value;
  }

  if (!thinking || thinking.type === 'disabled') {
    // Without thinking, an assistant message in the final position may hold no thinking blocks.
    const last = messages.at(-1);
    if (last?.role === 'assistant' && Array.isArray(last.content)) {
      const kept = last.content.filter((block) => block.type !== 'thinking' && block.type !== 'redacted_thinking');
      if (kept.length === 0) messages.pop();
      else last.content = contentOf(kept);
    }
  }
  body.max_tokens = maxTokens;
  body.messages = messages;
  if (request.tools?.length || (own && Object.keys(request.extensions).some((key) => /^tools\[\d+\]$/.test(key)))) {
    body.tools = messagesTools(request);
    const choice = messagesToolChoice(request.toolChoice, request.parallelToolCalls !== false);
    if (choice) body.tool_choice = choice;
  }
  const system = [...request.system.filter((part) => hasText(part.text)), ...lateSystem];
  if (system.length) {
    body.system = own || system.some((part) => part.cacheControl) ? system.map(textBlock) : system.map((part) => part.text).join('\n\n');
  }
  if (request.stop?.length) body.stop_sequences = request.stop;
  if (temperature !== undefined) body.temperature = temperature;
  if (topP !== undefined) body.top_p = topP;
  if (topK !== undefined) body.top_k = topK;
  if (request.user !== undefined) body.metadata = { user_id: request.user };
  if (thinking) body.thinking = thinking;
  if (request.stream) body.stream = true;
  if (own) {
    for (const [key, value] of Object.entries(request.extensions)) {
      if (isPlacedExtension(key)) continue;
      if (key === 'metadata') body.metadata = { ...asRecord(value), ...asRecord(body.metadata) };
      else if (key === 'output_config') body.output_config = { ...asRecord(value) };
      else body[key] = value;
    }
    if (effort) body.output_config = { ...asRecord(body.output_config), effort };
  }
  return { body, dropped };
}

// ---- Answer: Messages → canonical events ---------------------------------------------------------

export function mapStopReason(stopReason: unknown): FinishReason | null {
  switch (stopReason) {
    case null:
    case undefined:
      return null;
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    case 'stop_sequence':
      return 'stop_sequence';
    case 'pause_turn':
      return 'pause';
    // end_turn and anything newer.
    default:
      return 'stop';
  }
}

export interface MessagesUsage {
  input: number;
  output: number;
  cacheCreation?: number;
  cacheRead?: number;
}

/**
 * Stream events carry cumulative counts, and a later event may leave out what an earlier one gave. The one
 * reader of Messages usage: translated answers and answers relayed unchanged (usage-from-body.ts) alike.
 */
export function readUsage(value: unknown, into: MessagesUsage): boolean {
  const usage = asRecord(value);
  let seen = false;
  if (typeof usage.input_tokens === 'number') (into.input = usage.input_tokens), (seen = true);
  if (typeof usage.output_tokens === 'number') (into.output = usage.output_tokens), (seen = true);
  if (typeof usage.cache_creation_input_tokens === 'number') (into.cacheCreation = usage.cache_creation_input_tokens), (seen = true);
  if (typeof usage.cache_read_input_tokens === 'number') (into.cacheRead = usage.cache_read_input_tokens), (seen = true);
  return seen;
}

/** `input_tokens` leaves out cached tokens; canonical `inputTokens` counts every prompt token. */
export function canonicalUsage(usage: MessagesUsage): Usage {
  return {
    inputTokens: usage.input + (usage.cacheCreation ?? 0) + (usage.cacheRead ?? 0),
    outputTokens: usage.output,
    ...(usage.cacheRead !== undefined ? { cacheReadTokens: usage.cacheRead } : {}),
    ...(usage.cacheCreation !== undefined ? { cacheWriteTokens: usage.cacheCreation } : {}),
  };
}

const fallbackId = (): string => `msg_${Date.now().toString(36)}`;

function finishEvent(delta: Json): CanonicalEvent[] {
  const reason = mapStopReason(delta.stop_reason);
  if (!reason) return [];
  const stopSequence = asString(delta.stop_sequence);
  return [{ type: 'finish', reason, ...(reason === 'stop_sequence' && stopSequence !== undefined ? { stopSequence } : {}) }];
}

export function decodeMessagesResponse(json: unknown, request: CanonicalRequest): CanonicalAnswer {
  const message = asRecord(json);
  const answer: CanonicalAnswer = { id: asString(message.id) ?? fallbackId(), model: asString(message.model) ?? request.model, content: [], finishReason: null };
  for (const block of asArray(message.content).map(asRecord)) {
    if (block.type === 'text') {
      const text = asString(block.text) ?? '';
      const last = answer.content.at(-1);
      if (last?.type === 'text') last.text += text;
      else answer.content.push({ type: 'text', text });
    } else if (block.type === 'thinking') {
      const signature = asString(block.signature);
      answer.content.push({ type: 'reasoning', text: asString(block.thinking) ?? '', ...(signature ? { signature } : {}) });
    } else if (block.type === 'redacted_thinking') {
      answer.content.push({ type: 'reasoning', text: '', encrypted: asString(block.data) ?? '' });
    } else if (block.type === 'tool_use') {
      answer.content.push({ type: 'tool_call', id: asString(block.id) ?? '', name: asString(block.name) ?? '', arguments: JSON.stringify(block.input ?? {}) });
    }
    // Server tool blocks (server_tool_use, web_search_tool_result …) have no canonical place.
  }
  const [finish] = finishEvent(message);
  if (finish?.type === 'finish') {
    answer.finishReason = finish.reason;
    if (finish.stopSequence !== undefined) answer.stopSequence = finish.stopSequence;
  }
  const usage: MessagesUsage = { input: 0, output: 0 };
  if (readUsage(message.usage, usage)) answer.usage = canonicalUsage(usage);
  return answer;
}

const CONTRACT_ERROR_TYPES = new Set(['invalid_request_error', 'authentication_error', 'permission_error', 'not_found_error', 'rate_limit_error', 'api_error']);

/** Anthropic error types that are not the contract's (overloaded_error, request_too_large …) read as api_error; the code keeps them. */
function contractErrorType(anthropicType: string | undefined): string {
  return anthropicType && CONTRACT_ERROR_TYPES.has(anthropicType) ? anthropicType : 'api_error';
}

/** Reads Messages SSE events (message_start … message_stop) into canonical events as each arrives. */
export function createMessagesStreamDecoder(request: CanonicalRequest): StreamDecoder {
  void request;
  const usage: MessagesUsage = { input: 0, output: 0 };
  let stopped = false;
  /** Content block index → tool call index (tool calls are numbered from 0). */
  const toolIndex = new Map<number, number>();
  return {
    framing: 'sse',
    onEvent(event: UpstreamEvent): CanonicalEvent[] {
      if (event.kind !== 'sse') return [];
      let data: Json;
      try {
        data = asRecord(JSON.parse(event.data));
      } catch {
        throw new ProviderStreamError(`The provider sent a stream event that is not JSON: ${event.data.slice(0, 200)}`, 'api_error', 'bad_provider_stream');
      }
      switch (data.type ?? event.event) {
        case 'message_start': {
          const message = asRecord(data.message);
          const out: CanonicalEvent[] = [{ type: 'start', ...(asString(message.id) ? { id: asString(message.id) } : {}), ...(asString(message.model) ? { model: asString(message.model) } : {}) }];
          if (readUsage(message.usage, usage)) out.push({ type: 'usage', usage: canonicalUsage(usage) });
          return out;
        }
        case 'content_block_start': {
          const block = asRecord(data.content_block);
          const blockIndex = asNumber(data.index);
          if (block.type === 'text') {
            const text = asString(block.text);
            return text ? [{ type: 'text', text }] : [];
          }
          if (block.type === 'thinking') {
            const out: CanonicalEvent[] = [];
            const text = asString(block.thinking);
            if (text) out.push({ type: 'reasoning', text });
            const signature = asString(block.signature);
            if (signature) out.push({ type: 'reasoning_signature', signature });
            return out;
          }
          if (block.type === 'redacted_thinking') return [{ type: 'reasoning_encrypted', data: asString(block.data) ?? '' }];
          if (block.type === 'tool_use') {
            const index = toolIndex.size;
            toolIndex.set(blockIndex, index);
            const out: CanonicalEvent[] = [{ type: 'tool_call_start', index, id: asString(block.id) ?? '', name: asString(block.name) ?? '' }];
            const input = asRecord(block.input);
            if (Object.keys(input).length) out.push({ type: 'tool_call_delta', index, arguments: JSON.stringify(input) });
            return out;
          }
          return [];
        }
        case 'content_block_delta': {
          const delta = asRecord(data.delta);
          switch (delta.type) {
            case 'text_delta': {
              const text = asString(delta.text);
              return text ? [{ type: 'text', text }] : [];
            }
            case 'thinking_delta': {
              const text = asString(delta.thinking);
              return text ? [{ type: 'reasoning', text }] : [];
            }
            case 'signature_delta': {
              const signature = asString(delta.signature);
              return signature ? [{ type: 'reasoning_signature', signature }] : [];
            }
            case 'input_json_delta': {
              const index = toolIndex.get(asNumber(data.index));
              const json = asString(delta.partial_json);
              return index !== undefined && json ? [{ type: 'tool_call_delta', index, arguments: json }] : [];
            }
            // citations_delta and newer kinds have no canonical place.
            default:
              return [];
          }
        }
        case 'content_block_stop': {
          const index = toolIndex.get(asNumber(data.index));
          return index !== undefined ? [{ type: 'tool_call_end', index }] : [];
        }
        case 'message_delta': {
          const out = finishEvent(asRecord(data.delta));
          if (readUsage(data.usage, usage)) out.push({ type: 'usage', usage: canonicalUsage(usage) });
          return out;
        }
        case 'message_stop':
          stopped = true;
          return [];
        case 'error': {
          const error = asRecord(data.error);
          const type = asString(error.type);
          throw new ProviderStreamError(asString(error.message) ?? 'The provider reported an error in the stream', contractErrorType(type), type ?? null);
        }
        // ping and event types added later.
        default:
          return [];
      }
    },
    onEnd(): CanonicalEvent[] {
      if (!stopped) throw new ProviderStreamError('The provider stream ended before message_stop', 'api_error', 'stream_incomplete');
      return [];
    },
  };
}

// ---- Answer: canonical → Messages (for Messages clients of other providers) ----------------------

const STOP_REASONS: Readonly<Record<FinishReason, string>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
  stop_sequence: 'stop_sequence',
  pause: 'pause_turn',
  error: 'end_turn',
};

/** Anthropic's usage fields: its `input_tokens` leaves out the cached tokens canonical `inputTokens` counts. */
function messagesUsage(usage: Usage | undefined): Json {
  const cacheRead = usage?.cacheReadTokens ?? 0;
  const cacheWrite = usage?.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, (usage?.inputTokens ?? 0) - cacheRead - cacheWrite),
    output_tokens: usage?.outputTokens ?? 0,
    cache_creation_input_tokens: cacheWrite,
    cache_read_input_tokens: cacheRead,
  };
}

const messageId = (id: string): string => (id.startsWith('msg_') ? id : id ? `msg_${id}` : fallbackId());

function toolInput(text: string): Json {
  try {
    return asRecord(JSON.parse(text || '{}'));
  } catch {
    return {};
  }
}

export function encodeMessagesResponse(answer: CanonicalAnswer): object {
  const content: Json[] = [];
  for (const part of answer.content) {
    if (part.type === 'text') {
      if (part.text) content.push({ type: 'text', text: part.text });
    } else if (part.type === 'reasoning') {
      if (part.text || part.signature) content.push({ type: 'thinking', thinking: part.text, signature: part.signature ?? '' });
      if (part.encrypted) content.push({ type: 'redacted_thinking', data: part.encrypted });
    } else content.push({ type: 'tool_use', id: part.id, name: part.name, input: toolInput(part.arguments) });
  }
  return {
    id: messageId(answer.id),
    type: 'message',
    role: 'assistant',
    model: answer.model,
    content,
    stop_reason: STOP_REASONS[answer.finishReason ?? 'stop'],
    stop_sequence: answer.stopSequence ?? null,
    usage: messagesUsage(answer.usage),
  };
}

const sseEvent = (type: string, data: object): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

const ANTHROPIC_ERROR_TYPES = new Set([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'api_error',
  'overloaded_error',
]);

/** Anthropic's error type for a gateway error: its own type when it is one of Anthropic's, else by status. */
export function anthropicErrorType(status: number, type?: string | null): string {
  if (type && ANTHROPIC_ERROR_TYPES.has(type) && type !== 'api_error') return type;
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 503 || status === 529) return 'overloaded_error';
  if (status >= 500) return 'api_error';
  if (status >= 400) return 'invalid_request_error';
  return 'api_error';
}

/** A provider's own Anthropic type (kept in `code`, e.g. overloaded_error) wins over the contract's. */
function errorTypeOf(error: GatewayError): string {
  const code = typeof error.code === 'string' && ANTHROPIC_ERROR_TYPES.has(error.code) ? error.code : undefined;
  return anthropicErrorType(error.status, code ?? error.type);
}

export function messagesErrorBody(error: GatewayError): object {
  return { type: 'error', error: { type: errorTypeOf(error), message: error.message } };
}

type OpenBlock = { kind: 'text' | 'thinking'; index: number; signed: boolean } | { kind: 'tool'; index: number; tool: number };

/** Writes the Messages SSE stream (message_start … message_stop) from canonical events, block by block. */
export function createMessagesStreamEncoder(request: CanonicalRequest): StreamEncoder {
  let started = false;
  let startUsageKnown = false;
  let open: OpenBlock | undefined;
  let nextBlock = 0;
  const toolBlocks = new Map<number, number>();
  let usage: Usage | undefined;
  let finish: { reason: FinishReason; stopSequence?: string } | undefined;

  const start = (id?: string, model?: string): string => {
    if (started) return '';
    started = true;
    startUsageKnown = usage !== undefined;
    const message = {
      id: messageId(id ?? fallbackId()),
      type: 'message',
      role: 'assistant',
      model: model ?? request.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...messagesUsage(usage), output_tokens: usage?.outputTokens ?? 0 },
    };
    return sseEvent('message_start', { message });
  };
  const close = (): string => {
    if (!open) return '';
    const index = open.index;
    open = undefined;
    return sseEvent('content_block_stop', { index });
  };
  const openBlock = (block: OpenBlock, contentBlock: Json): string => {
    const out = close() + sseEvent('content_block_start', { index: block.index, content_block: contentBlock });
    open = block;
    return out;
  };
  const openThinking = (): string => {
    if (open?.kind === 'thinking' && !open.signed) return '';
    return openBlock({ kind: 'thinking', index: nextBlock++, signed: false }, { type: 'thinking', thinking: '', signature: '' });
  };

  return {
    onEvent(event: CanonicalEvent): string {
      if (event.type === 'start') return start(event.id, event.model);
      if (event.type === 'usage') {
        usage = event.usage;
        return '';
      }
      if (event.type === 'finish') {
        finish = { reason: event.reason, ...(event.stopSequence !== undefined ? { stopSequence: event.stopSequence } : {}) };
        return '';
      }
      if (event.type === 'logprobs') return '';
      let out = start();
      switch (event.type) {
        case 'text':
          if (!event.text) return out;
          if (open?.kind !== 'text') out += openBlock({ kind: 'text', index: nextBlock++, signed: false }, { type: 'text', text: '' });
          return out + sseEvent('content_block_delta', { index: open!.index, delta: { type: 'text_delta', text: event.text } });
        case 'reasoning':
          if (!event.text) return out;
          out += openThinking();
          return out + sseEvent('content_block_delta', { index: open!.index, delta: { type: 'thinking_delta', thinking: event.text } });
        case 'reasoning_signature': {
          out += openThinking();
          const block = open!;
          if (block.kind === 'thinking') block.signed = true;
          return out + sseEvent('content_block_delta', { index: block.index, delta: { type: 'signature_delta', signature: event.signature } });
        }
        case 'reasoning_encrypted': {
          const index = nextBlock++;
          out += close();
          return out + sseEvent('content_block_start', { index, content_block: { type: 'redacted_thinking', data: event.data } }) + sseEvent('content_block_stop', { index });
        }
        case 'tool_call_start': {
          const index = nextBlock++;
          toolBlocks.set(event.index, index);
          return out + openBlock({ kind: 'tool', index, tool: event.index }, { type: 'tool_use', id: event.id, name: event.name, input: {} });
        }
        case 'tool_call_delta': {
          const index = toolBlocks.get(event.index);
          if (index === undefined || !event.arguments) return out;
          return out + sseEvent('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: event.arguments } });
        }
        case 'tool_call_end':
          return open?.kind === 'tool' && open.tool === event.index ? out + close() : out;
      }
    },
    onEnd(): string {
      let out = start() + close();
      const usageOut: Json = { output_tokens: usage?.outputTokens ?? 0 };
      if (usage && !startUsageKnown) Object.assign(usageOut, messagesUsage(usage));
      const reason = finish ?? { reason: 'stop' as const };
      out += sseEvent('message_delta', { delta: { stop_reason: STOP_REASONS[reason.reason], stop_sequence: reason.stopSequence ?? null }, usage: usageOut });
      return out + sseEvent('message_stop', {});
    },
    onError(error: GatewayError): string {
      return sseEvent('error', { error: { type: errorTypeOf(error), message: error.message } });
    },
  };
}

export const anthropicMessagesDialect: DialectCodec = {
  dialect: DIALECT,
  decodeRequest: decodeMessagesRequest,
  encodeResponse: (answer) => encodeMessagesResponse(answer),
  createStreamEncoder: (request) => createMessagesStreamEncoder(request),
  errorBody: messagesErrorBody,
};

export const anthropicMessagesProvider: ProviderCodec = {
  format: DIALECT,
  encodeRequest: encodeMessagesRequest,
  decodeResponse: decodeMessagesResponse,
  createStreamDecoder: createMessagesStreamDecoder,
};
