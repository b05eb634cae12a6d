// Components rendered to HTML with react-dom/server: what a person (or a screen reader) would get.
import { renderToStaticMarkup } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import type { LogEntry, Settings } from '../../../src-renderer/api/types';
import { OutputView } from '../../../src-renderer/pages/playground/OutputPanel';
import { LogsTable } from '../../../src-renderer/pages/logs/LogsTable';
import { KeyProtectionCard } from '../../../src-renderer/pages/SettingsPage';

function rows(count: number): LogEntry[] {
  return Array.from({ length: count }, (_, index) => ({
    id: `row-${index}`,
    createdAt: '2026-01-01T00:00:00.000Z',
    traceId: `trace-${index}`,
    metadata: {},
    provider: 'openai',
    model: `model-${index}`,
    path: '/v1/completions',
    status: index === 0 ? 502 : 200,
    latencyMs: 1500,
    ttfbMs: 200,
    promptTokens: 5,
    completionTokens: 7,
    stream: true,
    error: index === 0 ? 'Provider unreachable' : null,
    attempts: 1,
    cacheReadTokens: null,
    cacheWriteTokens: null,
    reasoningTokens: null,
    costUsd: null,
    client: null,
    dialect: 'openai-completions',
    providerFormat: 'openai-completions',
    dropped: [],
    route: null,
    routeTarget: null,
    keyId: null,
  }));
}

describe('the log table', () => {
  it('puts only the visible rows of 100,000 in the markup, but tells assistive technology the full count', () => {
    const html = renderToStaticMarkup(<LogsTable rows={rows(100_000)} selectedId="row-1" onSelect={() => undefined} onNearEnd={() => undefined} />);
    expect(html).toContain('aria-rowcount="100001"');
    const renderedRows = html.match(/role="row"/g) ?? [];
    expect(renderedRows.length).toBeGreaterThan(10);
    expect(renderedRows.length).toBeLessThan(40);
    expect(html).toContain('model-0');
    expect(html).not.toContain('model-500');
  });

  it('shows time, status, provider, model and latency on each row, and marks the selected one', () => {
    const html = renderToStaticMarkup(<LogsTable rows={rows(2)} selectedId="row-1" onSelect={() => undefined} onNearEnd={() => undefined} />);
    for (const header of ['Time', 'Status', 'Provider', 'Model', 'Latency']) expect(html).toContain(`>${header}<`);
    expect(html).toContain('1.50 s');
    expect(html).toContain('badge-danger');
    expect(html).toMatch(/aria-selected="true"[^>]*data-index="1"/);
  });

  it('marks requests the gateway retried', () => {
    const [retried] = rows(1);
    const html = renderToStaticMarkup(<LogsTable rows={[{ ...retried, attempts: 3 }]} selectedId={null} onSelect={() => undefined} onNearEnd={() => undefined} />);
    expect(html).toContain('3 attempts');
  });
});

describe('the Playground output', () => {
  it('is a region named Output holding each choice, with the run statistics beside it', () => {
    const stats = { status: 200, firstTokenMs: 85, latencyMs: 420, usage: { promptTokens: 4, completionTokens: 9, totalTokens: 13 }, finishReasons: ['stop', 'length'], traceId: 'trace-9', eventCount: 5 };
    const html = renderToStaticMarkup(<OutputView phase="done" outputs={['first', 'second']} stats={stats} error={null} mode="completion" />);
    expect(html).toMatch(/role="region" aria-label="Output"/);
    expect(html).toContain('Choice 2');
    expect(html).toContain('85 ms');
    expect(html).toContain('420 ms');
    expect(html).toContain('stop, length');
    expect(html).toContain('trace-9');
  });

  it('shows a failed run’s error in place with its status', () => {
    const html = renderToStaticMarkup(<OutputView phase="error" outputs={[]} stats={null} error={{ message: 'Invalid x-gateway-api-key', param: null, status: 401 }} mode="completion" />);
    expect(html).toContain('Request failed (401)');
    expect(html).toContain('Invalid x-gateway-api-key');
    expect(html).toContain('No output.');
  });
});

describe('key protection on the Settings page', () => {
  const base: Settings = {
    host: '127.0.0.1',
    port: 8787,
    dataDir: '/data',
    retentionDays: 30,
    maxLogRows: 1_000_000,
    storeBodies: true,
    discoveryPorts: [],
    teamLimitsWhenRedisDown: 'closed',
    mcpKeyDefault: 'allow',
    keyProtection: { mode: 'key-file', protected: false, warning: 'Secrets are only as safe as /data/master.key' },
  };

  it('warns visibly when stored credentials are not protected', () => {
    const html = renderToStaticMarkup(<KeyProtectionCard settings={base} />);
    expect(html).toContain('not protected');
    expect(html).toContain('role="alert"');
    expect(html).toContain('Secrets are only as safe as /data/master.key');
  });

  it('says so calmly when they are', () => {
    const html = renderToStaticMarkup(<KeyProtectionCard settings={{ ...base, keyProtection: { mode: 'os-keychain', protected: true, warning: null } }} />);
    expect(html).toContain('Key protection: protected');
    expect(html).not.toContain('role="alert"');
  });
});
