// The agent-session rule of gateway/agent-session.ts, on a clock of its own: which id wins, how long an
// idle agent's next call still joins its session, and what is never taken as an id.
import { describe, expect, it } from 'vitest';
import { AgentSessions, namedSessionId, SESSION_IDLE_MS } from '../../../src-main/gateway/agent-session.js';
import { clientOf } from '../../../src-main/store/usage-client.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const traceparent = `00-${TRACE}-00f067aa0ba902b7-01`;
const call = (keyId: string | null, createdAt: number, requestHeaders: Record<string, string>) => ({ keyId, createdAt, latencyMs: 1000, requestHeaders });

describe('namedSessionId', () => {
  it('takes x-gateway-trace-id, then a traceparent (header or _meta), then the tool’s own header', () => {
    const claude = { 'x-claude-code-session-id': 'claude-1' };
    expect(namedSessionId({ ...claude, traceparent, 'x-gateway-trace-id': 'mine' })).toBe('mine');
    expect(namedSessionId({ ...claude, traceparent })).toBe(TRACE);
    expect(namedSessionId(claude, traceparent)).toBe(TRACE);
    expect(namedSessionId(claude)).toBe('claude-1');
    expect(namedSessionId({ 'session-id': 'codex-1' })).toBe('codex-1');
    expect(namedSessionId({ 'x-session-id': 'ses_1' })).toBe('ses_1');
  });

  it('takes no id that is too long, holds other characters, or is an all-zero trace', () => {
    expect(namedSessionId({ 'x-session-id': 'x'.repeat(129) })).toBeNull();
    expect(namedSessionId({ 'x-session-id': 'a b<script>' })).toBeNull();
    expect(namedSessionId({ traceparent: `00-${'0'.repeat(32)}-00f067aa0ba902b7-01` })).toBeNull();
  });
});

describe('AgentSessions', () => {
  const sessions = () => new AgentSessions((agent) => clientOf(agent, null));

  it('joins a call that names nothing to the key and client tool’s session until it has been idle for SESSION_IDLE_MS', () => {
    const s = sessions();
    const gemini = { 'user-agent': 'GeminiCLI-tui/0.61.0/gemini-2.5-flash' };
    const first = s.sessionOf(call('k1', 0, gemini));
    // Its last call ended at 1 s: idle exactly the window later still joins; a millisecond more starts anew.
    expect(s.sessionOf(call('k1', 1000 + SESSION_IDLE_MS, gemini))).toBe(first);
    const later = 2000 + SESSION_IDLE_MS;
    expect(s.sessionOf(call('k1', later + SESSION_IDLE_MS + 1, gemini))).not.toBe(first);
    // Another key, or another client tool, is another session.
    expect(s.sessionOf(call('k2', 1, gemini))).not.toBe(first);
    expect(s.sessionOf(call('k1', 1, { 'user-agent': 'curl/8' }))).not.toBe(first);
  });

  it('puts an agent’s MCP tool calls in the session its model calls named, and keeps an MCP session’s calls together', () => {
    const s = sessions();
    expect(s.sessionOf(call('k1', 0, { 'user-agent': 'claude-cli/2.1.197', 'x-claude-code-session-id': 'run-a' }))).toBe('run-a');
    expect(s.sessionOf(call('k1', 5000, { 'user-agent': 'claude-code/2.1.197 (sdk-cli)', 'mcp-session-id': 'm1' }))).toBe('run-a');
    // A second run names its own session; the first run's MCP connection stays with the first run.
    expect(s.sessionOf(call('k1', 9000, { 'user-agent': 'claude-cli/2.1.197', 'x-claude-code-session-id': 'run-b' }))).toBe('run-b');
    expect(s.sessionOf(call('k1', 9500, { 'user-agent': 'claude-code/2.1.197 (sdk-cli)', 'mcp-session-id': 'm1' }))).toBe('run-a');
    expect(s.sessionOf(call('k1', 9600, { 'user-agent': 'claude-code/2.1.197 (sdk-cli)', 'mcp-session-id': 'm2' }))).toBe('run-b');
  });

  it('gives a call without an accepted key no session, even one it names', () => {
    expect(sessions().sessionOf(call(null, 0, { 'x-claude-code-session-id': 'run-a' }))).toBeNull();
  });
});
