// Request schemas for /v1/completions and /v1/chat/completions with the spec's bounds (spec §2.1, §7, §8).
// Parsed once at the edge; fields the spec does not list are kept, since providers have extras people use.
import { z } from 'zod';
import { invalidRequest } from '../core/errors.js';
import {
  CHAT_TOP_LOGPROBS_BOUND,
  COMPLETION_BOUNDS,
  LOGIT_BIAS_BOUND,
  MAX_STOP_SEQUENCES,
  type NumericBound,
} from '../core/spec-bounds.js';
import { isPlainObject } from '../core/plain-object.js';

function bounded(field: keyof typeof COMPLETION_BOUNDS | string, bound: NumericBound) {
  // Not z.int(): that also demands a *safe* integer, and a seed may be as large as 2^63.
  const base = bound.integer ? z.number().refine(Number.isInteger, `'${field}' must be an integer`) : z.number();
  return base
    .refine((value) => value >= bound.min, `'${field}' must be at least ${bound.min}`)
    .refine((value) => value <= bound.max, `'${field}' must be at most ${bound.max}`)
    .nullish();
}

const B = COMPLETION_BOUNDS;

const stop = z
  .union([z.string(), z.array(z.string()).max(MAX_STOP_SEQUENCES, `'stop' takes at most ${MAX_STOP_SEQUENCES} sequences`)])
  .nullish();

const logitBias = z
  .record(
    z.string().regex(/^\d+$/, 'logit_bias keys must be token IDs'),
    z.number().min(LOGIT_BIAS_BOUND.min, `'logit_bias' values must be at least ${LOGIT_BIAS_BOUND.min}`).max(LOGIT_BIAS_BOUND.max, `'logit_bias' values must be at most ${LOGIT_BIAS_BOUND.max}`),
  )
  .nullish();

const sharedFields = {
  model: z.string().min(1, "'model' must not be empty"),
  frequency_penalty: bounded('frequency_penalty', B.frequency_penalty),
  presence_penalty: bounded('presence_penalty', B.presence_penalty),
  logit_bias: logitBias,
  max_tokens: bounded('max_tokens', B.max_tokens),
  n: bounded('n', B.n),
  seed: bounded('seed', B.seed),
  stop,
  stream: z.boolean().nullish(),
  stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
  temperature: bounded('temperature', B.temperature),
  top_p: bounded('top_p', B.top_p),
  user: z.string().optional(),
};

const tokenArray = z.array(z.number().int('token IDs must be integers').min(0, 'token IDs must not be negative'));

export const completionSchema = z.looseObject({
  ...sharedFields,
  // Spec: required, but `null` means the default `<|endoftext|>` (start of a new document).
  prompt: z.union([z.string(), z.array(z.string()), tokenArray, z.array(tokenArray)]).nullable(),
  best_of: bounded('best_of', B.best_of),
  echo: z.boolean().nullish(),
  logprobs: bounded('logprobs', B.logprobs),
  suffix: z.string().nullish(),
});

const contentPart = z.looseObject({ type: z.string() });
const chatMessage = z.looseObject({
  role: z.enum(['system', 'developer', 'user', 'assistant', 'tool', 'function']),
  content: z.union([z.string(), z.array(contentPart)]).nullish(),
});

export const chatSchema = z.looseObject({
  ...sharedFields,
  messages: z.array(chatMessage).min(1, "'messages' must hold at least one message"),
  max_completion_tokens: bounded('max_completion_tokens', B.max_tokens),
  logprobs: z.boolean().nullish(),
  top_logprobs: bounded('top_logprobs', CHAT_TOP_LOGPROBS_BOUND),
});

export type CompletionRequest = z.infer<typeof completionSchema>;
export type ChatRequest = z.infer<typeof chatSchema>;
export type ChatMessage = z.infer<typeof chatMessage>;

/**
 * For a union (say `stop`: string or array), the branch that matched the value's type says more
 * ("at most 4 sequences") than "wrong type"; pick that one.
 */
function mostTellingIssue(issue: z.core.$ZodIssue): z.core.$ZodIssue {
  if (issue.code !== 'invalid_union') return issue;
  for (const branch of issue.errors) {
    const telling = branch.find((inner) => inner.code !== 'invalid_type' && inner.code !== 'invalid_union');
    if (telling) return { ...telling, path: [...issue.path, ...telling.path] };
  }
  return issue;
}

/** The first problem zod found, as the contract's 400: `param` names the top-level field. */
function firstIssue(error: z.ZodError, json: Record<string, unknown>): never {
  const issue = mostTellingIssue(error.issues[0]);
  const param = issue.path.length ? String(issue.path[0]) : null;
  const where = issue.path.map(String).join('.');
  let message = issue.message;
  if (param !== null && issue.path.length === 1 && !(param in json)) {
    message = `'${param}' is required`;
  } else if (issue.code === 'invalid_type' || issue.code === 'invalid_union') {
    message = `'${where}' has the wrong type` + (issue.code === 'invalid_type' ? ` (expected ${issue.expected})` : '');
  } else if (issue.code === 'invalid_key') {
    message = `'${where}' has an invalid key: logit_bias keys must be token IDs`;
  } else if (!message.includes(`'`)) {
    message = `'${where}': ${message}`;
  }
  throw invalidRequest(message, param);
}

function checkStreamCombinations(body: { stream?: boolean | null; stream_options?: unknown }): void {
  if (body.stream_options != null && body.stream !== true) {
    throw invalidRequest("'stream_options' is only allowed when 'stream' is true", 'stream_options');
  }
}

export function validateCompletion(json: unknown): CompletionRequest {
  if (!isPlainObject(json)) throw invalidRequest('The request body must be a JSON object');
  if (!('prompt' in json)) throw invalidRequest("'prompt' is required", 'prompt');
  const parsed = completionSchema.safeParse(json);
  if (!parsed.success) firstIssue(parsed.error, json);
  const body = parsed.data;
  checkStreamCombinations(body);
  if (body.best_of != null && body.stream === true) {
    throw invalidRequest("'best_of' cannot be used with 'stream'", 'best_of');
  }
  if (body.best_of != null && body.n != null && body.best_of <= body.n && !(body.best_of === 1 && body.n === 1)) {
    throw invalidRequest("'best_of' must be greater than 'n'", 'best_of');
  }
  return body;
}

export function validateChat(json: unknown): ChatRequest {
  if (!isPlainObject(json)) throw invalidRequest('The request body must be a JSON object');
  const parsed = chatSchema.safeParse(json);
  if (!parsed.success) firstIssue(parsed.error, json);
  checkStreamCombinations(parsed.data);
  return parsed.data;
}
