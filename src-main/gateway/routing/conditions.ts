// Target conditions (`when`), read from the request only when a route has any: the prompt's size
// (estimated at ~4 characters a token: a routing threshold needs no tokenizer), reasoning asked for,
// tools offered.
import { toolResultText, type CanonicalRequest, type ContentPart } from '../../codecs/canonical.js';
import type { TargetConditions } from '../../core/routes/types.js';

/** What conditions look at. Lazy: a route without conditions never decodes the body. */
export interface RequestTraits {
  promptTokens(): number;
  thinking(): boolean;
  tools(): boolean;
}

const CHARS_PER_TOKEN = 4;
/** Roughly what one image costs in a prompt (Claude's figure for a 1-megapixel image). */
const TOKENS_PER_IMAGE = 1600;
const TOKENS_PER_TURN = 3;

function partLength(part: ContentPart): number {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text.length;
    case 'tool_call':
      return part.name.length + part.arguments.length;
    case 'tool_result':
      return toolResultText(part.content).length;
    case 'image':
      return 0;
  }
}

/** A cheap estimate of the prompt's tokens: characters / 4, plus a fixed cost per turn and image. */
export function estimatePromptTokens(request: CanonicalRequest): number {
  let chars = 0;
  let tokens = 0;
  for (const part of request.system) chars += part.text.length;
  for (const turn of request.turns) {
    tokens += TOKENS_PER_TURN;
    for (const part of turn.parts) {
      if (part.type === 'image') tokens += TOKENS_PER_IMAGE;
      else chars += partLength(part);
    }
  }
  for (const tool of request.tools ?? []) chars += tool.name.length + (tool.description?.length ?? 0) + JSON.stringify(tool.parameters ?? {}).length;
  return tokens + Math.ceil(chars / CHARS_PER_TOKEN);
}

/** Traits of a request decoded on first use (and only once). */
export function traitsOf(decode: () => CanonicalRequest): RequestTraits {
  let request: CanonicalRequest | undefined;
  let tokens: number | undefined;
  const get = () => (request ??= decode());
  return {
    promptTokens: () => (tokens ??= estimatePromptTokens(get())),
    thinking: () => get().reasoning?.enabled === true,
    tools: () => (get().tools?.length ?? 0) > 0,
  };
}

/** Fixed traits, for `explain` (the UI's Test button) and tests. */
export function fixedTraits(traits: { promptTokens?: number; thinking?: boolean; tools?: boolean }): RequestTraits {
  return { promptTokens: () => traits.promptTokens ?? 0, thinking: () => traits.thinking ?? false, tools: () => traits.tools ?? false };
}

/** Why a target's conditions rule it out for this request, or null when they hold (or it has none). */
export function conditionFailure(when: TargetConditions | undefined, traits: RequestTraits): string | null {
  if (!when) return null;
  if (when.min_prompt_tokens !== undefined) {
    const tokens = traits.promptTokens();
    if (tokens < when.min_prompt_tokens) return `needs at least ${when.min_prompt_tokens} prompt tokens (about ${tokens})`;
  }
  if (when.thinking !== undefined && traits.thinking() !== when.thinking) return when.thinking ? 'needs thinking requested' : 'only without thinking';
  if (when.tools !== undefined && traits.tools() !== when.tools) return when.tools ? 'needs tools in the request' : 'only without tools';
  return null;
}
