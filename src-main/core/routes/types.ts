// What a route is, as stored, exported and checked: plain data, the same in the routes file, the admin
// API and the router. A target names its virtual key by name, so a routes file reads well in git.

export const ROUTE_STRATEGIES = ['fallback', 'balance'] as const;
export type RouteStrategy = (typeof ROUTE_STRATEGIES)[number];

/** Conditions on a target, from the request: all given ones must hold for the target to be eligible. */
export interface TargetConditions {
  /** The prompt is at least this many tokens (estimated). */
  min_prompt_tokens?: number;
  /** Reasoning / extended thinking was asked for (true) or not (false). */
  thinking?: boolean;
  /** The request offers tools (true) or none (false). */
  tools?: boolean;
}

export interface TargetInput {
  /** A virtual key's name: its provider, credentials and custom host serve this target. */
  key: string;
  /** The model sent; absent: the requested name. */
  model?: string;
  /** This target's own time limit until its provider answers; then the next target is tried. */
  timeout_ms?: number;
  /** `balance`: the share of calls, relative to the other targets' weights (default 1). */
  weight?: number;
  when?: TargetConditions;
}

export interface RouteInput {
  name: string;
  /** An exact model name, or a glob with `*` (`claude-haiku-*`). */
  match: string;
  strategy: RouteStrategy;
  targets: TargetInput[];
}

/** A stored route, as the router reads it. */
export interface RouteDefinition extends RouteInput {
  id: string;
}

/** The routes file (what `gatehouse routes import` reads and `export` writes). */
export interface RoutesFile {
  routes: RouteInput[];
}

/** How a target is named in the log and the UI: "key → model" ("key → (requested)" never appears: the sent name is known). */
export function targetLabel(key: string, model: string): string {
  return `${key} → ${model}`;
}
