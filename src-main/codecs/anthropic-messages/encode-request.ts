// Canonical request (of any dialect) → Messages body, in the shape the real API insists on, for Anthropic,
// Claude on Vertex (rawPredict) and Claude on Bedrock (InvokeModel).
import { COMPLETION_BOUNDS } from '../../core/spec-bounds.js';
import { invalidRequest, unsupportedField } from '../../core/errors.js';
import { isDefaultValue, REFUSAL_REASONS } from '../openai-chat/index.js';
import {
  asRecord,
  assistantFirst,
  cannotHonour,
  emptyUserTurn,
  fieldName,
  turnSource,
  type CanonicalRequest,
  type ContentPart,
  type EncodedRequest,
  type EncodeTarget,
  type ImageSource,
  type ReasoningEffort,
  type TextPart,
  type ToolChoice,
  type Turn,
} from '../canonical.js';
import { DIALECT } from './format.js';

type Json = Record<string, unknown>;

/**
 * OpenAI's chat API has no token limit by default, but Messages requires `max_tokens`. 4096 is the
 * largest output every current Claude model accepts (the older Haiku models stop there), so a chat
 * that names no limit is only cut where the model itself would have to stop.
 */
export const DEFAULT_CHAT_MAX_TOKENS = 4096;

/** Messages takes a temperature of 0 to 1; OpenAI's 0 to 2 cannot be squeezed in without changing its meaning. */
const MAX_TEMPERATURE = 1;

/**
 * Thinking budgets for an effort level asked for in another dialect (Chat's `reasoning_effort`, Responses'
 * `reasoning.effort`). Messages' smallest budget is 1024; each level roughly doubles the one below, and the
 * largest stays small enough that budget + the default answer room fits every thinking model's output limit.
 */
export const EFFORT_BUDGETS: Readonly<Record<ReasoningEffort, number>> = { minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 24576 };
const MIN_THINKING_BUDGET = 1024;

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
  // A host that takes the model in its URL adds what it wants instead (Vertex: its prepareBody).
  if (target.modelInBody) body.model = request.model;

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
