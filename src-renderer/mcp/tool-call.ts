// The "Try a tool" form's rules: the arguments as JSON checked before anything is sent, a starting
// object drawn from the tool's input schema, and the result read for people (its text) as well as raw.
import type { McpCallToolResult, McpTool } from '../api/types';

/** A starting object: each property the schema names, with an empty value of its type. */
export function argumentsTemplate(tool: McpTool | undefined): string {
  const properties = tool?.inputSchema?.properties;
  if (!properties || typeof properties !== 'object') return '{}';
  const template: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties)) {
    const type = (schema as { type?: unknown } | null)?.type;
    template[name] = type === 'number' || type === 'integer' ? 0 : type === 'boolean' ? false : type === 'array' ? [] : type === 'object' ? {} : '';
  }
  return JSON.stringify(template, null, 2);
}

/** The arguments to send, or what is wrong with the text, said so a person can fix it. */
export function parseToolArguments(text: string, tool: McpTool | undefined): { args: Record<string, unknown> } | { problem: string } {
  const trimmed = text.trim();
  if (!trimmed) return { args: {} };
  let value: unknown;
  try {
    value = JSON.parse(trimmed);
  } catch (error) {
    return { problem: `Not valid JSON: ${(error as Error).message}` };
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { problem: 'The arguments are one JSON object, { "name": value, … }' };
  const args = value as Record<string, unknown>;
  const missing = (tool?.inputSchema?.required ?? []).filter((name) => !(name in args));
  if (missing.length) return { problem: `${tool?.name ?? 'The tool'} needs ${missing.map((name) => `“${name}”`).join(', ')}` };
  return { args };
}

/** The result's text items, in order, and a note for each item that is not text. */
export function resultText(result: McpCallToolResult): string {
  const parts: string[] = [];
  for (const item of result.content ?? []) {
    if (item.type === 'text' && typeof item.text === 'string') parts.push(item.text);
    else if (item.type === 'image' || item.type === 'audio') parts.push(`[${item.type}, ${String(item.mimeType ?? 'unknown type')}]`);
    else if (item.type === 'resource') {
      const resource = item.resource as { uri?: string; text?: string } | undefined;
      parts.push(resource?.text ?? `[resource ${resource?.uri ?? ''}]`);
    } else if (item.type === 'resource_link') parts.push(`[link ${String(item.uri ?? '')}]`);
    else parts.push(`[${item.type}]`);
  }
  if (!parts.length && result.structuredContent !== undefined) return JSON.stringify(result.structuredContent, null, 2);
  return parts.join('\n\n');
}
