// The client tool of a call, for the Usage page: coding agents and SDKs by their user-agent, other
// programs by their product name, and calls without a user-agent by the dialect they spoke.
import { describe, expect, it } from 'vitest';
import { clientOf } from '../../../src-main/store/usage-client.js';

describe('clientOf', () => {
  it.each([
    ['claude-cli/1.0.80 (external, cli)', 'claude-cli'],
    ['codex_cli_rs/0.20.0 (Mac OS 14.5.0; arm64)', 'codex'],
    ['opencode/0.5.1 ai-sdk/provider-utils/3.0.0', 'opencode'],
    ['OpenAI/JS 4.104.0', 'openai-js'],
    ['OpenAI/Python 1.99.1', 'openai-python'],
    ['Anthropic/JS 0.60.0', 'anthropic-sdk'],
    ['curl/8.5.0', 'curl'],
    ['node', 'node'],
    ['My Own Tool/2.0', 'my'],
  ])('%s → %s', (agent, client) => {
    expect(clientOf(agent, 'openai-chat')).toBe(client);
  });

  it('falls back to the dialect, then to unknown, without a user-agent', () => {
    expect(clientOf(undefined, 'anthropic-messages')).toBe('anthropic-messages');
    expect(clientOf('   ', 'openai-chat')).toBe('openai-chat');
    expect(clientOf(undefined, null)).toBe('unknown');
  });
});

describe('many made-up user-agents', () => {
  it('count as "other" past the first 64 product names, so they cannot grow the usage tables without bound', async () => {
    const { clientOf, OTHER_CLIENT } = await import('../../../src-main/store/usage-client.js');
    const names = Array.from({ length: 200 }, (_, i) => clientOf(`madeup${i}-agent/1.0`, 'openai-chat'));
    expect(new Set(names).size).toBeLessThanOrEqual(65);
    expect(names.at(-1)).toBe(OTHER_CLIENT);
    expect(clientOf('claude-cli/2.1.197 (external, cli)', 'anthropic-messages')).toBe('claude-cli');
  });
});
