// The most a call can cost, worked out on the serving thread from what admission already has (the body's
// size and a few of its fields, the catalog's prices): what a budget holds for it while it runs. Cheap by
// design — no tokenizer: the prompt is taken as its bytes / 3 (o200k averages 4+ bytes a token on text
// and code, so this leans high), never more than the model's context window (a base64 image is not a
// million tokens), and the output as the most the call may ask the provider for.
import type { Operation } from '../../providers/types.js';
import type { Ingress } from '../ingress/types.js';
import { catalogModel } from '../../catalog/catalog.js';
import { priceCall } from '../../catalog/pricing.js';

/** Bytes of request body taken as one prompt token. */
export const RESERVED_BYTES_PER_TOKEN = 3;
/** The output a call is taken to ask for when neither the request nor the catalog names a maximum. */
export const DEFAULT_RESERVED_OUTPUT_TOKENS = 32_768;

export interface CallShape {
  provider: string;
  /** The model the call is priced by (an Azure deployment's stored model, else the model sent). */
  pricedModel: string;
  /** The dialect the call came in: it says the output the body asks for. */
  ingress: Pick<Ingress, 'maxOutputTokens'>;
  operation: Operation;
  body: unknown;
  bodyBytes: number;
  /** Provider calls the gateway makes for it (one per choice when the provider has no `n`). */
  calls: number;
  /** Answers generated in all (`n`, or Completions' `best_of` when larger): each may be max-length. */
  choices: number;
}

/** The call's worst-case cost in USD; null when its model has no price (it then counts towards no budget). */
export function worstCaseCostUsd(call: CallShape): number | null {
  // A token count is answered by the gateway or the provider for free.
  if (call.operation !== 'generate') return 0;
  const model = catalogModel(call.provider, call.pricedModel);
  if (!model?.prices) return null;
  const window = model.contextWindow ?? Infinity;
  const promptTokens = Math.min(Math.ceil(call.bodyBytes / RESERVED_BYTES_PER_TOKEN), window);
  const asked = call.ingress.maxOutputTokens(call.body) ?? model.maxOutputTokens ?? DEFAULT_RESERVED_OUTPUT_TOKENS;
  // A model cannot write more than its maximum (nor than its window): a larger ask is the provider's 400, never a bill.
  const outputTokens = Math.min(asked, model.maxOutputTokens ?? Infinity, window);
  return priceCall(call.provider, call.pricedModel, { inputTokens: promptTokens * call.calls, outputTokens: outputTokens * call.choices });
}
