// Turns a logged request back into a Playground draft ("Open in Playground"), so a request seen
// in the Logs can be re-run and tweaked. Only the body comes back: keys are never in the log.
import { INITIAL_PARAMETERS, NUMERIC_CONTROLS, type ParameterValues, type PlaygroundMode } from './parameters';

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

function chatRole(value: unknown): 'system' | 'user' | 'assistant' | null {
  return value === 'system' || value === 'user' || value === 'assistant' ? value : null;
}

/** A message's text: a string, or (Messages) the text blocks of a block list; null when it has none. */
function textOf(content: unknown): string | null {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return null;
  const texts = content.map((block) => asRecord(block)).filter((block) => block?.type === 'text' && typeof block.text === 'string').map((block) => block!.text as string);
  return texts.length ? texts.join('\n\n') : null;
}

/** Null when the path is not a completion endpoint or the body is not a JSON object. */
export function draftFromLoggedRequest(path: string, bodyText: string | null): RequestDraft | null {
  const bare = path.split('?')[0];
  const mode: PlaygroundMode | null = bare.endsWith('/chat/completions') ? 'chat' : bare.endsWith('/completions') ? 'completion' : bare.endsWith('/messages') ? 'messages' : null;
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
    logitBias: asRecord(body.logit_bias) ? JSON.stringify(body.logit_bias) : '',
    topLogprobs: typeof body.top_logprobs === 'number' ? String(body.top_logprobs) : '',
  };
  const model = typeof body.model === 'string' ? body.model : '';

  if (mode === 'completion') {
    if (Array.isArray(body.prompt)) return { mode, model, prompt: JSON.stringify(body.prompt), promptIsJson: true, messages: [], parameters };
    return { mode, model, prompt: typeof body.prompt === 'string' ? body.prompt : '', promptIsJson: false, messages: [], parameters };
  }
  const logged = (Array.isArray(body.messages) ? body.messages : [])
    .map((message) => asRecord(message))
    .flatMap((message) => {
      const role = chatRole(message?.role);
      const content = textOf(message?.content);
      return role && content !== null ? [{ role, content }] : [];
    });
  // Messages carry the system prompt beside the conversation (a string or text blocks).
  const system = mode === 'messages' ? textOf(body.system) : null;
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
