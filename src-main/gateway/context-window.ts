// Spec §7: prompt tokens + max_tokens must fit the model's context window. OpenAI's completion models
// are checked exactly (their cl100k tokenizer ships offline; a prompt of megabytes from a counted
// sample, token-count.ts). Every other model whose window the catalog
// knows, at any provider and in every dialect, is checked with an estimate: the prompt counted with
// o200k (token-estimate.ts), close to but not the model's own tokenizer. Requests far below the window
// count nothing (see checkPromptFits).
import { invalidRequest } from '../core/errors.js';
import { COMPLETION_BOUNDS } from '../core/spec-bounds.js';
import type { CompletionRequest } from './validate.js';
import { catalogModel } from '../catalog/catalog.js';
import type { CanonicalRequest } from '../codecs/canonical.js';
import { estimateInputTokens, estimateTextTokens } from './token-estimate.js';
import { countTokens, type TokenCount } from './token-count.js';

/** OpenAI's models served by /v1/completions, with their context windows (tokens). */
export const OPENAI_COMPLETION_MODELS: Readonly<Record<string, number>> = {
  'gpt-3.5-turbo-instruct': 4096,
  'gpt-3.5-turbo-instruct-0914': 4096,
  'davinci-002': 16384,
  'babbage-002': 16384,
};

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

/**
 * The prompts of a text completion against a window. Synchronous (undefined) when no prompt needs counting,
 * as on almost every call: an awaited check costs the request a few promise hops for nothing. Only a
 * prompt that might not fit is counted, with `countText`, and then a promise is returned.
 */
function checkPrompts(window: number, body: CompletionRequest, countText: (text: string) => Promise<TokenCount>): Promise<void> | undefined {
  const maxTokens = body.max_tokens ?? COMPLETION_BOUNDS.max_tokens.default;
  const prompts = promptsOf(body.prompt);
  for (let index = 0; index < prompts.length; index++) {
    const prompt = prompts[index];
    if (typeof prompt !== 'string') {
      if (prompt.length + maxTokens > window) throw tooLong(window, prompt.length, maxTokens);
      continue;
    }
    // Every token is at least one byte: a prompt with fewer bytes than the room left always fits.
    if (Buffer.byteLength(prompt) + maxTokens <= window) continue;
    // From here on, asynchronously, in the same order as before.
    return (async () => {
      for (const rest of prompts.slice(index)) {
        let tokens: number;
        if (typeof rest !== 'string') tokens = rest.length;
        else if (Buffer.byteLength(rest) + maxTokens <= window) continue;
        else {
          const counted = await countText(rest);
          // A guess by length alone (the counting thread did not answer in time) never refuses a call.
          if (counted.basis === 'guessed') continue;
          tokens = counted.tokens;
        }
        if (tokens + maxTokens > window) throw tooLong(window, tokens, maxTokens);
      }
    })();
  }
  return undefined;
}

const countCl100k = (text: string): Promise<TokenCount> => countTokens('cl100k_base', [text]);

/**
 * A text completion's prompt and max_tokens against the window of `model` (the one sent, which a route
 * or model map may have changed from the body's): OpenAI's completion models
 * exactly, others by the catalog (estimated). Throws at once when a token-array prompt does not fit;
 * returns a promise only when a prompt has to be counted (await it), else undefined.
 */
export function checkContextWindow(provider: string, model: string, body: CompletionRequest): Promise<void> | undefined {
  // A text completion at a provider other than OpenAI (or an OpenAI model not in the table above), by the catalog.
  const window = provider === 'openai' ? OPENAI_COMPLETION_MODELS[model] : catalogModel(provider, model)?.contextWindow;
  if (!window) return undefined;
  return checkPrompts(window, body, provider === 'openai' ? countCl100k : estimateTextTokens);
}

/** A generation at one target, as its window is checked (Ingress.checkWindow). */
export interface WindowCheck {
  provider: string;
  /** The model sent (a route or model map may have changed it from the body's). */
  model: string;
  /** The body as the ingress read it (RoutedRequest.body). */
  body: unknown;
  bodyBytes: number;
  decoded: { canonical(): CanonicalRequest };
}

/**
 * Chat Completions, Messages and Responses requests: the estimated prompt plus the requested output must
 * fit the catalog's window for the model at this provider. Models the catalog lacks are left to the
 * provider.
 */
export function checkPromptFits(call: WindowCheck, maxOutputTokens: number | undefined): Promise<void> | undefined {
  const { provider, model, bodyBytes, decoded } = call;
  const window = catalogModel(provider, model)?.contextWindow;
  if (!window) return undefined;
  // No output named: the prompt alone must fit.
  const maxTokens = maxOutputTokens ?? 0;
  // Counting is O(prompt) on the serving thread (tens of ms for a long agent session), so it runs only
  // when the body could plausibly overflow: o200k averages 4+ bytes a token on text and code, so a body
  // under 3 bytes a token of the room left is taken to fit. A rare prompt denser than that goes on to
  // the provider, which refuses it itself: the check may miss, it never refuses wrongly.
  // Synchronous (undefined) then: no promise to await on the common path.
  if (bodyBytes / 3 + maxTokens <= window) return undefined;
  return (async () => {
    const counted = await estimateInputTokens(decoded.canonical());
    if (counted.basis !== 'guessed' && counted.tokens + maxTokens > window) throw tooLong(window, counted.tokens, maxTokens);
  })();
}
