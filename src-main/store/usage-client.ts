// The client tool a call came from, for the Usage page's breakdown: known tools by their user-agent,
// other programs by the product name their user-agent starts with, and calls without one by the dialect
// they spoke. Kept to short lowercase names so a stray user-agent cannot flood the usage tables.
import { boundedMemo } from '../core/bounded-memo.js';

/** Known user-agents, first match wins: agents before the SDKs they are built on. */
const KNOWN_CLIENTS: readonly [RegExp, string][] = [
  [/claude-cli|claude-code/i, 'claude-cli'],
  [/codex/i, 'codex'],
  [/opencode/i, 'opencode'],
  [/aider/i, 'aider'],
  [/\bcline\b/i, 'cline'],
  [/roo-?code/i, 'roo-code'],
  [/continue/i, 'continue'],
  [/cursor/i, 'cursor'],
  [/litellm/i, 'litellm'],
  [/langchain/i, 'langchain'],
  [/\bai-sdk\b|vercel/i, 'ai-sdk'],
  [/^anthropic\/js/i, 'anthropic-sdk'],
  [/^anthropic\/python/i, 'anthropic-python'],
  [/^anthropic/i, 'anthropic-sdk'],
  [/^openai\/js/i, 'openai-js'],
  [/^openai\/python/i, 'openai-python'],
  [/^openai/i, 'openai-sdk'],
  [/^curl\//i, 'curl'],
  [/^python-requests/i, 'python-requests'],
  [/^python-httpx/i, 'python-httpx'],
  [/^(mozilla|chrome|safari)/i, 'browser'],
];

/** Shown for a call with neither a user-agent nor a dialect (model lists). */
export const UNKNOWN_CLIENT = 'unknown';

/** Beyond this many other product names in one run, the rest count as 'other': a stream of made-up user-agents cannot grow the usage tables without bound. */
const MAX_OTHER_PRODUCTS = 64;
export const OTHER_CLIENT = 'other';
const otherProducts = new Set<string>();

/** A tool sends the same user-agent on every call: matched once, not against every pattern per row. */
const clientOfAgent = boundedMemo<string | null>(1024, (agent) => {
  for (const [pattern, name] of KNOWN_CLIENTS) if (pattern.test(agent)) return name;
  const product = /^([A-Za-z][A-Za-z0-9._-]{0,31})/.exec(agent)?.[1].toLowerCase();
  if (!product) return null;
  if (otherProducts.has(product)) return product;
  if (otherProducts.size >= MAX_OTHER_PRODUCTS) return OTHER_CLIENT;
  otherProducts.add(product);
  return product;
});

export function clientOf(userAgent: string | undefined, dialect: string | null): string {
  const agent = userAgent?.trim();
  return (agent ? clientOfAgent(agent) : null) ?? dialect ?? UNKNOWN_CLIENT;
}
