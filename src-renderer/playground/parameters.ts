// The Playground's request parameters (spec §2.1): what each control accepts, and how the typed
// values become a request body. The numeric bounds come from the gateway's own spec-bounds module,
// so the controls and the server's validator cannot drift apart.
import {
  CHAT_TOP_LOGPROBS_BOUND,
  COMPLETION_BOUNDS,
  LOGIT_BIAS_BOUND,
  MAX_STOP_SEQUENCES,
  type NumericBound,
} from '../../src-main/core/spec-bounds';

/**
 * Completion and Chat speak OpenAI's older APIs; Messages speaks Anthropic's (POST /v1/messages), as Claude
 * Code does; Responses speaks OpenAI's Responses API (POST /v1/responses), as Codex does; Gemini speaks the
 * Gemini API (POST /v1beta/models/{model}:generateContent), as Gemini CLI does.
 */
export type PlaygroundMode = 'completion' | 'chat' | 'messages' | 'responses' | 'gemini';
export type NumericParamName = keyof typeof COMPLETION_BOUNDS;

export interface NumericControl {
  name: NumericParamName;
  label: string;
  help: string;
  bound: NumericBound;
  /** Slider step; integer fields without a slider use a number box only. */
  step: number;
  slider: boolean;
  modes: PlaygroundMode[];
}

const bothModes: PlaygroundMode[] = ['completion', 'chat'];
/** The sampling controls Anthropic's Messages API and OpenAI's Responses API have too. */
const allModes: PlaygroundMode[] = ['completion', 'chat', 'messages', 'responses', 'gemini'];

/** OpenAI's Responses API refuses a smaller max_output_tokens ("Expected a value >= 16"). */
const RESPONSES_MIN_OUTPUT_TOKENS = 16;

export const NUMERIC_CONTROLS: NumericControl[] = [
  { name: 'max_tokens', label: 'Max tokens', help: 'Most tokens to generate. Prompt plus this must fit the model’s context.', bound: COMPLETION_BOUNDS.max_tokens, step: 1, slider: false, modes: allModes },
  { name: 'temperature', label: 'Temperature', help: 'Higher is more random. Change this or top p, not both.', bound: COMPLETION_BOUNDS.temperature, step: 0.01, slider: true, modes: allModes },
  { name: 'top_p', label: 'Top p', help: 'Nucleus sampling: only tokens in this probability mass.', bound: COMPLETION_BOUNDS.top_p, step: 0.01, slider: true, modes: allModes },
  { name: 'frequency_penalty', label: 'Frequency penalty', help: 'Penalise tokens by how often they appeared so far.', bound: COMPLETION_BOUNDS.frequency_penalty, step: 0.01, slider: true, modes: bothModes },
  { name: 'presence_penalty', label: 'Presence penalty', help: 'Penalise tokens that appeared at all, nudging to new topics.', bound: COMPLETION_BOUNDS.presence_penalty, step: 0.01, slider: true, modes: bothModes },
  { name: 'n', label: 'Completions (n)', help: 'How many completions to generate for the prompt.', bound: COMPLETION_BOUNDS.n, step: 1, slider: false, modes: bothModes },
  { name: 'best_of', label: 'Best of', help: 'Candidates generated server-side; must exceed n. Cannot stream.', bound: COMPLETION_BOUNDS.best_of, step: 1, slider: false, modes: ['completion'] },
  { name: 'logprobs', label: 'Logprobs', help: 'Return log probabilities of this many most likely tokens.', bound: COMPLETION_BOUNDS.logprobs, step: 1, slider: false, modes: ['completion'] },
  { name: 'seed', label: 'Seed', help: 'Best-effort deterministic sampling.', bound: COMPLETION_BOUNDS.seed, step: 1, slider: false, modes: bothModes },
];

/** The numeric controls a mode shows and checks, with that API's own bounds where they differ. */
export function numericControlsFor(mode: PlaygroundMode): NumericControl[] {
  return NUMERIC_CONTROLS.filter((control) => control.modes.includes(mode)).map((control) =>
    mode === 'responses' && control.name === 'max_tokens' ? { ...control, bound: { ...control.bound, min: RESPONSES_MIN_OUTPUT_TOKENS } } : control,
  );
}

/** Chat's logprobs are a switch plus `top_logprobs`; the Playground shows one control for both. */
export const CHAT_TOP_LOGPROBS_CONTROL = {
  label: 'Top logprobs',
  help: 'Return log probabilities of this many most likely tokens per position.',
  bound: CHAT_TOP_LOGPROBS_BOUND,
} as const;

export { LOGIT_BIAS_BOUND, MAX_STOP_SEQUENCES };

export interface ParameterValues {
  /** Raw text typed per numeric field; an empty or missing entry means "not sent" (server default). */
  numbers: Partial<Record<NumericParamName, string>>;
  topLogprobs: string;
  stream: boolean;
  includeUsage: boolean;
  echo: boolean;
  stop: string[];
  suffix: string;
  user: string;
  logitBias: string;
  /** Chat's `reasoning_effort`, Responses' `reasoning.effort`; '' is not sent. */
  reasoningEffort: ReasoningEffortChoice;
}

/** The effort levels OpenAI's reasoning models take ('' = not sent: the model's default). */
export const REASONING_EFFORTS = ['', 'none', 'minimal', 'low', 'medium', 'high', 'xhigh'] as const;
export type ReasoningEffortChoice = (typeof REASONING_EFFORTS)[number];

export function isReasoningEffort(value: unknown): value is ReasoningEffortChoice {
  return typeof value === 'string' && (REASONING_EFFORTS as readonly string[]).includes(value);
}

export const INITIAL_PARAMETERS: ParameterValues = {
  numbers: { max_tokens: '256' },
  topLogprobs: '',
  stream: true,
  includeUsage: true,
  echo: false,
  stop: [],
  suffix: '',
  user: '',
  logitBias: '',
  reasoningEffort: '',
};

/** A JSON value that may hold a bigint, for seeds beyond 2^53 that must reach the server exactly. */
export type JsonValue = string | number | bigint | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type RequestBody = Record<string, JsonValue>;

export interface BuiltParameters {
  fields: RequestBody;
  errors: Partial<Record<string, string>>;
}

const SEED_MIN = -(2n ** 63n);
const SEED_MAX = 2n ** 63n - 1n;

function parseNumeric(control: NumericControl, raw: string): { value?: number | bigint; error?: string } {
  const text = raw.trim();
  if (!text) return {};
  const { bound } = control;
  if (control.name === 'seed') {
    if (!/^-?\d+$/.test(text)) return { error: 'Seed must be a whole number' };
    const seed = BigInt(text);
    if (seed < SEED_MIN || seed > SEED_MAX) return { error: 'Seed must fit in 64 bits' };
    return { value: seed >= BigInt(Number.MIN_SAFE_INTEGER) && seed <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(seed) : seed };
  }
  const value = Number(text);
  if (!Number.isFinite(value)) return { error: `${control.label} must be a number` };
  if (bound.integer && !Number.isInteger(value)) return { error: `${control.label} must be a whole number` };
  if (value < bound.min || value > bound.max) {
    const range = bound.max >= Number.MAX_SAFE_INTEGER ? `at least ${bound.min}` : `${bound.min} to ${bound.max}`;
    return { error: `${control.label} must be ${range}` };
  }
  return { value };
}

/**
 * Reads a prompt typed as JSON: spec §2.1 allows a string, an array of strings, an array of
 * tokens, or an array of token arrays.
 */
export function parseJsonPrompt(text: string): { value?: JsonValue; error?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { error: 'Prompt is not valid JSON' };
  }
  const isToken = (item: unknown) => typeof item === 'number' && Number.isInteger(item) && item >= 0;
  const isTokenArray = (item: unknown) => Array.isArray(item) && item.length > 0 && item.every(isToken);
  if (typeof parsed === 'string') return { value: parsed };
  if (Array.isArray(parsed) && parsed.length > 0 && (parsed.every((item) => typeof item === 'string') || parsed.every(isToken) || parsed.every(isTokenArray))) {
    return { value: parsed as JsonValue };
  }
  return { error: 'A JSON prompt must be a string, an array of strings, an array of token ids, or an array of token-id arrays' };
}

/** Turns `\n`, `\t` and `\\` typed into a stop field into the characters they name. */
export function unescapeStopSequence(typed: string): string {
  return typed.replace(/\\(n|t|r|\\)/g, (_match, code: string) => ({ n: '\n', t: '\t', r: '\r', '\\': '\\' })[code] ?? code);
}

export function escapeStopSequence(sequence: string): string {
  return sequence.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/\t/g, '\\t').replace(/\r/g, '\\r');
}

function parseLogitBias(text: string): { value?: Record<string, number>; error?: string } {
  if (!text.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { error: 'Logit bias must be a JSON object such as {"50256": -100}' };
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { error: 'Logit bias must be a JSON object of token id to bias' };
  }
  const result: Record<string, number> = {};
  for (const [tokenId, bias] of Object.entries(parsed)) {
    if (!/^\d+$/.test(tokenId)) return { error: `Token id "${tokenId}" must be a whole number` };
    if (typeof bias !== 'number' || bias < LOGIT_BIAS_BOUND.min || bias > LOGIT_BIAS_BOUND.max) {
      return { error: `Bias for token ${tokenId} must be a number from ${LOGIT_BIAS_BOUND.min} to ${LOGIT_BIAS_BOUND.max}` };
    }
    result[tokenId] = bias;
  }
  return { value: result };
}

/**
 * Messages: max_tokens is required, stop sequences are always a list (`stop_sequences`), and a stream
 * reports usage by itself (no stream_options). OpenAI-only fields are not sent.
 */
function buildMessagesFields(fields: RequestBody, errors: Partial<Record<string, string>>, values: ParameterValues): BuiltParameters {
  if (fields.max_tokens === undefined && !errors.max_tokens) errors.max_tokens = 'The Messages API needs max tokens';
  if (values.stop.length > MAX_STOP_SEQUENCES) errors.stop = `At most ${MAX_STOP_SEQUENCES} stop sequences`;
  else if (values.stop.length) fields.stop_sequences = [...values.stop];
  if (values.stream) fields.stream = true;
  return { fields, errors };
}

/**
 * Responses: the limit is `max_output_tokens` (16 or more), there are no stop sequences or logit bias, a
 * stream reports usage by itself, and nothing is stored upstream (`store: false`, as Codex sends it):
 * Gatehouse keeps no conversation state, so each run sends the whole conversation.
 */
function buildResponsesFields(fields: RequestBody, errors: Partial<Record<string, string>>, values: ParameterValues): BuiltParameters {
  const { max_tokens: maxTokens, ...rest } = fields;
  const built: RequestBody = rest;
  if (maxTokens !== undefined) built.max_output_tokens = maxTokens;
  if (values.user.trim()) built.user = values.user.trim();
  if (values.reasoningEffort) built.reasoning = { effort: values.reasoningEffort };
  if (values.stream) built.stream = true;
  built.store = false;
  return { fields: built, errors };
}

/**
 * Gemini's settings all go in `generationConfig` under its own names. Whether it streams is in the path
 * (`:streamGenerateContent`), never in the body: `stream` is handed back for the run to choose the path.
 */
function buildGeminiFields(fields: RequestBody, errors: Partial<Record<string, string>>, values: ParameterValues): BuiltParameters {
  const config: RequestBody = {};
  if (fields.max_tokens !== undefined) config.maxOutputTokens = fields.max_tokens;
  if (fields.temperature !== undefined) config.temperature = fields.temperature;
  if (fields.top_p !== undefined) config.topP = fields.top_p;
  if (values.stop.length > MAX_STOP_SEQUENCES) errors.stop = `At most ${MAX_STOP_SEQUENCES} stop sequences`;
  else if (values.stop.length) config.stopSequences = [...values.stop];
  return { fields: Object.keys(config).length ? { generationConfig: config } : {}, errors };
}

/**
 * Checks every value against the spec's bounds and cross-field rules, and builds the body fields
 * to send. Fields left empty are not sent, so the provider's defaults apply.
 */
export function buildParameterFields(mode: PlaygroundMode, values: ParameterValues): BuiltParameters {
  const fields: RequestBody = {};
  const errors: Partial<Record<string, string>> = {};
  for (const control of numericControlsFor(mode)) {
    const parsed = parseNumeric(control, values.numbers[control.name] ?? '');
    if (parsed.error) errors[control.name] = parsed.error;
    else if (parsed.value !== undefined) fields[control.name] = parsed.value;
  }

  if (mode === 'messages') return buildMessagesFields(fields, errors, values);
  if (mode === 'responses') return buildResponsesFields(fields, errors, values);
  if (mode === 'gemini') return buildGeminiFields(fields, errors, values);

  if (mode === 'chat' && values.topLogprobs.trim()) {
    const value = Number(values.topLogprobs);
    const { min, max } = CHAT_TOP_LOGPROBS_BOUND;
    if (!Number.isInteger(value) || value < min || value > max) errors.top_logprobs = `Top logprobs must be a whole number from ${min} to ${max}`;
    else {
      fields.logprobs = true;
      fields.top_logprobs = value;
    }
  }

  if (values.stop.length > MAX_STOP_SEQUENCES) errors.stop = `At most ${MAX_STOP_SEQUENCES} stop sequences`;
  else if (values.stop.length) fields.stop = values.stop.length === 1 ? values.stop[0] : [...values.stop];

  const logitBias = parseLogitBias(values.logitBias);
  if (logitBias.error) errors.logit_bias = logitBias.error;
  else if (logitBias.value && Object.keys(logitBias.value).length) fields.logit_bias = logitBias.value;

  if (values.user.trim()) fields.user = values.user.trim();
  if (mode === 'chat' && values.reasoningEffort) fields.reasoning_effort = values.reasoningEffort;

  if (mode === 'completion') {
    if (values.echo) fields.echo = true;
    if (values.suffix) fields.suffix = values.suffix;
    const bestOf = fields.best_of;
    const n = fields.n;
    if (typeof bestOf === 'number') {
      if (values.stream) errors.best_of = 'Best of cannot be combined with streaming';
      else if (typeof n === 'number' && !(bestOf > n || (bestOf === 1 && n === 1))) errors.best_of = 'Best of must be greater than n';
    }
  }

  if (values.stream) {
    fields.stream = true;
    if (values.includeUsage) fields.stream_options = { include_usage: true };
  }
  return { fields, errors };
}
