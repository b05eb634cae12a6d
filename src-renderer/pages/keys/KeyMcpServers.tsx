// A key's MCP servers on the Keys page: every server (the default) or a chosen set. A server a key may
// not use is neither listed nor callable through /mcp with that key. Summed up in the key's
// panel, edited in a small dialog like the key's limits.
import { useEffect, useState, type FormEvent } from 'react';
import type { McpServerAccess } from '../../api/types';
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
}

export function describeMcpAccess(access: McpServerAccess | undefined): string {
  if (access === null || access === undefined) return 'All MCP servers';
  if (!access.length) return 'No MCP servers';
  return `MCP: ${access.join(', ')}`;
}

type Mode = 'all' | 'chosen';

export function KeyMcpServersDialog({ keyRef, onClose }: { keyRef: McpKeyRef; onClose(): void }) {
  const servers = useMcpServersStore((state) => state.servers);
  const status = useMcpServersStore((state) => state.status);
  const loadError = useMcpServersStore((state) => state.loadError);
  const load = useMcpServersStore((state) => state.load);
  const setKeyMcpServers = useKeysStore((state) => state.setKeyMcpServers);
  const showToast = useToastStore((state) => state.show);
  const current = keyRef.mcpServers ?? null;
  const [mode, setMode] = useState<Mode>(current === null ? 'all' : 'chosen');
  const [chosen, setChosen] = useState<Set<string>>(new Set(current ?? []));
  const { submitting, error, submit } = useSubmission(toFormError);

  useEffect(() => {
    void load();
  }, [load]);

  // Names the key keeps that no server has any more are still shown, so saving does not drop them unseen.
  const names = [...new Set([...servers.map((server) => server.name), ...(current ?? [])])].sort();

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const access: McpServerAccess = mode === 'all' ? null : names.filter((name) => chosen.has(name));
    await submit(async () => {
      await setKeyMcpServers(keyRef.kind, keyRef.id, access);
      showToast(`${keyRef.name}: ${describeMcpAccess(access).replace(/^MCP: /, 'MCP servers ')}`);
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
          ]}
          value={mode}
          onChange={setMode}
        />
        {mode === 'all' ? (
          <p className="muted small">Every server, including those added later.</p>
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
