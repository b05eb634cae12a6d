// Turns a logged request back into a Playground draft ("Open in Playground"), so a request seen
// in the Logs can be re-run and tweaked. Only the body comes back: keys are never in the log.
import { INITIAL_PARAMETERS, isReasoningEffort, NUMERIC_CONTROLS, type ParameterValues, type PlaygroundMode } from './parameters';

export interface RequestDraft {
  mode: PlaygroundMode;
  model: string;
  prompt: string;
  /** A prompt logged as an array (of strings or tokens) comes back as its JSON text. */
  promptIsJson: boolean;
  /** Chat history before the last user message (which becomes the prompt). */
  messages: Array<{ role: 'system' | 'user' | 'assistant'; content: string }>;
  parameters: ParameterValues;
}

function asRecord(value: unknown): Record<string, unknown> | null {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** A developer message (Chat, Responses) is the system prompt under its newer name. */
function chatRole(value: unknown): 'system' | 'user' | 'assistant' | null {
  return value === 'developer' ? 'system' : value === 'system' || value === 'user' || value === 'assistant' ? value : null;
}

/** The text parts of a content list: Messages' `text` blocks, Responses' `input_text` and `output_text`. */
const TEXT_PART_TYPES = new Set(['text', 'input_text', 'output_text']);

/** A message's text: a string, or the text parts of a content list; null when it has none. */
function textOf(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const texts = content
    .map((block) => asRecord(block))
    .filter((block) => TEXT_PART_TYPES.has(String(block?.type)) && typeof block?.text === 'string')
    .map((block) => block!.text as string);
  return texts.length ? texts.join('\n\n') : null;
}

/** The conversation of a logged body: Chat's and Messages' `messages`, or Responses' `input` (a string, or items). */
function loggedConversation(mode: PlaygroundMode, body: Record<string, unknown>): RequestDraft['messages'] {
  const list = mode === 'responses' ? (typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : body.input) : body.messages;
  // Function calls, their outputs and reasoning items are no message: the Playground shows text turns.
  return (Array.isArray(list) ? list : [])
    .map((message) => asRecord(message))
    .flatMap((message) => {
      if (message?.type !== undefined && message.type !== 'message') return [];
      const role = chatRole(message?.role);
      const content = textOf(message?.content);
      return role && content !== null ? [{ role, content }] : [];
    });
}

/** Chat's `reasoning_effort` or Responses' `reasoning.effort`, when it is one the Playground offers. */
function loggedEffort(mode: PlaygroundMode, body: Record<string, unknown>): ParameterValues['reasoningEffort'] {
  const effort = mode === 'chat' ? body.reasoning_effort : mode === 'responses' ? asRecord(body.reasoning)?.effort : undefined;
  return isReasoningEffort(effort) ? effort : '';
}

const MODE_OF_PATH: Array<[suffix: string, mode: PlaygroundMode]> = [
  ['/chat/completions', 'chat'],
  ['/completions', 'completion'],
  ['/messages', 'messages'],
  ['/responses', 'responses'],
];

/** Null when the path is not a completion endpoint or the body is not a JSON object. */
export function draftFromLoggedRequest(path: string, bodyText: string | null): RequestDraft | null {
  const bare = path.split('?')[0];
  const mode = MODE_OF_PATH.find(([suffix]) => bare.endsWith(suffix))?.[1] ?? null;
  if (!mode || !bodyText) return null;
  let body: Record<string, unknown> | null;
  try {
    body = asRecord(JSON.parse(bodyText));
  } catch {
    return null;
  }
  if (!body) return null;

  const numbers: ParameterValues['numbers'] = {};
  for (const control of NUMERIC_CONTROLS) {
    const value = body[control.name];
    if (typeof value === 'number') numbers[control.name] = String(value);
  }
  if (mode === 'responses' && typeof body.max_output_tokens === 'number') numbers.max_tokens = String(body.max_output_tokens);
  const stopField = mode === 'messages' ? body.stop_sequences : body.stop;
  const stop = typeof stopField === 'string' ? [stopField] : Array.isArray(stopField) ? stopField.filter((item): item is string => typeof item === 'string') : [];
  const streamOptions = asRecord(body.stream_options);
  const parameters: ParameterValues = {
    ...INITIAL_PARAMETERS,
    numbers,
    stream: body.stream === true,
    includeUsage: streamOptions?.include_usage === true,
    echo: body.echo === true,
    stop,
    suffix: typeof body.suffix === 'string' ? body.suffix : '',
    user: typeof body.user === 'string' ? body.user : '',
    reasoningEffort: loggedEffort(mode, body),
    logitBias: asRecord(body.logit_bias) ? JSON.stringify(body.logit_bias) : '',
    topLogprobs: typeof body.top_logprobs === 'number' ? String(body.top_logprobs) : '',
  };
  const model = typeof body.model === 'string' ? body.model : '';

  if (mode === 'completion') {
    if (Array.isArray(body.prompt)) return { mode, model, prompt: JSON.stringify(body.prompt), promptIsJson: true, messages: [], parameters };
    return { mode, model, prompt: typeof body.prompt === 'string' ? body.prompt : '', promptIsJson: false, messages: [], parameters };
  }
  const logged = loggedConversation(mode, body);
  // Messages carry the system prompt beside the conversation (a string or text blocks), Responses as `instructions`.
  const system = mode === 'messages' ? textOf(body.system) : mode === 'responses' ? textOf(body.instructions) : null;
  const messages = system ? [{ role: 'system' as const, content: system }, ...logged] : logged;
  const last = messages.at(-1);
  const prompt = last?.role === 'user' ? last.content : '';
  return { mode, model, prompt, promptIsJson: false, messages: last?.role === 'user' ? messages.slice(0, -1) : messages, parameters };
}

/** What the Playground holds now, as a draft (the conversation's ids left out). */
export type CurrentDraft = Omit<RequestDraft, 'messages'> & { messages: ReadonlyArray<RequestDraft['messages'][number]> };

const TRIAL_PROMPT = 'Say hello in one short sentence.';

/**
 * The draft for trying a model name from the Routes page: what the Playground holds, sent to that
 * name, with a short prompt when there is none.
 */
export function draftForModel(current: CurrentDraft, model: string): RequestDraft {
  return {
    mode: current.mode,
    model,
    prompt: current.prompt.trim() ? current.prompt : TRIAL_PROMPT,
    promptIsJson: current.prompt.trim() ? current.promptIsJson : false,
    messages: current.messages.map((message) => ({ role: message.role, content: message.content })),
    parameters: current.parameters,
  };
}
