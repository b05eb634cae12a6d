// `POST /v1/messages/count_tokens` for providers that cannot count a Messages body themselves: the
// prompt is counted with OpenAI's o200k tokenizer (shipped in the package, no network), which is close to
// but not the target model's own count, so the answer says it is an estimate.
import type { ServerResponse } from 'node:http';
import type { CanonicalRequest, ContentPart } from '../codecs/canonical.js';
import { toolResultText } from '../codecs/canonical.js';
import type { RelayOutcome } from './relay.js';

type Encode = (text: string) => number[];
let encodeO200k: Promise<Encode> | undefined;

/** The vocabulary takes a moment to load: only once a count is asked for. */
function loadEncoder(): Promise<Encode> {
  encodeO200k ??= import('gpt-tokenizer/encoding/o200k_base').then((module) => module.encode as Encode);
  return encodeO200k;
}

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
export async function estimateTextTokens(text: string): Promise<number> {
  return (await loadEncoder())(text).length;
}

export async function estimateInputTokens(request: CanonicalRequest): Promise<number> {
  const encode = await loadEncoder();
  let tokens = 0;
  const count = (text: string) => {
    if (text) tokens += encode(text).length;
  };
  for (const part of request.system) count(part.text);
  for (const turn of request.turns) {
    tokens += TOKENS_PER_TURN;
    for (const part of turn.parts) {
      if (part.type === 'image') tokens += TOKENS_PER_IMAGE;
      else count(partText(part));
    }
  }
  for (const tool of request.tools ?? []) count(`${tool.name} ${tool.description ?? ''} ${JSON.stringify(tool.parameters)}`);
  return tokens;
}

export async function sendTokenEstimate(res: ServerResponse, request: CanonicalRequest, started: number): Promise<RelayOutcome> {
  const body = JSON.stringify({ input_tokens: await estimateInputTokens(request) });
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-gateway-token-count': 'estimate' });
  res.end(body);
  return { status: 200, ttfbMs: performance.now() - started, error: null, responseBody: body };
}
