// The router of a running gateway: holds a snapshot of the route table (swapped whole when routes
// change), finds the route of a requested model, and orders its targets for one request — by the
// strategy, the targets' conditions and which targets failed recently. It knows no store and no
// Electron: keys are looked up by name through the function it is given.
import type { Caller } from '../../core/keys.js';
import { compileMatcher } from '../../core/routes/match.js';
import { isCatchAll } from '../../core/routes/validate.js';
import { conditionFailure, type RequestTraits } from './conditions.js';
import type { RandomSource } from './random.js';
import { targetLabel, type RouteDefinition, type RouteStrategy, type TargetInput } from '../../core/routes/types.js';

/** How long a target that failed is left out before it is tried again. */
export const DEFAULT_COOLDOWN_MS = 30_000;
/** Cool-downs held at once; past this, expired ones go, then the oldest. */
const MAX_COOLDOWNS = 1024;

export interface RouterOptions {
  /** The active virtual key of a name; undefined when there is none (revoked, renamed, deleted). */
  keyByName: (name: string) => Caller | undefined;
  random?: RandomSource;
  now?: () => number;
  cooldownMs?: number;
}

export interface CompiledRoute {
  id: string;
  name: string;
  strategy: RouteStrategy;
  targets: readonly TargetInput[];
  matches: (model: string) => boolean;
  /** Matches every model (`*`): the default route, which a virtual key's own provider goes before. */
  catchAll: boolean;
}

/** One target to try, in order, for one request. */
export interface PlannedTarget {
  key: string;
  /** The model name to send (before the key's own model map). */
  model: string;
  label: string;
  timeoutMs?: number;
  caller: Extract<Caller, { kind: 'virtual-key' }>;
}

/** A target left out of this request, and why ("cooling down", "key unavailable"). */
export interface SkippedTarget {
  label: string;
  reason: string;
}

export interface RoutePlan {
  route: CompiledRoute;
  attempts: PlannedTarget[];
  skipped: SkippedTarget[];
  /** Why each target whose conditions do not hold was left out (no attempt is logged for those). */
  ineligible: SkippedTarget[];
}

export interface ExplainedTarget {
  key: string;
  model: string;
  eligible: boolean;
  reason: string | null;
}

export interface Explanation {
  route: string | null;
  strategy: RouteStrategy | null;
  targets: ExplainedTarget[];
}

export class Router {
  private routes: CompiledRoute[] = [];
  /** Cool-downs by key name and model: when each target may be tried again. */
  private readonly coolingUntil = new Map<string, number>();
  private readonly random: RandomSource;
  private readonly now: () => number;
  readonly cooldownMs: number;

  constructor(private readonly options: RouterOptions) {
    this.random = options.random ?? Math.random;
    this.now = options.now ?? Date.now;
    this.cooldownMs = options.cooldownMs ?? DEFAULT_COOLDOWN_MS;
  }

  /** Replaces the route table (in order: first match wins). */
  setRoutes(definitions: readonly RouteDefinition[]): void {
    this.routes = definitions.map((route) => ({
      id: route.id,
      name: route.name,
      strategy: route.strategy,
      targets: route.targets,
      matches: compileMatcher(route.match),
      catchAll: isCatchAll(route.match),
    }));
  }

  /** True when no route exists: the proxy's hot path checks this and does nothing more. */
  get isEmpty(): boolean {
    return this.routes.length === 0;
  }

  names(): string[] {
    return this.routes.map((route) => route.name);
  }

  /**
   * The route a model goes to. `forVirtualKey`: a catch-all is skipped unless named, so a virtual key keeps
   * calling its own provider when no specific route matches (a default never overrides a key's provider).
   */
  match(model: string, forVirtualKey = false): CompiledRoute | undefined {
    // A route's own name selects it too, so a model picker offering route names works.
    for (const route of this.routes) {
      if (route.name === model) return route;
      if (route.matches(model) && !(forVirtualKey && route.catchAll)) return route;
    }
    return undefined;
  }

  /** The targets to try for one request to `route`, in order. */
  plan(route: CompiledRoute, requestedModel: string, traits: RequestTraits): RoutePlan {
    const eligible: TargetInput[] = [];
    const ineligible: SkippedTarget[] = [];
    for (const target of route.targets) {
      const failure = conditionFailure(target.when, traits);
      if (failure) ineligible.push({ label: targetLabel(target.key, target.model ?? requestedModel), reason: failure });
      else eligible.push(target);
    }
    const ordered = route.strategy === 'balance' ? this.weightedOrder(eligible) : eligible;
    const fresh: PlannedTarget[] = [];
    const cooling: PlannedTarget[] = [];
    const skipped: SkippedTarget[] = [];
    const now = this.now();
    for (const target of ordered) {
      const model = target.model ?? requestedModel;
      const label = targetLabel(target.key, model);
      const caller = this.options.keyByName(target.key);
      if (!caller || caller.kind !== 'virtual-key') {
        skipped.push({ label, reason: 'key unavailable' });
        continue;
      }
      const planned: PlannedTarget = { key: target.key, model, label, caller, ...(target.timeout_ms !== undefined ? { timeoutMs: target.timeout_ms } : {}) };
      if ((this.coolingUntil.get(cooldownKey(target.key, model)) ?? 0) > now) cooling.push(planned);
      else fresh.push(planned);
    }
    // Targets cooling down are skipped while another can serve; when all are cooling, all are tried
    // rather than none.
    if (fresh.length === 0) return { route, attempts: cooling, skipped, ineligible };
    for (const target of cooling) skipped.push({ label: target.label, reason: 'cooling down' });
    return { route, attempts: fresh, skipped, ineligible };
  }

  /** A target failed (429, 5xx, timeout, connection): it is left out for the cool-down. */
  recordFailure(target: PlannedTarget): void {
    const now = this.now();
    // A target without a model sends whatever name was asked for: many names could pile up here.
    if (this.coolingUntil.size >= MAX_COOLDOWNS) {
      for (const [key, until] of this.coolingUntil) if (until <= now) this.coolingUntil.delete(key);
      if (this.coolingUntil.size >= MAX_COOLDOWNS) this.coolingUntil.delete(this.coolingUntil.keys().next().value!);
    }
    this.coolingUntil.set(cooldownKey(target.key, target.model), now + this.cooldownMs);
  }

  /** A target served: any cool-down it had is over. */
  recordSuccess(target: PlannedTarget): void {
    if (this.coolingUntil.size) this.coolingUntil.delete(cooldownKey(target.key, target.model));
  }

  /** What the router would do for a request (the admin API's explain; the UI's Test button). */
  explain(model: string, traits: RequestTraits): Explanation {
    const route = this.match(model);
    if (!route) return { route: null, strategy: null, targets: [] };
    const now = this.now();
    return {
      route: route.name,
      strategy: route.strategy,
      targets: route.targets.map((target) => {
        const sent = target.model ?? model;
        const condition = conditionFailure(target.when, traits);
        const caller = this.options.keyByName(target.key);
        const reason =
          condition ??
          (!caller ? `virtual key '${target.key}' is revoked or unknown` : (this.coolingUntil.get(cooldownKey(target.key, sent)) ?? 0) > now ? 'cooling down' : null);
        return { key: target.key, model: sent, eligible: reason === null, reason };
      }),
    };
  }

  /** Weighted random order without replacement: the first pick follows the weights, the rest are fallbacks. */
  private weightedOrder(targets: TargetInput[]): TargetInput[] {
    if (targets.length < 2) return targets;
    const left = [...targets];
    const order: TargetInput[] = [];
    while (left.length > 1) {
      const total = left.reduce((sum, target) => sum + (target.weight ?? 1), 0);
      let pick = this.random() * total;
      let index = 0;
      while (index < left.length - 1 && pick >= (left[index].weight ?? 1)) {
        pick -= left[index].weight ?? 1;
        index++;
      }
      order.push(left.splice(index, 1)[0]);
    }
    order.push(left[0]);
    return order;
  }
}

function cooldownKey(key: string, model: string): string {
  return `${key}\u0000${model}`;
}
