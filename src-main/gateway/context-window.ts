// Spec §7: prompt tokens + max_tokens must fit the model's context window. Checked only where Gatehouse
// knows both exactly — OpenAI's completion models, whose tokenizer ships offline; elsewhere the
// provider's own 400 is relayed.
import { invalidRequest } from './errors.js';
import { COMPLETION_BOUNDS } from './spec-bounds.js';
import type { CompletionRequest } from './validate.js';

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

export async function checkContextWindow(provider: string, body: CompletionRequest): Promise<void> {
  if (provider !== 'openai') return;
  const window = OPENAI_COMPLETION_MODELS[body.model];
  if (window === undefined) return;
  const maxTokens = body.max_tokens ?? COMPLETION_BOUNDS.max_tokens.default;
  for (const prompt of promptsOf(body.prompt)) {
    let tokens: number;
    if (typeof prompt !== 'string') tokens = prompt.length;
    // Every token is at least one byte: a prompt with fewer bytes than the room left always fits.
    else if (Buffer.byteLength(prompt) + maxTokens <= window) continue;
    else tokens = (await loadEncoder())(prompt).length;
    if (tokens + maxTokens > window) {
      throw invalidRequest(
        `This model's maximum context length is ${window} tokens, however you requested ${tokens + maxTokens} tokens (${tokens} in your prompt; ${maxTokens} for the completion). Please reduce your prompt or completion length.`,
        'max_tokens',
        'context_length_exceeded',
      );
    }
  }
}
