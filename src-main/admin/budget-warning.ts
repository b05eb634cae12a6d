// A USD budget counts what calls cost, and a call to a model without a known price costs "unknown", not
// $0: it is admitted and counts nothing. Rather than let a budget on such a key protect nothing in silence,
// the admin API says so beside the key's limits, when they are set and whenever they are read.
import { catalogModel } from '../catalog/catalog.js';
import type { KeyLimitsView } from '../core/limits.js';
import type { AdminServices } from './services.js';

export type KeyLimitsWithWarning = KeyLimitsView & { budgetWarning: string | null };

const PRICE_HINT = 'Set a price for it in Settings → Model prices, or use a request or token limit instead.';

/** Why the key's USD budget may count nothing, or null when the key has no budget or its models are priced. */
export function budgetWarning(services: Pick<AdminServices, 'keys'>, view: KeyLimitsView): string | null {
  if (view.limits.dailyUsd === null && view.limits.monthlyUsd === null) return null;
  if (view.kind !== 'virtual') return null;
  // From memory (the active keys the gateway serves), not a database read per listed key.
  const key = services.keys.callerForVirtualKeyId(view.keyId);
  if (!key || key.kind !== 'virtual-key') return null;
  const models = [...new Set([key.defaultModel, ...Object.values(key.modelMap ?? {})].filter((model): model is string => typeof model === 'string'))];
  const unpriced = models.filter((model) => catalogModel(key.provider, model)?.prices == null);
  if (unpriced.length) {
    const names = unpriced.map((model) => `'${model}'`).join(', ');
    return `No price is known for ${names} at ${key.provider}: calls to ${unpriced.length === 1 ? 'it' : 'them'} count nothing against this budget, so it does not limit them. ${PRICE_HINT}`;
  }
  if (key.customHost && models.length === 0) {
    return `This key calls ${key.customHost}: models served there (local ones especially) usually have no known price, and a call without a price counts nothing against this budget. ${PRICE_HINT}`;
  }
  return null;
}

export function withBudgetWarning(services: Pick<AdminServices, 'keys'>, view: KeyLimitsView): KeyLimitsWithWarning {
  return { ...view, budgetWarning: budgetWarning(services, view) };
}
