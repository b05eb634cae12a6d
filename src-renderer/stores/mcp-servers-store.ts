// The MCP servers Gatehouse connects to: the list (re-read while the page is open, since a server's
// status moves on its own: starting, running, failed), each server's tools as last listed, and its
// stderr tail. Secret values are sent once when a server is added and never held here.
import { create } from 'zustand';
import { describeError } from '../api/api-error';
import type { McpServer, McpServerPatch, McpTool, NewMcpServer } from '../api/types';
import type { LoadStatus } from './keys-store';
import { requireAdminClient } from './session-store';

export interface ServerTools {
  status: LoadStatus;
  items: McpTool[];
  /** Why the tools could not be listed (the server did not start, say). */
  error: string | null;
}

interface McpServersState {
  servers: McpServer[];
  status: LoadStatus;
  loadError: string | null;
  tools: Record<string, ServerTools>;
  stderr: Record<string, string[]>;
  load(): Promise<void>;
  add(input: NewMcpServer): Promise<McpServer>;
  update(name: string, patch: McpServerPatch): Promise<void>;
  remove(name: string): Promise<void>;
  loadTools(name: string): Promise<void>;
  /** Switches one tool on or off for everyone (the server's disabledTools). */
  setToolEnabled(name: string, tool: string, enabled: boolean): Promise<void>;
  loadStderr(name: string): Promise<void>;
}

export const useMcpServersStore = create<McpServersState>()((set, get) => {
  const replace = (server: McpServer) => set({ servers: get().servers.map((item) => (item.name === server.name ? server : item)) });
  return {
    servers: [],
    status: 'idle',
    loadError: null,
    tools: {},
    stderr: {},
    async load() {
      if (get().status !== 'ready') set({ status: 'loading', loadError: null });
      try {
        const { servers } = await requireAdminClient().listMcpServers();
        set({ servers, status: 'ready', loadError: null });
      } catch (error) {
        // A failed re-read keeps the list on screen; only the first read shows the error in its place.
        if (get().status !== 'ready') set({ status: 'error', loadError: describeError(error) });
      }
    },
    async add(input) {
      const { server } = await requireAdminClient().createMcpServer(input);
      set({ servers: [...get().servers.filter((item) => item.name !== server.name), server] });
      return server;
    },
    async update(name, patch) {
      const { server } = await requireAdminClient().updateMcpServer(name, patch);
      replace(server);
      if (patch.disabledTools) {
        const tools = get().tools[name];
        if (tools) set({ tools: { ...get().tools, [name]: { ...tools, items: tools.items.map((tool) => ({ ...tool, enabled: !server.disabledTools.includes(tool.name) })) } } });
      }
    },
    async remove(name) {
      await requireAdminClient().deleteMcpServer(name);
      const { [name]: _tools, ...tools } = get().tools;
      set({ servers: get().servers.filter((item) => item.name !== name), tools });
    },
    async loadTools(name) {
      const previous = get().tools[name];
      set({ tools: { ...get().tools, [name]: { status: 'loading', items: previous?.items ?? [], error: null } } });
      try {
        const { tools } = await requireAdminClient().mcpServerTools(name);
        set({ tools: { ...get().tools, [name]: { status: 'ready', items: tools, error: null } } });
      } catch (error) {
        set({ tools: { ...get().tools, [name]: { status: 'error', items: [], error: describeError(error) } } });
      }
      // Listing starts a stopped server and counts its tools: show the status and count it now has.
      await get().load();
    },
    async setToolEnabled(name, tool, enabled) {
      const server = get().servers.find((item) => item.name === name);
      if (!server) return;
      const others = server.disabledTools.filter((item) => item !== tool);
      await get().update(name, { disabledTools: enabled ? others : [...others, tool] });
    },
    async loadStderr(name) {
      try {
        const { lines } = await requireAdminClient().mcpServerStderr(name);
        set({ stderr: { ...get().stderr, [name]: lines } });
      } catch (error) {
        set({ stderr: { ...get().stderr, [name]: [`(could not read stderr: ${describeError(error)})`] } });
      }
    },
  };
});
