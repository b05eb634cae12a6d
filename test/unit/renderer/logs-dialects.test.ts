// The Logs page's dialect: the live feed keeps only the entries the server's dialect filter would
// return, the filter reaches the admin API query, and each dialect has a short name for its badge.
import { describe, expect, it } from 'vitest';
import type { LogEntry } from '../../../src-renderer/api/types';
import { dialectLabel, providerFormatLabel } from '../../../src-renderer/logs/dialects';
import { EMPTY_FILTERS, matchesFilters, queryOf } from '../../../src-renderer/stores/logs-store';

const entry = (dialect: string | null): LogEntry => ({
  id: '1', createdAt: '2026-01-01T00:00:00.000Z', traceId: 't', metadata: {}, provider: 'anthropic', model: 'claude', path: '/v1/messages',
  status: 200, latencyMs: 1, ttfbMs: 1, promptTokens: 1, completionTokens: 1, cacheReadTokens: null, cacheWriteTokens: null, reasoningTokens: null, costUsd: null, client: null,
  stream: true, error: null, attempts: 1, dialect, providerFormat: 'openai-chat', dropped: [], route: null, routeTarget: null, keyId: null,
});

describe('the dialect filter', () => {
  it('keeps live entries of that dialect only, as the server does', () => {
    const filters = { ...EMPTY_FILTERS, dialect: 'anthropic-messages' };
    expect(matchesFilters(entry('anthropic-messages'), filters)).toBe(true);
    expect(matchesFilters(entry('openai-chat'), filters)).toBe(false);
    expect(matchesFilters(entry(null), filters)).toBe(false);
    expect(matchesFilters(entry(null), EMPTY_FILTERS)).toBe(true);
  });

  it('is sent to the admin API, and left out when it is "all"', () => {
    expect(queryOf({ ...EMPTY_FILTERS, dialect: 'openai-responses' }).dialect).toBe('openai-responses');
    expect(queryOf(EMPTY_FILTERS).dialect).toBeUndefined();
  });
});

describe('dialect names', () => {
  it('are short for the badge, and full for the provider format', () => {
    expect(['anthropic-messages', 'openai-responses', 'openai-chat', 'openai-completions', null].map(dialectLabel)).toEqual(['Messages', 'Responses', 'Chat', 'Completions', null]);
    expect(providerFormatLabel('bedrock-converse')).toBe('Bedrock Converse');
    expect(providerFormatLabel('some-new-format')).toBe('some-new-format');
  });
});
