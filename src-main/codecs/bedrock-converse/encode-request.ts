// Canonical request → Converse / ConverseStream body (the model goes in the URL, or `modelId` in the body).
import { invalidRequest, unsupportedField } from '../../core/errors.js';
import { COMPLETION_BOUNDS } from '../../core/spec-bounds.js';
import {
  asRecord,
  assistantFirst,
  cannotHonour,
  emptyUserTurn,
  fieldName,
  toolArgumentsObject,
  type CanonicalRequest,
  type EncodedRequest,
  type EncodeTarget,
  type ImagePart,
  type ReasoningEffort,
  type ToolResultContent,
  type Turn,
} from '../canonical.js';

type Block = Record<string, unknown>;

interface ConverseMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

/** Converse's `requestMetadata` values must match this (Bedrock runtime model, RequestMetadataValueString). */
const REQUEST_METADATA_VALUE = /^[a-zA-Z0-9\s:_@$#=/+,.-]{0,256}$/;

/** The image formats ImageBlock takes, by media type. */
const IMAGE_FORMATS: Readonly<Record<string, string>> = { 'image/png': 'png', 'image/jpeg': 'jpeg', 'image/jpg': 'jpeg', 'image/gif': 'gif', 'image/webp': 'webp' };

/** The name of the conversation field in the client's dialect (`messages`, `input`, `prompt`). */
const turnsField = (request: CanonicalRequest): string => fieldName(request, 'turns');

/** Converse refuses text blocks that are empty or only white space. */
const isBlank = (text: string): boolean => text.trim() === '';

function imageBlock(part: ImagePart, request: CanonicalRequest, target: EncodeTarget): Block {
  if (part.source.kind !== 'base64') throw unsupportedField(turnsField(request), target.provider, 'with an image given by URL is not supported (send it as a base64 data: URL)');
  const format = IMAGE_FORMATS[part.source.mediaType.toLowerCase()];
  if (!format) throw unsupportedField(turnsField(request), target.provider, `with an image of type '${part.source.mediaType}' is not supported (png, jpeg, gif or webp)`);
  return { image: { format, source: { bytes: part.source.data } } };
}

function toolResultContent(content: ToolResultContent, isError: boolean, request: CanonicalRequest, target: EncodeTarget): Block[] {
  const parts = typeof content === 'string' ? [{ type: 'text' as const, text: content }] : content;
  const blocks = parts.flatMap((part): Block[] => (part.type === 'text' ? (isBlank(part.text) ? [] : [{ text: part.text }]) : [imageBlock(part, request, target)]));
  // A failed result must say something.
  if (isError && blocks.length === 0) blocks.push({ text: 'error' });
  return blocks;
}

/**
 * The conversation as Converse messages: starting with the user, strictly alternating (consecutive turns
 * of one role merged, tool results first in theirs), no empty or blank blocks, every tool result answering
 * a tool use of the assistant turn before it. System turns in the middle join the system blocks.
 */
function converseMessages(request: CanonicalRequest, target: EncodeTarget): { messages: ConverseMessage[]; system: string[]; firstTurn?: Turn } {
  const system = request.system.flatMap((part) => (isBlank(part.text) ? [] : [part.text]));
  // Each message's tool results and other blocks are gathered apart and joined once at the end: merging a
  // turn into the message before it is then two appends, not a search of the message (quadratic over a
  // run of one-result turns, which is how Chat sends the results of parallel tool calls).
  const merged: { role: ConverseMessage['role']; results: Block[]; blocks: Block[] }[] = [];
  /** The turn that opened the conversation, for naming it when it is the assistant's. */
  let firstTurn: Turn | undefined;
  for (const turn of request.turns) {
    if (turn.role === 'system') {
      for (const part of turn.parts) if (part.type === 'text' && !isBlank(part.text)) system.push(part.text);
      continue;
    }
    const results: Block[] = [];
    const blocks: Block[] = [];
    for (const part of turn.parts) {
      switch (part.type) {
        case 'text':
          if (!isBlank(part.text)) blocks.push({ text: part.text });
          break;
        case 'image':
          blocks.push(imageBlock(part, request, target));
          break;
        case 'reasoning':
          // Thinking goes back only as the model gave it: signed, or redacted.
          if (turn.role !== 'assistant') break;
          if (part.encrypted) blocks.push({ reasoningContent: { redactedContent: part.encrypted } });
          else if (part.signature) blocks.push({ reasoningContent: { reasoningText: { text: part.text, signature: part.signature } } });
          break;
        case 'tool_call':
          if (turn.role !== 'assistant') throw invalidRequest(`A tool call in '${turnsField(request)}' must be in an assistant turn`, turnsField(request));
          blocks.push({ toolUse: { toolUseId: part.id, name: part.name, input: toolArgumentsObject(part.arguments, request) } });
          break;
        case 'tool_result':
          if (turn.role !== 'user') throw invalidRequest(`A tool result in '${turnsField(request)}' must be in a user turn`, turnsField(request));
          results.push({ toolResult: { toolUseId: part.callId, content: toolResultContent(part.content, part.isError === true, request, target), ...(part.isError ? { status: 'error' } : {}) } });
          break;
      }
    }
    if (results.length === 0 && blocks.length === 0) {
      // Converse refuses an empty user message; an assistant's with nothing in it is left out.
      if (turn.role === 'user') throw emptyUserTurn(request, turn, target.provider);
      continue;
    }
    firstTurn ??= turn;
    const previous = merged.at(-1);
    if (previous?.role === turn.role) {
      for (const block of results) previous.results.push(block);
      for (const block of blocks) previous.blocks.push(block);
    } else {
      merged.push({ role: turn.role, results, blocks });
    }
  }
  const messages = merged.map(({ role, results, blocks }): ConverseMessage => ({ role, content: results.concat(blocks) }));
  checkToolResults(messages, request);
  return { messages, system, firstTurn };
}

/** Converse wants each assistant turn's tool uses answered, all and only them, in the user turn right after. */
function checkToolResults(messages: ConverseMessage[], request: CanonicalRequest): void {
  const field = turnsField(request);
  messages.forEach((message, index) => {
    if (message.role !== 'user') return;
    const previous = messages[index - 1];
    const asked = new Set((previous?.content ?? []).flatMap((block) => ('toolUse' in block ? [String(asRecord(block.toolUse).toolUseId)] : [])));
    const answered = message.content.flatMap((block) => ('toolResult' in block ? [String(asRecord(block.toolResult).toolUseId)] : []));
    const unknown = answered.find((id) => !asked.has(id));
    if (unknown !== undefined) throw invalidRequest(`A tool result in '${field}' answers the call '${unknown}', which the assistant turn before it did not make`, field);
    const answeredIds = new Set(answered);
    const missing = [...asked].find((id) => !answeredIds.has(id));
    if (missing !== undefined) throw invalidRequest(`The tool call '${missing}' in '${field}' has no result in the user turn after it`, field);
  });
}

const toolNamesOf = (messages: ConverseMessage[]): string[] => [
  ...new Set(messages.flatMap((message) => message.content.flatMap((block) => ('toolUse' in block ? [String(asRecord(block.toolUse).name)] : [])))),
];

/**
 * Tools as toolSpecs and the choice as auto / any / tool. Converse has no "none": with no tool blocks in
 * the conversation, leaving the tools out honours it; otherwise it needs the tools declared. Tool blocks
 * in the conversation need a toolConfig even when the request declares no tools: they are declared from
 * their names then.
 */
function toolConfig(request: CanonicalRequest, target: EncodeTarget, dropped: string[], messages: ConverseMessage[]): Record<string, unknown> | undefined {
  const used = toolNamesOf(messages);
  const usesTools = messages.some((message) => message.content.some((block) => 'toolUse' in block || 'toolResult' in block));
  const choice = request.toolChoice;
  const declared = request.tools ?? [];
  if (choice?.mode === 'none') {
    if (!usesTools) return undefined;
    cannotHonour(request, target, dropped, 'toolChoice', "'none' is not supported once the conversation holds tool calls");
  }
  const tools = declared.map((tool) => ({ toolSpec: { name: tool.name, ...(tool.description ? { description: tool.description } : {}), inputSchema: { json: tool.parameters } } }));
  for (const name of used) if (!declared.some((tool) => tool.name === name)) tools.push({ toolSpec: { name, inputSchema: { json: { type: 'object' } } } });
  if (tools.length === 0) return undefined;
  const toolChoice = choice?.mode === 'required' ? { any: {} } : choice?.mode === 'tool' ? { tool: { name: choice.name } } : choice?.mode === 'auto' ? { auto: {} } : undefined;
  return { tools, ...(toolChoice ? { toolChoice } : {}) };
}

/** Claude's thinking budgets for an effort level (1,024 is the least Claude takes). */
const EFFORT_BUDGET: Record<ReasoningEffort, number> = { minimal: 1024, low: 2048, medium: 8192, high: 16384, xhigh: 32768 };

/** Reasoning on Bedrock is model-specific: Claude takes `thinking` in additionalModelRequestFields. */
function reasoningFields(request: CanonicalRequest, target: EncodeTarget, dropped: string[]): Record<string, unknown> {
  const reasoning = request.reasoning;
  if (!reasoning?.enabled) return {};
  if (!/anthropic\.claude/.test(request.model)) {
    cannotHonour(request, target, dropped, 'reasoning', 'is not supported for this model through Converse');
    return {};
  }
  const budget = reasoning.budgetTokens ?? EFFORT_BUDGET[reasoning.effort ?? 'medium'];
  return { thinking: { type: 'enabled', budget_tokens: budget } };
}

export function encodeRequest(request: CanonicalRequest, target: EncodeTarget): EncodedRequest {
  const dropped: string[] = [];
  const { messages, system, firstTurn } = converseMessages(request, target);
  const field = turnsField(request);
  if (messages.length === 0) {
    // A prompt of token IDs (or several prompts) leaves no turns: its refusal says more than "no messages".
    for (const name of Object.keys(request.extensions)) cannotHonour(request, target, [], name);
    throw invalidRequest(`'${field}' must hold at least one user or assistant message: provider '${target.provider}' cannot answer system instructions alone`, field);
  }
  if (messages[0].role !== 'user') throw assistantFirst(request, firstTurn!, target.provider);

  const body: Record<string, unknown> = { messages };
  if (target.modelInBody) body.modelId = request.model;
  if (system.length) body.system = system.map((text) => ({ text }));

  // A legacy completion without max_tokens means 16 (OpenAI's default); elsewhere the model's default applies.
  const maxTokens = request.maxOutputTokens ?? (request.dialect === 'openai-completions' ? COMPLETION_BOUNDS.max_tokens.default : undefined);
  const inferenceConfig: Record<string, unknown> = {};
  if (maxTokens !== undefined) inferenceConfig.maxTokens = maxTokens;
  if (request.temperature !== undefined) inferenceConfig.temperature = request.temperature;
  if (request.topP !== undefined) inferenceConfig.topP = request.topP;
  if (request.stop?.length) inferenceConfig.stopSequences = request.stop;
  if (Object.keys(inferenceConfig).length) body.inferenceConfig = inferenceConfig;

  const tools = toolConfig(request, target, dropped, messages);
  if (tools) body.toolConfig = tools;
  if (request.parallelToolCalls === false) cannotHonour(request, target, dropped, 'parallelToolCalls');

  // Model-specific parameters travel in additionalModelRequestFields (Claude and Mistral take top_k; other
  // models answer with their own ValidationException, which is relayed).
  const additional: Record<string, unknown> = { ...(request.topK !== undefined ? { top_k: request.topK } : {}), ...reasoningFields(request, target, dropped) };
  if (Object.keys(additional).length) body.additionalModelRequestFields = additional;

  if (request.user !== undefined) {
    if (REQUEST_METADATA_VALUE.test(request.user)) body.requestMetadata = { user: request.user };
    else cannotHonour(request, target, dropped, 'user', "with characters outside Bedrock's request metadata pattern (letters, digits, spaces and :_@$#=/+,.- ; at most 256) is not supported");
  }
  if (request.seed !== undefined) cannotHonour(request, target, dropped, 'seed');
  // A penalty of 0 is no penalty: nothing is lost.
  if (request.presencePenalty) cannotHonour(request, target, dropped, 'presencePenalty');
  if (request.frequencyPenalty) cannotHonour(request, target, dropped, 'frequencyPenalty');
  if (request.logprobs) cannotHonour(request, target, dropped, 'logprobs', 'is not supported (the provider returns no log probabilities)');
  if (request.responseFormat && request.responseFormat.type !== 'text') cannotHonour(request, target, dropped, 'responseFormat', `of type '${request.responseFormat.type}' is not supported`);
  for (const name of Object.keys(request.extensions)) cannotHonour(request, target, dropped, name);
  return { body, dropped };
}
