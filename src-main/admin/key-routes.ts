// Admin endpoints for virtual keys, gateway API keys and the provider list the UI builds its key
// forms from (CONTRACT §5). Input is checked here once; the key store does the rest.
import { parseOrRefuse } from '../core/zod-invalid.js';
import { z } from 'zod';
import { listProviders } from '../providers/registry.js';
import type { McpAccessChange } from '../core/mcp-access.js';
import type { AdminRoute } from './router.js';
import { customHostWarnings } from './key-host-check.js';
import { keyModels, testKeyConnection } from './key-models.js';

// Worded as the rest of the API words a bound; the Keys forms check the same first (src-renderer/keys/key-name.ts).
const name = z.string().trim().min(1, { error: 'must not be empty' }).max(100, { error: 'must be at most 100 characters' });
/** Credential fields by field name (`azure.resourceName`), spec parameter (`cloud_a_resource_name`) or camelCase. */
const cloudFields = z.record(z.string(), z.string());
const customHost = z.string().nullable();
/** A model name sent when a request names none (null clears it). */
const defaultModel = z.string().max(256).nullable();
/** Requested model name → the provider's name for it. */
const modelMap = z.record(z.string(), z.string());
/** Lets routes serve other virtual keys' calls with this key's credentials (gateway keys need no leave). */
const allowRouting = z.boolean();
/** The key's server speaks Chat Completions only: Responses calls are translated to Chat for it. */
const chatOnly = z.boolean();
/** The MCP servers a key may see and call (null = the key's default), the tools of each (null = all), and that default (null = the global one); checked in full by the key store (core/mcp-access.ts). */
const mcpAccess = {
  mcpServers: z.array(z.string()).max(200).nullable().optional(),
  mcpTools: z.record(z.string(), z.array(z.string()).max(500)).nullable().optional(),
  mcpDefault: z.enum(['allow', 'deny']).nullable().optional(),
};
/** The MCP part of a key's change, when it holds any. */
const mcpChange = (change: McpAccessChange): McpAccessChange | undefined =>
  change.mcpServers !== undefined || change.mcpTools !== undefined || change.mcpDefault !== undefined ? { mcpServers: change.mcpServers, mcpTools: change.mcpTools, mcpDefault: change.mcpDefault } : undefined;

const createVirtualKeyBody = z.object({
  name,
  provider: z.string().trim().min(1),
  secret: z.string().optional(),
  customHost: customHost.optional(),
  cloud: cloudFields.optional(),
  defaultModel: defaultModel.optional(),
  modelMap: modelMap.optional(),
  allowRouting: allowRouting.optional(),
  chatOnly: chatOnly.optional(),
});

const updateVirtualKeyBody = z.object({
  name: name.optional(),
  secret: z.string().optional(),
  customHost: customHost.optional(),
  cloud: cloudFields.optional(),
  /** Issues a new `gh-vk-` key for the same credentials; the answer carries it once. */
  regenerateKey: z.boolean().optional(),
  defaultModel: defaultModel.optional(),
  modelMap: modelMap.optional(),
  allowRouting: allowRouting.optional(),
  chatOnly: chatOnly.optional(),
  ...mcpAccess,
});

const createGatewayKeyBody = z.object({ name });
const updateGatewayKeyBody = z.object({ name: name.optional(), ...mcpAccess });


const includeRevoked = (query: URLSearchParams) => query.get('includeRevoked') === 'true';

export const keyRoutes: AdminRoute[] = [
  {
    method: 'GET',
    path: '/providers',
    handle: () => ({
      status: 200,
      body: {
        items: listProviders().map((provider) => ({
          slug: provider.slug,
          name: provider.name,
          defaultBaseUrl: provider.defaultBaseUrl,
          hostRequired: provider.hostRequired === true,
          fields: provider.credentialFields.map((field) => ({ ...field })),
        })),
      },
    }),
  },

  {
    method: 'POST',
    path: '/virtual-keys',
    handle: async ({ services, body }) => {
      const input = parseOrRefuse(createVirtualKeyBody, body);
      const created = await services.keys.createVirtualKey({
        name: input.name,
        provider: input.provider,
        secret: input.secret,
        customHost: input.customHost,
        fields: input.cloud,
        defaultModel: input.defaultModel,
        modelMap: input.modelMap,
        allowRouting: input.allowRouting,
        chatOnly: input.chatOnly,
      });
      return { status: 201, body: { ...created, warnings: customHostWarnings(created.provider, created.customHost) } };
    },
  },
  {
    method: 'GET',
    path: '/virtual-keys',
    handle: async ({ services, query }) => ({ status: 200, body: { items: await services.keys.listVirtualKeys({ includeRevoked: includeRevoked(query) }) } }),
  },
  {
    method: 'GET',
    path: '/virtual-keys/:id',
    handle: async ({ services, params }) => ({ status: 200, body: await services.keys.getVirtualKey(params.id) }),
  },
  {
    method: 'PATCH',
    path: '/virtual-keys/:id',
    handle: async ({ services, params, body }) => {
      const change = parseOrRefuse(updateVirtualKeyBody, body);
      const updated = await services.keys.updateVirtualKey(params.id, {
        name: change.name,
        secret: change.secret,
        customHost: change.customHost,
        fields: change.cloud,
        regenerateKey: change.regenerateKey,
        defaultModel: change.defaultModel,
        modelMap: change.modelMap,
        allowRouting: change.allowRouting,
        chatOnly: change.chatOnly,
      });
      const mcp = mcpChange(change);
      const saved = mcp === undefined ? updated : { ...updated, ...(await services.keys.setKeyMcpAccess(params.id, mcp)) };
      if (change.customHost === undefined) return { status: 200, body: saved };
      return { status: 200, body: { ...saved, warnings: customHostWarnings(saved.provider, saved.customHost) } };
    },
  },
  {
    // Test connection: the key's host asked as a tool would first (a model list), now. The UI asks right after
    // a key is made or moved, so a wrong host or a server that is down shows now, not later in a tool.
    method: 'POST',
    path: '/virtual-keys/:id/host-check',
    handle: async ({ services, params }) => {
      const { key, ...check } = await testKeyConnection(services, params.id);
      return { status: 200, body: { ...check, warnings: customHostWarnings(key.provider, key.customHost) } };
    },
  },
  {
    // The models a set-up may name for this key (its host's list kept for a while; `refresh=true` asks again).
    method: 'GET',
    path: '/virtual-keys/:id/models',
    handle: async ({ services, params, query }) => ({ status: 200, body: await keyModels(services, params.id, { refresh: query.get('refresh') === 'true' }) }),
  },
  {
    method: 'DELETE',
    path: '/virtual-keys/:id',
    handle: async ({ services, params }) => ({ status: 200, body: await services.keys.revokeVirtualKey(params.id) }),
  },

  {
    method: 'POST',
    path: '/gateway-keys',
    handle: async ({ services, body }) => ({ status: 201, body: await services.keys.createGatewayKey(parseOrRefuse(createGatewayKeyBody, body)) }),
  },
  {
    method: 'GET',
    path: '/gateway-keys',
    handle: async ({ services, query }) => ({ status: 200, body: { items: await services.keys.listGatewayKeys({ includeRevoked: includeRevoked(query) }) } }),
  },
  {
    method: 'GET',
    path: '/gateway-keys/:id',
    handle: async ({ services, params }) => ({ status: 200, body: await services.keys.getGatewayKey(params.id) }),
  },
  {
    method: 'PATCH',
    path: '/gateway-keys/:id',
    handle: async ({ services, params, body }) => {
      const change = parseOrRefuse(updateGatewayKeyBody, body);
      let updated = await (change.name === undefined ? services.keys.getGatewayKey(params.id) : services.keys.renameGatewayKey(params.id, change.name));
      const mcp = mcpChange(change);
      if (mcp !== undefined) updated = (await services.keys.setKeyMcpAccess(params.id, mcp)) as typeof updated;
      return { status: 200, body: updated };
    },
  },
  {
    method: 'DELETE',
    path: '/gateway-keys/:id',
    handle: async ({ services, params }) => ({ status: 200, body: await services.keys.revokeGatewayKey(params.id) }),
  },
];
