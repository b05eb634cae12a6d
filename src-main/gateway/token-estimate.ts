// `POST /v1/messages/count_tokens` (and Gemini's `:countTokens`) for providers that cannot count the body themselves: the
// prompt is counted with OpenAI's o200k tokenizer (shipped in the package, no network), which is close to
// but not the target model's own count, so the answer says it is an estimate. Large prompts are counted
// with bounded work (token-count.ts): in part, off the serving thread, the rest extrapolated.
import type { ServerResponse } from 'node:http';
import type { CanonicalRequest, ContentPart } from '../codecs/canonical.js';
import { toolResultText } from '../codecs/canonical.js';
import type { RelayOutcome } from './relay/types.js';
import { countTokens, type TokenCount } from './token-count.js';

/** Per message, the chat templates add a few tokens of framing (role markers); 3 is OpenAI's documented figure. */
const TOKENS_PER_TURN = 3;
/** What one image costs in a prompt is model-specific; ~1,600 is Claude's figure for a 1-megapixel image. */
const TOKENS_PER_IMAGE = 1600;

function partText(part: ContentPart): string {
  switch (part.type) {
    case 'text':
      return part.text;
    case 'reasoning':
      return part.text;
    case 'tool_call':
      return `${part.name} ${part.arguments}`;
    case 'tool_result':
      return toolResultText(part.content);
    case 'image':
      return '';
  }
}

/** One text's tokens by o200k (an estimate for models with another tokenizer). */
export function estimateTextTokens(text: string): Promise<TokenCount> {
  return countTokens('o200k_base', [text]);
}

export async function estimateInputTokens(request: CanonicalRequest): Promise<TokenCount> {
  let framing = 0;
  const texts: string[] = [];
  const count = (text: string) => {
    if (text) texts.push(text);
  };
  for (const part of request.system) count(part.text);
  for (const turn of request.turns) {
    framing += TOKENS_PER_TURN;
    for (const part of turn.parts) {
      if (part.type === 'image') framing += TOKENS_PER_IMAGE;
      else count(partText(part));
    }
  }
  for (const tool of request.tools ?? []) count(`${tool.name} ${tool.description ?? ''} ${JSON.stringify(tool.parameters)}`);
  const counted = await countTokens('o200k_base', texts);
  return { tokens: counted.tokens + framing, basis: counted.basis };
}

/** The estimate, answered in the client's count shape (`shape`; Anthropic's `{input_tokens}` without one). */
export async function sendTokenEstimate(res: ServerResponse, counting: Promise<TokenCount>, started: number, shape?: (tokens: number) => object): Promise<RelayOutcome> {
  const tokens = (await counting).tokens;
  const body = JSON.stringify(shape ? shape(tokens) : { input_tokens: tokens });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-gateway-token-count': 'estimate' });
  res.end(body);
  return { status: 200, ttfbMs: performance.now() - started, error: null, responseBody: body };
}
