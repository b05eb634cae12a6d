// The hub's list of servers as the store reads it: a server removed and added again under the same name
// between two reads is a new server, not an edit of the old one.
import { afterEach, describe, expect, it } from 'vitest';
import { McpGateway } from '../../../src-main/mcp/gateway.js';
import type { McpServerConnection } from '../../../src-main/core/mcp-servers.js';

const hubs: McpGateway[] = [];
afterEach(async () => {
  await Promise.all(hubs.splice(0).map((hub) => hub.close()));
});

function server(createdAt: string): McpServerConnection {
  return {
    name: 'tools',
    transport: 'stdio',
    command: '/nonexistent/gatehouse-test-server',
    args: [],
    env: {},
    secretEnv: [],
    url: null,
    headers: {},
    secretHeaders: [],
    enabled: true,
    timeoutMs: 5_000,
    disabledTools: [],
    oauth: null,
    createdAt,
    updatedAt: createdAt,
    secretEnvValues: {},
    secretHeaderValues: {},
    oauthGrant: null,
  };
}

describe('McpGateway.setServers', () => {
  it('starts afresh a server removed and added again within one read, instead of keeping the old one’s state', async () => {
    const hub = new McpGateway({ version: 'test', log: () => undefined });
    hubs.push(hub);
    hub.setServers([server('2026-12-07T10:00:00.000Z')]);
    await expect(hub.tools('tools')).rejects.toThrow(/could not be started/);
    expect(hub.state('tools').status).toBe('failed');

    // The same configuration read again: the same server, still in its pause after the failure.
    hub.setServers([server('2026-12-07T10:00:00.000Z')]);
    expect(hub.state('tools').status).toBe('failed');

    // Removed and added again between two reads: a new server with nothing of the old one's state.
    hub.setServers([server('2026-12-07T10:00:00.400Z')]);
    expect(hub.state('tools')).toEqual({ status: 'stopped', lastError: null, toolCount: null });
  });
});
