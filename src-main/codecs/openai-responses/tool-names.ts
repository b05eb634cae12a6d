// Responses' `namespace` tools (Codex's MCP tools) are flattened to `<namespace>__<tool>` for formats that
// have no namespaces (the name Codex itself gave MCP tools before namespaces); answers name them back.
import type { CanonicalRequest, ToolDefinition } from '../canonical.js';

/** How a namespace tool's name is flattened: `mcp__fixture` + `lookup` → `mcp__fixture__lookup`. */
export const NAMESPACE_SEPARATOR = '__';
export const flatToolName = (namespace: string, name: string): string => `${namespace}${NAMESPACE_SEPARATOR}${name}`;

/** A flattened tool name → its namespace and name, for the tools of this request that came from a namespace. */
export function namespaceIndex(request: CanonicalRequest): Map<string, { namespace: string; name: string }> {
  const index = new Map<string, { namespace: string; name: string }>();
  for (const tool of request.tools ?? []) if (tool.namespace) index.set(tool.name, tool.namespace);
  return index;
}

export function functionCallName(name: string, namespaces: Map<string, { namespace: string; name: string }>): { name: string; namespace?: string } {
  const origin = namespaces.get(name);
  return origin ? { name: origin.name, namespace: origin.namespace } : { name };
}

/** Canonical tools → Responses tools; tools flattened from a namespace are grouped back into it. */
export function responsesTools(tools: readonly ToolDefinition[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  const namespaces = new Map<string, Record<string, unknown>[]>();
  for (const tool of tools) {
    const fn: Record<string, unknown> = { type: 'function', name: tool.namespace?.name ?? tool.name };
    if (tool.description !== undefined) fn.description = tool.description;
    fn.parameters = tool.parameters;
    // Chat and Messages tools are not strict unless they say so; Responses would otherwise try strict mode.
    fn.strict = tool.strict ?? false;
    if (!tool.namespace) {
      out.push(fn);
      continue;
    }
    let members = namespaces.get(tool.namespace.namespace);
    if (!members) {
      members = [];
      namespaces.set(tool.namespace.namespace, members);
      out.push({ type: 'namespace', name: tool.namespace.namespace, description: tool.namespace.description ?? '', tools: members });
    }
    members.push(fn);
  }
  return out;
}
