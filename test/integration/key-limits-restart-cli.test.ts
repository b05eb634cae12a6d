// Limits per key across a restart (spend and the last minute's requests come back), and set from the
// command line beside a running server on the same data dir (in effect within a second).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type TestGateway } from '../helpers/gateway.js';
import { startOpenAIFake, type OpenAIFake } from '../fakes/openai.js';
import { priceCall } from '../../src-main/catalog/pricing.js';

const repoRoot = fileURLToPath(new URL('../..', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'gatehouse-limits-'));
let openai: OpenAIFake;
let gateway: TestGateway | undefined;

beforeAll(async () => {
  openai = await startOpenAIFake();
});
afterAll(async () => {
  await gateway?.close();
  await openai.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface LimitsView {
  limits: { rpm: number | null; tpm: number | null; dailyUsd: number | null; monthlyUsd: number | null };
  requestsLastMinute: number;
  spentTodayUsd: number;
  blocked: { limit: string } | null;
}

async function chat(key: string): Promise<{ status: number; code: unknown }> {
  const response = await fetch(`${gateway!.baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-gateway-api-key': key, 'x-gateway-provider': 'openai', 'x-gateway-custom-host': openai.baseUrl, authorization: 'Bearer sk-test' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
  });
  const body = (await response.json()) as { error?: { code: unknown } };
  return { status: response.status, code: body.error?.code };
}

async function view(id: string): Promise<LimitsView> {
  return (await (await gateway!.admin(`/keys/${id}/limits`)).json()) as LimitsView;
}

/** Runs `gatehouse <args>` as its own process, as a user would from a second terminal. */
function cli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src-main/cli.ts', ...args, '--data-dir', dataDir], {
      cwd: repoRoot,
      env: { PATH: process.env.PATH, HOME: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Milliseconds until `check` holds, polling; fails past the limit. */
async function millisecondsUntil(check: () => Promise<boolean>, limitMs: number): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < limitMs) {
    if (await check()) return Date.now() - start;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`not within ${limitMs} ms`);
}

describe('limits per key across a restart and from the CLI', () => {
  it("a key's spend and its last minute's requests survive a restart", async () => {
    gateway = await startGateway({ dataDir });
    const created = (await (await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'night-agent' }) })).json()) as { id: string; key: string };
    const perCall = priceCall('openai', 'gpt-4o-mini', { inputTokens: 5, outputTokens: 3 })!;
    // The budget is lowered under what was spent once the calls are made: a budget too small to hold one
    // call's worst case (its maximum output) would refuse them before they reach the provider.
    await gateway.admin(`/keys/${created.id}/limits`, { method: 'PUT', body: JSON.stringify({ rpm: 4, dailyUsd: 1 }) });
    for (let i = 0; i < 3; i++) expect((await chat(created.key)).status).toBe(200);
    await gateway.admin(`/keys/${created.id}/limits`, { method: 'PUT', body: JSON.stringify({ rpm: 4, dailyUsd: perCall * 2.5 }) });
    expect(await chat(created.key)).toEqual({ status: 429, code: 'budget_exceeded' });
    await gateway.close();

    gateway = await startGateway({ dataDir });
    const after = await view(created.id);
    expect(after.spentTodayUsd).toBeCloseTo(perCall * 3, 12);
    expect(after.requestsLastMinute).toBe(3);
    expect(after.blocked?.limit).toBe('dailyUsd');
    expect(await chat(created.key)).toEqual({ status: 429, code: 'budget_exceeded' });

    // With the budget raised, the rpm window restored from before the restart leaves room for one.
    await gateway.admin(`/keys/${created.id}/limits`, { method: 'PUT', body: JSON.stringify({ rpm: 4, dailyUsd: 1 }) });
    expect((await chat(created.key)).status).toBe(200);
    expect(await chat(created.key)).toEqual({ status: 429, code: 'rate_limit_exceeded' });
  });

  it('gatehouse keys limits NAME sets and clears limits on a running server within a second', async () => {
    gateway ??= await startGateway({ dataDir });
    const created = (await (await gateway.admin('/gateway-keys', { method: 'POST', body: JSON.stringify({ name: 'cli-limited' }) })).json()) as { id: string; key: string };

    const set = await cli(['keys', 'limits', 'cli-limited', '--rpm', '2', '--daily-usd', '5']);
    expect(set.code).toBe(0);
    expect(set.stderr).toContain(`Limits of gateway API key ${created.id} 'cli-limited': 2 requests/min, $5/day.`);
    expect(await millisecondsUntil(async () => (await view(created.id)).limits.rpm === 2, 1000)).toBeLessThan(1000);
    expect((await chat(created.key)).status).toBe(200);
    expect((await chat(created.key)).status).toBe(200);
    expect(await chat(created.key)).toEqual({ status: 429, code: 'rate_limit_exceeded' });

    // Flags change what they name and keep the rest; 'none' removes one.
    const changed = await cli(['keys', 'limits', 'cli-limited', '--daily-usd', 'none', '--tpm', '5000']);
    expect(changed.stderr).toContain('2 requests/min, 5000 tokens/min.');
    const shown = await cli(['keys', 'limits', 'cli-limited']);
    expect(shown.stdout).toMatch(new RegExp(`^${created.id} 'cli-limited' \\(gateway\\): 2 requests/min, 5000 tokens/min; spent \\$0\\.0000 today`));

    const cleared = await cli(['keys', 'limits', 'cli-limited', '--clear']);
    expect(cleared.code).toBe(0);
    expect(cleared.stderr).toContain('no limits');
    expect(await millisecondsUntil(async () => (await view(created.id)).limits.rpm === null, 1000)).toBeLessThan(1000);
    expect((await chat(created.key)).status).toBe(200);

    const unknown = await cli(['keys', 'limits', 'nobody']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No active virtual key or gateway API key named 'nobody'");
    const bad = await cli(['keys', 'limits', 'cli-limited', '--rpm', 'lots']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--rpm takes a number (or 'none' to remove it), not 'lots'.");
    const fractional = await cli(['keys', 'limits', 'cli-limited', '--rpm', '1.5']);
    expect(fractional.code).toBe(2);
    expect(fractional.stderr).toContain('--rpm must be a whole number');
    // Seven CLI processes, each compiling the sources with tsx on a shared machine.
  }, 90_000);
});
