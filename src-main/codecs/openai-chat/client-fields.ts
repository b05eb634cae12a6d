// What both OpenAI dialects (Chat and legacy Completions) read the same way from a client's body: the sampling
// and stream fields, OpenAI's defaults, and the fields kept for an encoder to refuse (with their wording).
import { invalidRequest } from '../../core/errors.js';
import { asArray, asRecord, type CanonicalRequest } from '../canonical.js';

/**
 * How a refusal of these fields is worded for a provider without them (as the old per-provider checks did);
 * decoders copy the ones a request uses into `unsupportedWhy`, so any encoder's `cannotHonour` says the same.
 */
export const REFUSAL_REASONS: Readonly<Record<string, string>> = {
  best_of: 'greater than 1 is not supported',
  echo: 'is not supported',
  logprobs: 'is not supported (the provider returns no log probabilities)',
  top_logprobs: 'is not supported (the provider returns no log probabilities)',
};

/** Values equal to OpenAI's default change nothing, so a provider without the field loses nothing when they are left out. */
export function isDefaultValue(field: string, value: unknown): boolean {
  switch (field) {
    case 'echo':
    case 'logprobs':
    case 'store':
      return value === false;
    case 'parallel_tool_calls':
      return value === true;
    case 'best_of':
      return value === 0 || value === 1;
    case 'presence_penalty':
    case 'frequency_penalty':
      return value === 0;
    case 'logit_bias':
    case 'metadata':
      return typeof value === 'object' && value !== null && Object.keys(value).length === 0;
    case 'suffix':
      return value === '';
    case 'response_format':
      return asRecord(value).type === 'text';
    default:
      return false;
  }
}

/**
 * What a decoder meets that some provider may not honour: the refusal names the provider, which the decoder
 * does not know, so such things are kept in `extensions` under their path (`messages[0].name`) with the
 * wording of the refusal, and every encoder passes them to `cannotHonour`.
 */
export class Unsupported {
  readonly extensions: Record<string, unknown> = {};
  readonly why: Record<string, string> = {};
  add(path: string, value: unknown, why?: string): void {
    this.extensions[path] = value;
    if (why) this.why[path] = why;
  }
}

export const numberOf = (value: unknown): number | undefined => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);

/**
 * `top_k` is not OpenAI's, but Anthropic and Gemini sample with it and local servers take it; clients of those
 * send it as an extra field, which the request schema keeps unread, so it is checked here.
 */
export function readTopK(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) throw invalidRequest("'top_k' must be an integer of at least 0", 'top_k');
  return value;
}

/** `stop` as a list, whichever form the client sent. */
export function readStop(value: unknown): string[] | undefined {
  if (typeof value === 'string') return [value];
  const list = asArray(value).filter((item): item is string => typeof item === 'string');
  return list.length ? list : undefined;
}

/** Fields both OpenAI dialects read the same way into the canonical request. */
export const SHARED_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'max_tokens',
  'stop',
  'stream',
  'stream_options',
  'temperature',
  'top_p',
  'top_k',
  'n',
  'user',
  'seed',
  'presence_penalty',
  'frequency_penalty',
]);

/** The sampling and stream fields shared by chat and completions requests. */
export function readSharedFields(body: Record<string, unknown>): Partial<CanonicalRequest> {
  const result: Partial<CanonicalRequest> = {};
  const temperature = numberOf(body.temperature);
  const topP = numberOf(body.top_p);
  const topK = readTopK(body.top_k);
  const seed = numberOf(body.seed);
  const n = numberOf(body.n);
  const stop = readStop(body.stop);
  // A penalty of 0 is no penalty: a provider without penalties loses nothing.
  const presence = numberOf(body.presence_penalty);
  const frequency = numberOf(body.frequency_penalty);
  if (temperature !== undefined) result.temperature = temperature;
  if (topP !== undefined) result.topP = topP;
  if (topK !== undefined) result.topK = topK;
  if (seed !== undefined) result.seed = seed;
  if (n !== undefined) result.n = n;
  if (stop) result.stop = stop;
  if (presence) result.presencePenalty = presence;
  if (frequency) result.frequencyPenalty = frequency;
  if (typeof body.user === 'string') result.user = body.user;
  if (asRecord(body.stream_options).include_usage === true) result.includeUsage = true;
  return result;
}

/** Every field the decoder did not read and that is not at its default: kept as an extension (with its refusal's wording). */
export function keepOtherFields(body: Record<string, unknown>, handled: ReadonlySet<string>, unsupported: Unsupported): void {
  for (const [field, value] of Object.entries(body)) {
    if (value === null || value === undefined || handled.has(field) || isDefaultValue(field, value)) continue;
    unsupported.add(field, value, REFUSAL_REASONS[field]);
  }
}
