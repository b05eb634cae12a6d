// Paths through Gatehouse beside the main `/v1/completions` row: each is loaded like that row (32
// connections for throughput, 1 for latency) in alternating rounds with it, and reported as a ratio to
// it, so a dialect or feature shows what it costs on top of the plain proxy path.
import autocannon from 'autocannon';
import { COMPLETION_BODY, median } from './load.js';
import { GEMINI_MODEL, GEMINI_REQUEST_BODY, GEMINI_RESPONSE, GEMINI_STREAM_BYTES } from './gemini-answers.js';

export interface Variant {
  label: string;
  url: string;
  headers: Record<string, string>;
  body: string;
  /** A text the answer must contain: a variant that answers wrongly would measure nothing. */
  expect: string;
  /** Passthrough: the answer must be these bytes exactly (Gatehouse relays the provider's body unchanged). */
  exact?: string;
}

export interface VariantResult {
  label: string;
  requestsPerSecond: number[];
  singleMeanMs: number[];
  failures: number;
  /** Every request this variant sent, checks and warm-up included (each leaves a log row). */
  sent: number;
}

const EMBEDDINGS_BODY = JSON.stringify({ model: 'text-embedding-3-small', input: 'Say this is a test', encoding_format: 'float' });
const MESSAGES_BODY = JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'Say this is a test' }] });

/**
 * The dialect rows of issue 12: Anthropic Messages passed through to an Anthropic-format provider (bytes
 * unchanged), and translated to an OpenAI Chat provider (decoded, encoded, and the answer back).
 */
export function dialectVariants(gatehousePort: number, upstreamPort: number, auth: { gatewayKey: string; providerToken: string }): Variant[] {
  const base = `http://127.0.0.1:${gatehousePort}`;
  const provider = (slug: string) => ({
    'x-gateway-api-key': auth.gatewayKey,
    'x-gateway-provider': slug,
    'x-gateway-custom-host': `http://127.0.0.1:${upstreamPort}/v1`,
    authorization: `Bearer ${auth.providerToken}`,
    'anthropic-version': '2023-06-01',
  });
  return [
    { label: 'Gatehouse /v1/completions (the row to compare with)', url: `${base}/v1/completions`, headers: provider('openai'), body: COMPLETION_BODY, expect: 'cmpl-bench' },
    { label: '/v1/messages passthrough (Anthropic)', url: `${base}/v1/messages`, headers: provider('anthropic'), body: MESSAGES_BODY, expect: 'msg_bench' },
    { label: '/v1/messages translated (to OpenAI Chat)', url: `${base}/v1/messages`, headers: provider('openai'), body: MESSAGES_BODY, expect: '"type":"message"' },
    { label: '/v1/embeddings passthrough (OpenAI)', url: `${base}/v1/embeddings`, headers: provider('openai'), body: EMBEDDINGS_BODY, expect: '"object":"embedding"' },
  ];
}

/**
 * The Gemini rows of issue 24: a Gemini client's call (`x-goog-api-key` holding a virtual key, the model in
 * the path) to a key whose provider is Gemini (passthrough: the answer's bytes come back unchanged, checked
 * before the rows are measured) and to a key whose provider speaks OpenAI Chat (translated both ways); plain
 * and streamed (`alt=sse`, ten fragments) each.
 */
export function geminiVariants(gatehousePort: number, keys: { gemini: string; chat: string }): Variant[] {
  const url = (method: 'generateContent' | 'streamGenerateContent') =>
    `http://127.0.0.1:${gatehousePort}/v1beta/models/${GEMINI_MODEL}:${method}${method === 'streamGenerateContent' ? '?alt=sse' : ''}`;
  const headers = (key: string) => ({ 'x-goog-api-key': key });
  return [
    { label: 'Gemini generateContent passthrough (Gemini)', url: url('generateContent'), headers: headers(keys.gemini), body: GEMINI_REQUEST_BODY, expect: 'gemini-bench', exact: GEMINI_RESPONSE },
    {
      label: 'Gemini streamGenerateContent passthrough (Gemini)',
      url: url('streamGenerateContent'),
      headers: headers(keys.gemini),
      body: GEMINI_REQUEST_BODY,
      expect: '"finishReason":"STOP"',
      exact: GEMINI_STREAM_BYTES,
    },
    { label: 'Gemini generateContent translated (to OpenAI Chat)', url: url('generateContent'), headers: headers(keys.chat), body: GEMINI_REQUEST_BODY, expect: '"candidates"' },
    { label: 'Gemini streamGenerateContent translated (to OpenAI Chat)', url: url('streamGenerateContent'), headers: headers(keys.chat), body: GEMINI_REQUEST_BODY, expect: '"finishReason":"STOP"' },
  ];
}

async function load(variant: Variant, connections: number, seconds: number) {
  const result = await autocannon({ url: variant.url, connections, duration: seconds, method: 'POST', headers: { 'content-type': 'application/json', ...variant.headers }, body: variant.body });
  const completed = result.requests.total;
  return { completed, requestsPerSecond: completed / result.duration, meanMs: (connections * result.duration * 1000) / Math.max(completed, 1), failures: result.errors + result.timeouts + result.non2xx };
}

export async function checkVariant(variant: Variant): Promise<void> {
  const response = await fetch(variant.url, { method: 'POST', headers: { 'content-type': 'application/json', ...variant.headers }, body: variant.body });
  const text = await response.text();
  if (response.status !== 200 || !text.includes(variant.expect)) throw new Error(`${variant.label} does not answer as expected: ${response.status} ${text}`);
  if (variant.exact !== undefined && text !== variant.exact) throw new Error(`${variant.label} changed the provider's bytes on the way:\n${text}\n  — the provider sent —\n${variant.exact}`);
}

/** Rounds over the variants in rotated order, as the main rows are measured. */
export async function measureVariants(
  variants: Variant[],
  plan: { rounds: number; loadSeconds: number; singleSeconds: number; warmSeconds: number },
  say: (line: string) => void,
): Promise<VariantResult[]> {
  for (const variant of variants) await checkVariant(variant);
  const results: VariantResult[] = variants.map((variant) => ({ label: variant.label, requestsPerSecond: [], singleMeanMs: [], failures: 0, sent: 1 }));
  for (const [index, variant] of variants.entries()) results[index].sent += (await load(variant, 32, plan.warmSeconds)).completed;
  for (let round = 0; round < plan.rounds; round++) {
    for (let i = 0; i < variants.length; i++) {
      const index = (i + round) % variants.length;
      const loaded = await load(variants[index], 32, plan.loadSeconds);
      const single = await load(variants[index], 1, plan.singleSeconds);
      results[index].requestsPerSecond.push(loaded.requestsPerSecond);
      results[index].singleMeanMs.push(single.meanMs);
      results[index].failures += loaded.failures + single.failures;
      results[index].sent += loaded.completed + single.completed;
      say(`  ${variants[index].label.padEnd(44)} ${loaded.requestsPerSecond.toFixed(0).padStart(6)} req/s  mean ${single.meanMs.toFixed(3)} ms${loaded.failures + single.failures ? `  FAILURES ${loaded.failures + single.failures}` : ''}`);
    }
  }
  return results;
}

/** The table on docs/performance.md: each row against the first (Gatehouse's /v1/completions). */
export function renderVariants(results: readonly VariantResult[]): string[] {
  if (results.length === 0) return [];
  const first = results[0];
  const firstRps = median(first.requestsPerSecond);
  const firstMs = median(first.singleMeanMs);
  const lines = [
    '| path | requests/s, 32 connections | vs /v1/completions | mean latency, 1 connection (ms) | added vs /v1/completions (ms) | failures |',
    '|---|---|---|---|---|---|',
  ];
  for (const result of results) {
    const rps = median(result.requestsPerSecond);
    const ms = median(result.singleMeanMs);
    lines.push(`| ${result.label} | ${rps.toFixed(0)} | ${(rps / firstRps).toFixed(2)}× | ${ms.toFixed(3)} | ${(ms - firstMs).toFixed(3)} | ${result.failures} |`);
  }
  return lines;
}
