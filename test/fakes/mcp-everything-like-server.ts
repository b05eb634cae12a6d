// A stdio MCP server with tools shaped like @modelcontextprotocol/server-everything's (an echo, a sum, and
// a file read the server refuses with a tool error), built with the SDK, for the MCP servers page's browser
// tests against a real `gatehouse serve`. Run as `node --import tsx test/fakes/mcp-everything-like-server.ts`.
// Like the real server it announces itself on stderr, which Gatehouse keeps and the page shows.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'everything-like', version: '1.0.0' });
server.registerTool('echo', { description: 'Echoes back the input', inputSchema: { message: z.string().describe('Message to echo') } }, async ({ message }) => ({
  content: [{ type: 'text', text: `Echo: ${message}` }],
}));
server.registerTool('add', { description: 'Adds two numbers', inputSchema: { a: z.number(), b: z.number() } }, async ({ a, b }) => ({
  content: [{ type: 'text', text: `The sum of ${a} and ${b} is ${a + b}.` }],
}));
server.registerTool('read_secret_file', { description: 'Reads a file the server is not allowed to read', inputSchema: { path: z.string().optional() } }, async ({ path }) => ({
  isError: true,
  content: [{ type: 'text', text: `Access denied: ${path ?? ''} is outside the allowed directories` }],
}));
await server.connect(new StdioServerTransport());
process.stderr.write('Secure MCP Server running on stdio\n');
