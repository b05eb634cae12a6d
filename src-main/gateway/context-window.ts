// Spec §7: prompt tokens + max_tokens must fit the model's context window. OpenAI's completion models
// are checked exactly (their cl100k tokenizer ships offline). Every other model whose window the catalog
// knows, at any provider and in every dialect, is checked with an estimate: the prompt counted with
// o200k (token-estimate.ts), close to but not the model's own tokenizer. Requests far below the window
// count nothing (see checkPromptFits).
import { invalidRequest } from './errors.js';
import { COMPLETION_BOUNDS } from './spec-bounds.js';
import type { CompletionRequest } from './validate.js';
import { catalogModel } from '../catalog/catalog.js';
import { dialectCodec } from './codecs/registry.js';
import type { Dialect } from './codecs/canonical.js';
import { estimateInputTokens, estimateTextTokens } from './token-estimate.js';

/** OpenAI's models served by /v1/completions, with their context windows (tokens). */
export const OPENAI_COMPLETION_MODELS: Readonly<Record<string, number>> = {
  'gpt-3.5-turbo-instruct': 4096,
  'gpt-3.5-turbo-instruct-0914': 4096,
  'davinci-002': 16384,
  'babbage-002': 16384,
};

type Encode = (text: string) => number[];
let encodeCl100k: Promise<Encode> | undefined;

/** The tokenizer's vocabulary takes a moment to load: only when a prompt might not fit. */
function loadEncoder(): Promise<Encode> {
  encodeCl100k ??= import('gpt-tokenizer/encoding/cl100k_base').then((module) => module.encode as Encode);
  return encodeCl100k;
}

function promptsOf(prompt: CompletionRequest['prompt']): (string | number[])[] {
  if (prompt === null) return [''];
  if (typeof prompt === 'string') return [prompt];
  if (prompt.length === 0) return [''];
  if (typeof prompt[0] === 'number') return [prompt as number[]];
  return prompt as (string | number[])[];
}

function tooLong(window: number, tokens: number, maxTokens: number) {
  return invalidRequest(
    `This model's maximum context length is ${window} tokens, however you requested ${tokens + maxTokens} tokens (${tokens} in your prompt; ${maxTokens} for the completion). Please reduce your prompt or completion length.`,
    'max_tokens',
    'context_length_exceeded',
  );
}

/** A text completion at a provider other than OpenAI (or an OpenAI model not in the table above), by the catalog. */
async function checkCompletionByCatalog(provider: string, body: CompletionRequest): Promise<void> {
  const window = catalogModel(provider, body.model)?.contextWindow;
  if (!window) return;
  const maxTokens = body.max_tokens ?? COMPLETION_BOUNDS.max_tokens.default;
  for (const prompt of promptsOf(body.prompt)) {
    let tokens: number;
    if (typeof prompt !== 'string') tokens = prompt.length;
    else if (Buffer.byteLength(prompt) + maxTokens <= window) continue;
    else tokens = await estimateTextTokens(prompt);
    if (tokens + maxTokens > window) throw tooLong(window, tokens, maxTokens);
  }
}

export async function checkContextWindow(provider: string, body: CompletionRequest): Promise<void> {
  if (provider !== 'openai') return checkCompletionByCatalog(provider, body);
  const window = OPENAI_COMPLETION_MODELS[body.model];
  if (window === undefined) return;
  const maxTokens = body.max_tokens ?? COMPLETION_BOUNDS.max_tokens.default;
  for (const prompt of promptsOf(body.prompt)) {
    let tokens: number;
    if (typeof prompt !== 'string') tokens = prompt.length;
    // Every token is at least one byte: a prompt with fewer bytes than the room left always fits.
    else if (Buffer.byteLength(prompt) + maxTokens <= window) continue;
    else tokens = (await loadEncoder())(prompt).length;
    if (tokens + maxTokens > window) throw tooLong(window, tokens, maxTokens);
  }
}

/** The output budget a request asks for, by dialect; 0 when it names none (the prompt alone must fit). */
function requestedOutput(dialect: Dialect, body: Record<string, unknown>): number {
  const value = dialect === 'openai-chat' ? (body.max_completion_tokens ?? body.max_tokens) : dialect === 'openai-responses' ? body.max_output_tokens : body.max_tokens;
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/**
 * Chat Completions, Messages and Responses requests: the estimated prompt plus the requested output must
 * fit the catalog's window for the model at this provider. Models the catalog lacks are left to the
 * provider.
 */
export async function checkPromptFits(provider: string, model: string, dialect: Dialect, body: unknown, bodyBytes: number): Promise<void> {
  const window = catalogModel(provider, model)?.contextWindow;
  if (!window) return;
  const maxTokens = requestedOutput(dialect, body as Record<string, unknown>);
  // Counting is O(prompt) on the serving thread (tens of ms for a long agent session), so it runs only
  // when the body could plausibly overflow: o200k averages 4+ bytes a token on text and code, so a body
  // under 3 bytes a token of the room left is taken to fit. A rare prompt denser than that goes on to
  // the provider, which refuses it itself: the check may miss, it never refuses wrongly.
  if (bodyBytes / 3 + maxTokens <= window) return;
  const tokens = await estimateInputTokens(dialectCodec(dialect).decodeRequest(body));
  if (tokens + maxTokens > window) throw tooLong(window, tokens, maxTokens);
}
