// OpenAI's legacy Completions as a dialect: a `/v1/completions` body → canonical (the prompt is one user turn).
// Decoding a client's request is all this format has of its own: no provider is spoken to in it (its
// answers and chunks are written by the Chat writers, which share the frame), and tool calls cannot happen
// here: the request declares no tools.
import { asRecord, type CanonicalRequest, type Turn } from '../canonical.js';
import { REFUSAL_REASONS, SHARED_FIELDS, Unsupported, keepOtherFields, readSharedFields } from '../openai-chat/client-fields.js';

/** Why a prompt a chat-only provider cannot take is refused (as the old translators worded it). */
export const PROMPT_REFUSALS = {
  empty: 'left empty (generate from the start of a new document) is not supported',
  several: 'as an array of several prompts is not supported (send one request per prompt)',
  tokens: 'as token IDs is not supported (send the prompt as text)',
} as const;

/**
 * The prompt as turns. A single text is one user turn. What a chat API has no words for (no prompt, several
 * prompts, token IDs) is kept as the `prompt` extension with the refusal's wording, so the encoder, which
 * knows the provider, refuses it; several prompts keep the first as the turn so the refusal is about them.
 */
function readPrompt(prompt: unknown, unsupported: Unsupported): Turn[] {
  const textTurn = (text: string): Turn[] => [{ role: 'user', parts: [{ type: 'text', text }] }];
  if (typeof prompt === 'string' && prompt !== '') return textTurn(prompt);
  if (prompt === null || prompt === '' || (Array.isArray(prompt) && prompt.length === 0)) {
    unsupported.add('prompt', prompt, PROMPT_REFUSALS.empty);
    return [];
  }
  if (Array.isArray(prompt) && prompt.every((item): item is string => typeof item === 'string')) {
    if (prompt.length === 1 && prompt[0] !== '') return textTurn(prompt[0]);
    if (prompt.length === 1) {
      unsupported.add('prompt', prompt, PROMPT_REFUSALS.empty);
      return [];
    }
    unsupported.add('prompt', prompt, PROMPT_REFUSALS.several);
    return prompt[0] === '' ? [] : textTurn(prompt[0]);
  }
  unsupported.add('prompt', prompt, PROMPT_REFUSALS.tokens);
  return [];
}

const COMPLETION_FIELDS: ReadonlySet<string> = new Set([...SHARED_FIELDS, 'prompt', 'logprobs']);

/** A `/v1/completions` body (already checked by `validateCompletion`) → canonical. */
export function decodeCompletionRequest(json: unknown): CanonicalRequest {
  const body = asRecord(json);
  const unsupported = new Unsupported();
  const turns = readPrompt(body.prompt, unsupported);
  const why: Record<string, string> = {};
  let logprobs: CanonicalRequest['logprobs'];
  // `logprobs: k`: the k most likely alternatives per token (0: only the chosen token's).
  if (typeof body.logprobs === 'number') {
    logprobs = { top: body.logprobs };
    why.logprobs = REFUSAL_REASONS.logprobs;
  }
  // echo, best_of, suffix (and chat fields sent here by mistake) are kept unless at their default.
  keepOtherFields(body, COMPLETION_FIELDS, unsupported);
  const maxOutputTokens = typeof body.max_tokens === 'number' ? body.max_tokens : undefined;
  return {
    dialect: 'openai-completions',
    onUnsupported: 'refuse',
    model: typeof body.model === 'string' ? body.model : '',
    system: [],
    turns,
    ...(maxOutputTokens !== undefined ? { maxOutputTokens } : {}),
    ...readSharedFields(body),
    ...(logprobs ? { logprobs } : {}),
    stream: body.stream === true,
    extensions: unsupported.extensions,
    fieldNames: { turns: 'prompt', system: 'prompt' },
    unsupportedWhy: { ...unsupported.why, ...why },
  };
}
