// A key's MCP servers on the Keys page: every server, a chosen set, or none until some are allowed (the
// deny-by-default switch, `mcpDefault`), and for any of them only some of its tools. A key that never
// chose follows the Settings' default for keys (`mcpKeyDefault`). A server or tool a key may not use is
// neither listed nor callable through /mcp with that key. Summed up in the key's panel, edited in a small
// dialog like the key's limits.
import { useEffect, useState, type FormEvent } from 'react';
import type { McpServerAccess, Settings } from '../../api/types';
import { Dialog } from '../../components/Dialog';
import { SegmentedControl } from '../../components/SegmentedControl';
import { ErrorNotice, LoadingState } from '../../components/StatusViews';
import { toFormError, useSubmission } from '../../components/use-submission';
import { useKeysStore } from '../../stores/keys-store';
import { useMcpServersStore } from '../../stores/mcp-servers-store';
import { useToastStore } from '../../stores/toast-store';

export interface McpKeyRef {
  kind: 'virtual' | 'gateway';
  id: string;
  name: string;
  /** Absent from a server that does not know MCP: the same as every server. */
  mcpServers?: McpServerAccess;
  /** Server → the tools the key may use there; null or absent = every tool. */
  mcpTools?: Record<string, string[]> | null;
  /** The key's own default where it names no server ('deny': none); null or absent = the Settings' default. */
  mcpDefault?: 'allow' | 'deny' | null;
}

export type McpDefault = Settings['mcpKeyDefault'];

/** What a key without a server list gets: its own default, else the Settings' default for keys. */
export const effectiveMcpDefault = (keyDefault: McpDefault | null | undefined, globalDefault: McpDefault): McpDefault => keyDefault ?? globalDefault;

export function describeMcpAccess(access: McpServerAccess | undefined, tools: Record<string, string[]> | null | undefined, keyDefault: McpDefault | null | undefined, globalDefault: McpDefault): string {
  const limited = Object.keys(tools ?? {});
  const toolsNote = limited.length ? ` (some tools of ${limited.join(', ')})` : '';
  if (access === null || access === undefined) return effectiveMcpDefault(keyDefault, globalDefault) === 'deny' ? 'No MCP servers until allowed' : `All MCP servers${toolsNote}`;
  if (!access.length) return 'No MCP servers';
  return `MCP: ${access.join(', ')}${toolsNote}`;
}

type Mode = 'all' | 'chosen' | 'none';

export function KeyMcpServersDialog({ keyRef, globalDefault, onClose }: { keyRef: McpKeyRef; globalDefault: McpDefault; onClose(): void }) {
  const servers = useMcpServersStore((state) => state.servers);
  const status = useMcpServersStore((state) => state.status);
  const loadError = useMcpServersStore((state) => state.loadError);
  const load = useMcpServersStore((state) => state.load);
  const setKeyMcpAccess = useKeysStore((state) => state.setKeyMcpAccess);
  const serverTools = useMcpServersStore((state) => state.tools);
  const loadTools = useMcpServersStore((state) => state.loadTools);
  const currentTools = keyRef.mcpTools ?? {};
  // Per server whose tools are limited: the tools ticked. A server not in it keeps every tool.
  const [toolChoice, setToolChoice] = useState<Record<string, Set<string>>>(() => Object.fromEntries(Object.entries(currentTools).map(([server, tools]) => [server, new Set(tools)])));
  const showToast = useToastStore((state) => state.show);
  const current = keyRef.mcpServers ?? null;
  const currentDefault = effectiveMcpDefault(keyRef.mcpDefault, globalDefault);
  const [mode, setMode] = useState<Mode>(current !== null ? 'chosen' : currentDefault === 'deny' ? 'none' : 'all');
  const [chosen, setChosen] = useState<Set<string>>(new Set(current ?? []));
  const { submitting, error, submit } = useSubmission(toFormError);

  useEffect(() => {
    void load();
  }, [load]);

  // The tools of each server the key is already limited on, so its ticks can be shown.
  const limitedServers = Object.keys(toolChoice).join('\n');
  useEffect(() => {
    for (const server of limitedServers.split('\n')) if (server && !useMcpServersStore.getState().tools[server]) void loadTools(server);
  }, [limitedServers, loadTools]);

  // Names the key keeps that no server has any more are still shown, so saving does not drop them unseen.
  const names = [...new Set([...servers.map((server) => server.name), ...(current ?? [])])].sort();
  // The servers whose tools can be limited here: those the key may use as the form stands.
  const inScope = mode === 'all' ? names : mode === 'chosen' ? names.filter((name) => chosen.has(name)) : [];

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const access: McpServerAccess = mode === 'chosen' ? names.filter((name) => chosen.has(name)) : null;
    // Without a list the key's own default decides: set only when it would decide otherwise than now, so
    // a key that follows the Settings' default keeps following it.
    const wanted: McpDefault | null = mode === 'all' ? 'allow' : mode === 'none' ? 'deny' : null;
    const mcpDefault = wanted !== null && wanted !== currentDefault ? wanted : undefined;
    const entries = Object.entries(toolChoice).map(([server, tools]) => [server, [...tools].sort()] as const);
    const tools = entries.length ? Object.fromEntries(entries) : null;
    // Only what changed is sent: the tools stay as they are unless a server's tools were limited or freed here.
    const toolsChanged = JSON.stringify(tools ?? {}) !== JSON.stringify(Object.fromEntries(Object.entries(currentTools).map(([server, list]) => [server, [...list].sort()])));
    await submit(async () => {
      await setKeyMcpAccess(keyRef.kind, keyRef.id, { mcpServers: access, ...(toolsChanged ? { mcpTools: tools } : {}), ...(mcpDefault ? { mcpDefault } : {}) });
      showToast(`${keyRef.name}: ${describeMcpAccess(access, tools, mcpDefault ?? keyRef.mcpDefault, globalDefault).replace(/^MCP: /, 'MCP servers ')}`);
      onClose();
    });
  };

  return (
    <Dialog title={`MCP servers of “${keyRef.name}”`} description="Which tool servers this key sees and may call through /mcp." onClose={onClose} size="small">
      <form className="stack" onSubmit={onSubmit}>
        <SegmentedControl<Mode>
          label="MCP servers"
          options={[
            { value: 'all', label: 'All servers' },
            { value: 'chosen', label: 'Only these' },
            { value: 'none', label: 'None until allowed' },
          ]}
          value={mode}
          onChange={setMode}
        />
        {mode === 'all' ? (
          <p className="muted small">Every server, including those added later.{keyRef.mcpDefault == null && globalDefault === 'allow' ? ' This is the default for keys in Settings.' : ''}</p>
        ) : mode === 'none' ? (
          <p className="muted small">
            No server, including those added later, until you choose some here.{keyRef.mcpDefault == null && globalDefault === 'deny' ? ' This is the default for keys in Settings.' : ''}
          </p>
        ) : status === 'loading' && !servers.length ? (
          <LoadingState label="Loading MCP servers" />
        ) : status === 'error' && !names.length ? (
          <ErrorNotice message={loadError ?? 'The MCP servers could not be read'} onRetry={() => void load()} />
        ) : names.length ? (
          <fieldset className="key-mcp-choices">
            <legend className="visually-hidden">Servers {keyRef.name} may use</legend>
            {names.map((name) => (
              <label key={name} className="checkbox">
                <input
                  type="checkbox"
                  checked={chosen.has(name)}
                  onChange={(event) => {
                    const next = new Set(chosen);
                    if (event.target.checked) next.add(name);
                    else next.delete(name);
                    setChosen(next);
                  }}
                />
                <span className="mono">{name}</span>
              </label>
            ))}
            {chosen.size === 0 && <p className="field-hint">None ticked: the key reaches no MCP server.</p>}
          </fieldset>
        ) : (
          <p className="muted small">No MCP servers yet: add them on the MCP servers page.</p>
        )}
        {inScope.length > 0 && (
          <fieldset className="key-mcp-choices">
            <legend>Tools</legend>
            {inScope.map((server) => {
              const limitedTo = toolChoice[server];
              const listed = serverTools[server];
              return (
                <div key={server} className="stack" role="group" aria-label={`${server}: tools`}>
                  <label className="checkbox">
                    <input
                      type="checkbox"
                      checked={limitedTo !== undefined}
                      onChange={(event) => {
                        const { [server]: _dropped, ...rest } = toolChoice;
                        if (event.target.checked) {
                          setToolChoice({ ...rest, [server]: new Set() });
                          if (!listed) void loadTools(server);
                        } else setToolChoice(rest);
                      }}
                    />
                    {/* Named without the server's name, which the server's own checkbox above is named by. */}
                    <span aria-label="Only some tools">
                      Only some tools of <span className="mono">{server}</span>
                    </span>
                  </label>
                  {limitedTo !== undefined &&
                    (listed?.status === 'error' ? (
                      <ErrorNotice message={listed.error ?? `The tools of ${server} could not be listed`} onRetry={() => void loadTools(server)} />
                    ) : !listed || (listed.status === 'loading' && !listed.items.length) ? (
                      <LoadingState label={`Loading the tools of ${server}`} />
                    ) : (
                      <div role="group" aria-label="Tools this key may use" className="key-mcp-tools">
                        {[...new Set([...listed.items.map((tool) => tool.name), ...limitedTo])].sort().map((tool) => (
                          <label key={tool} className="checkbox">
                            <input
                              type="checkbox"
                              checked={limitedTo.has(tool)}
                              onChange={(event) => {
                                const next = new Set(limitedTo);
                                if (event.target.checked) next.add(tool);
                                else next.delete(tool);
                                setToolChoice({ ...toolChoice, [server]: next });
                              }}
                            />
                            <span className="mono">{tool}</span>
                          </label>
                        ))}
                        {limitedTo.size === 0 && <p className="field-hint">None ticked: the key sees no tool of {server}.</p>}
                      </div>
                    ))}
                </div>
              );
            })}
          </fieldset>
        )}
        {error && <ErrorNotice message={error.message} />}
        <div className="dialog-actions">
          <button type="button" className="button button-secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={submitting}>
            {submitting ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
