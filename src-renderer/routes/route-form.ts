// The route dialog's form, as plain data: a route turned into editable text fields and back, the
// server's error `param` turned into the field it names, and how a route reads in a list.
import type { Route, RouteInput, RouteStrategy, TargetConditions, TargetInput } from '../api/types';

/** A condition that may be required true, required false, or left out. */
export type Tristate = 'any' | 'yes' | 'no';

export interface TargetDraft {
  /** Stable across reorders, for React keys and focus; never sent. */
  uid: number;
  key: string;
  model: string;
  weight: string;
  timeoutMs: string;
  minPromptTokens: string;
  thinking: Tristate;
  tools: Tristate;
}

export interface RouteDraft {
  name: string;
  match: string;
  strategy: RouteStrategy;
  targets: TargetDraft[];
}

/** Field errors by the field's path in RouteInput: `name`, `match`, `targets`, `targets[1].key` … */
export type RouteFormErrors = Partial<Record<string, string>>;

let nextTargetUid = 1;

export function emptyTarget(key = ''): TargetDraft {
  return { uid: nextTargetUid++, key, model: '', weight: '', timeoutMs: '', minPromptTokens: '', thinking: 'any', tools: 'any' };
}

const tristateOf = (value: boolean | undefined): Tristate => (value === undefined ? 'any' : value ? 'yes' : 'no');
const numberText = (value: number | undefined) => (value === undefined ? '' : String(value));

export function draftFromRoute(route: RouteInput | null, firstKeyName = ''): RouteDraft {
  if (!route) return { name: '', match: '', strategy: 'fallback', targets: [emptyTarget(firstKeyName)] };
  return {
    name: route.name,
    match: route.match,
    strategy: route.strategy,
    targets: route.targets.map((target) => ({
      uid: nextTargetUid++,
      key: target.key,
      model: target.model ?? '',
      weight: numberText(target.weight),
      timeoutMs: numberText(target.timeout_ms),
      minPromptTokens: numberText(target.when?.min_prompt_tokens),
      thinking: tristateOf(target.when?.thinking),
      tools: tristateOf(target.when?.tools),
    })),
  };
}

/** A whole number at least `min`, or the reason it is not. Empty is "not set". */
function readWholeNumber(text: string, min: number, what: string): { value?: number; error?: string } {
  const trimmed = text.trim();
  if (!trimmed) return {};
  const value = Number(trimmed);
  if (!Number.isInteger(value) || value < min) return { error: `${what} must be a whole number of at least ${min}` };
  return { value };
}

/**
 * The RouteInput the dialog would save, with the errors that block saving. Checks only what the
 * form can know; the server judges the rest (shadowed globs, revoked keys) and names the field.
 */
export function routeInputFromDraft(draft: RouteDraft): { input: RouteInput; errors: RouteFormErrors } {
  const errors: RouteFormErrors = {};
  const name = draft.name.trim();
  const match = draft.match.trim();
  if (!name) errors.name = 'Give the route a name';
  if (!match) errors.match = 'Enter the model name to match, e.g. gpt-5 or claude-haiku-*';
  if (!draft.targets.length) errors.targets = 'Add at least one target';
  const targets = draft.targets.map((target, index): TargetInput => {
    const at = `targets[${index}]`;
    const result: TargetInput = { key: target.key };
    if (!target.key) errors[`${at}.key`] = 'Choose a virtual key';
    if (target.model.trim()) result.model = target.model.trim();
    const weightText = target.weight.trim();
    const weight = Number(weightText);
    if (weightText && !(Number.isFinite(weight) && weight > 0)) errors[`${at}.weight`] = 'Weight must be a number above 0';
    else if (weightText) result.weight = weight;
    const timeout = readWholeNumber(target.timeoutMs, 1, 'Timeout');
    if (timeout.error) errors[`${at}.timeout_ms`] = timeout.error;
    else if (timeout.value !== undefined) result.timeout_ms = timeout.value;
    const when: TargetConditions = {};
    const minTokens = readWholeNumber(target.minPromptTokens, 0, 'Prompt tokens');
    if (minTokens.error) errors[`${at}.when.min_prompt_tokens`] = minTokens.error;
    else if (minTokens.value !== undefined) when.min_prompt_tokens = minTokens.value;
    if (target.thinking !== 'any') when.thinking = target.thinking === 'yes';
    if (target.tools !== 'any') when.tools = target.tools === 'yes';
    if (Object.keys(when).length) result.when = when;
    return result;
  });
  return { input: { name, match, strategy: draft.strategy, targets }, errors };
}

/**
 * The form field a server error names. The admin API names paths inside the route (`targets[0].key`);
 * an import names them inside the file (`routes[2].targets[0].key`), which the dialog does not have.
 */
export function fieldOfParam(param: string | null | undefined): string | null {
  if (!param) return null;
  const inRoute = param.replace(/^routes\[\d+\]\.?/, '').replace(/\.timeoutMs$/, '.timeout_ms').replace(/\.minPromptTokens$/, '.min_prompt_tokens');
  return inRoute || null;
}

/** The fields the dialog shows an error beside; any other param goes in the general notice. */
export function isShownField(field: string | null, targetCount: number): boolean {
  if (!field) return false;
  if (['name', 'match', 'strategy', 'targets'].includes(field)) return true;
  const target = /^targets\[(\d+)\](?:\.(key|model|weight|timeout_ms|when(?:\.(?:min_prompt_tokens|thinking|tools))?))?$/.exec(field);
  return Boolean(target && Number(target[1]) < targetCount);
}

/** The error for one target's field, falling back to one about the target as a whole. */
export function targetError(errors: RouteFormErrors, index: number, field: 'key' | 'model' | 'weight' | 'timeout_ms' | 'when'): string | undefined {
  const at = `targets[${index}]`;
  if (field === 'when') return errors[`${at}.when`] ?? errors[`${at}.when.min_prompt_tokens`] ?? errors[`${at}.when.thinking`] ?? errors[`${at}.when.tools`];
  return errors[`${at}.${field}`] ?? (field === 'key' ? errors[at] : undefined);
}

export function moveItem<T>(items: readonly T[], from: number, to: number): T[] {
  if (from === to || from < 0 || from >= items.length || to < 0 || to >= items.length) return [...items];
  const next = [...items];
  const [moved] = next.splice(from, 1);
  next.splice(to, 0, moved);
  return next;
}

/** A model name the match accepts, to test a route with: a glob's `*` filled in. */
export function sampleModelFor(match: string): string {
  if (!match.includes('*')) return match;
  const filled = match.replace(/\*+/g, 'example');
  return filled;
}

/** "prompt ≥ 60,000 tokens · thinking · no tools"; empty when the target always applies. */
export function describeConditions(when: TargetConditions | undefined): string {
  if (!when) return '';
  const parts: string[] = [];
  if (when.min_prompt_tokens !== undefined) parts.push(`prompt ≥ ${when.min_prompt_tokens.toLocaleString('en-US')} tokens`);
  if (when.thinking !== undefined) parts.push(when.thinking ? 'thinking' : 'no thinking');
  if (when.tools !== undefined) parts.push(when.tools ? 'tools' : 'no tools');
  return parts.join(' · ');
}

export const STRATEGY_LABELS: Record<RouteStrategy, string> = {
  fallback: 'Fallback',
  balance: 'Balance',
};

export const STRATEGY_DESCRIPTIONS: Record<RouteStrategy, string> = {
  fallback: 'Targets in order: on 429, 5xx, a timeout or a connection error before the answer starts, the next one is tried.',
  balance: 'Spread by weight; a target that just failed sits out its cool-down and the others take over.',
};

/** The route list's ids after moving one route `delta` places (clamped); null when it cannot move. */
export function orderAfterMove(routes: readonly Pick<Route, 'id'>[], id: string, delta: number): string[] | null {
  const from = routes.findIndex((route) => route.id === id);
  if (from < 0) return null;
  const to = Math.max(0, Math.min(routes.length - 1, from + delta));
  if (to === from) return null;
  return moveItem(routes, from, to).map((route) => route.id);
}
