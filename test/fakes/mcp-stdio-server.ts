// The MCP test server over stdio, run as `node --import tsx test/fakes/mcp-stdio-server.ts NAME`.
// It prints a line to stderr when it starts (the gateway keeps a server's stderr).
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { buildMcpTestServer } from './mcp-tools.js';

const name = process.argv[2] ?? 'stdio-test';
process.stderr.write(`${name} started with pid ${process.pid}\n`);
await buildMcpTestServer(name).connect(new StdioServerTransport());
