// One MCP server in full: its tools with their descriptions and a switch each (off = neither listed nor
// callable for anyone), "Try a tool", its set-up and call timeout, the tail of its stderr, and Remove.
import { useEffect, useState, type FormEvent } from 'react';
import { describeError } from '../../api/api-error';
import type { McpServer, McpTool } from '../../api/types';
import { ConfirmActions, Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { ErrorNotice, LoadingState } from '../../components/StatusViews';
import { joinArguments } from '../../mcp/server-form';
import { useMcpServersStore } from '../../stores/mcp-servers-store';
import { useToastStore } from '../../stores/toast-store';
import { McpStatusBadge } from './McpStatusBadge';
import { TryTool } from './TryTool';

function ToolRow({ server, tool }: { server: string; tool: McpTool }) {
  const setToolEnabled = useMcpServersStore((state) => state.setToolEnabled);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const flip = async (enabled: boolean) => {
    setSaving(true);
    setError(null);
    try {
      await setToolEnabled(server, tool.name, enabled);
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setSaving(false);
    }
  };
  return (
    <li className={`tool-row${tool.enabled ? '' : ' tool-row-off'}`}>
      <div className="tool-row-text">
        <span className="mono tool-name">{tool.name}</span>
        {tool.description && <span className="muted small tool-description">{tool.description}</span>}
        {error && <span className="field-error">{error}</span>}
      </div>
      <label className="switch">
        <input type="checkbox" role="switch" aria-label={`${tool.name} on`} checked={tool.enabled} disabled={saving} onChange={(event) => void flip(event.target.checked)} />
        <span className="switch-track" aria-hidden="true" />
      </label>
    </li>
  );
}

function TimeoutForm({ server }: { server: McpServer }) {
  const update = useMcpServersStore((state) => state.update);
  const showToast = useToastStore((state) => state.show);
  const [seconds, setSeconds] = useState(String(server.timeoutMs / 1000));
  const [error, setError] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);
  useEffect(() => setSeconds(String(server.timeoutMs / 1000)), [server.timeoutMs]);
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const value = Number(seconds);
    if (!seconds.trim() || !Number.isFinite(value) || value <= 0) return setError('A number of seconds above 0');
    setSaving(true);
    setError(null);
    try {
      await update(server.name, { timeoutMs: Math.round(value * 1000) });
      showToast(`Calls to ${server.name} now time out after ${value} s`);
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setSaving(false);
    }
  };
  return (
    <form className="timeout-form" onSubmit={onSubmit} noValidate>
      <Field label="Call timeout (seconds)" error={error} hint="A tool call that takes longer is cancelled and answered with an error.">
        {(control) => (
          <div className="inline-input">
            <input {...control} className="input input-number" inputMode="decimal" value={seconds} onChange={(event) => setSeconds(event.target.value)} />
            <button type="submit" className="button button-secondary" disabled={saving || Number(seconds) * 1000 === server.timeoutMs}>
              {saving ? 'Saving…' : 'Save'}
            </button>
          </div>
        )}
      </Field>
    </form>
  );
}

function SetUp({ server }: { server: McpServer }) {
  const rows: Array<[string, string]> =
    server.transport === 'stdio'
      ? [
          ['Command', [server.command ?? '', joinArguments(server.args ?? [])].filter(Boolean).join(' ')],
          ...Object.entries(server.env ?? {}).map(([name, value]): [string, string] => [name, value]),
          ...(server.secretEnv ?? []).map((name): [string, string] => [name, '•••••• sealed']),
        ]
      : [
          ['URL', server.url ?? ''],
          ...Object.entries(server.headers ?? {}).map(([name, value]): [string, string] => [name, value]),
          ...(server.secretHeaders ?? []).map((name): [string, string] => [name, '•••••• sealed']),
        ];
  return (
    <dl className="mcp-setup" aria-label={`Set-up of ${server.name}`}>
      {rows.map(([name, value]) => (
        <div key={name}>
          <dt className="mono">{name}</dt>
          <dd className="mono">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

function StderrTail({ server }: { server: McpServer }) {
  const lines = useMcpServersStore((state) => state.stderr[server.name]);
  const loadStderr = useMcpServersStore((state) => state.loadStderr);
  useEffect(() => {
    void loadStderr(server.name);
  }, [loadStderr, server.name, server.status]);
  return (
    <div className="stack-small">
      <div className="section-title-row">
        <h3 className="subheading">Stderr (newest last)</h3>
        <button type="button" className="button button-ghost button-small" onClick={() => void loadStderr(server.name)}>
          <Icon name="refresh" />
          Refresh
        </button>
      </div>
      {lines === undefined ? (
        <LoadingState label="Reading stderr" />
      ) : lines.length ? (
        <pre className="stderr-tail" aria-label={`Stderr of ${server.name}`} tabIndex={0}>
          {lines.join('\n')}
        </pre>
      ) : (
        <p className="muted small">Nothing written to stderr yet.</p>
      )}
    </div>
  );
}

export function ServerDetail({ server, onRemoved }: { server: McpServer; onRemoved(): void }) {
  const tools = useMcpServersStore((state) => state.tools[server.name]);
  const loadTools = useMcpServersStore((state) => state.loadTools);
  const remove = useMcpServersStore((state) => state.remove);
  const showToast = useToastStore((state) => state.show);
  const [confirming, setConfirming] = useState(false);
  const [removing, setRemoving] = useState(false);
  const [removeError, setRemoveError] = useState<string | null>(null);

  useEffect(() => {
    if (server.enabled) void loadTools(server.name);
    // Re-list when the server is switched on again; not on every status change, which listing itself causes.
  }, [loadTools, server.name, server.enabled]);

  return (
    <section className="card mcp-detail" aria-labelledby="mcp-detail-title">
      <header className="mcp-detail-header">
        <div className="mcp-detail-title">
          <h2 id="mcp-detail-title" className="card-title mono">
            {server.name}
          </h2>
          <McpStatusBadge status={server.status} />
        </div>
        <button type="button" className="button button-ghost button-small button-danger-text" onClick={() => setConfirming(true)}>
          <Icon name="trash" />
          Remove<span className="visually-hidden"> {server.name}</span>
        </button>
      </header>
      {server.lastError && <ErrorNotice title="Last error" message={server.lastError} />}

      <div className="mcp-detail-grid">
        <div className="stack">
          <div className="section-title-row">
            <h3 className="subheading">Tools</h3>
            {server.enabled && (
              <button type="button" className="button button-ghost button-small" onClick={() => void loadTools(server.name)} disabled={tools?.status === 'loading'}>
                <Icon name="refresh" />
                List again
              </button>
            )}
          </div>
          {!server.enabled ? (
            <p className="muted small">The server is switched off: switch it on to list its tools.</p>
          ) : !tools || (tools.status === 'loading' && !tools.items.length) ? (
            <LoadingState label="Listing tools" />
          ) : tools.status === 'error' ? (
            <ErrorNotice title="Could not list the tools" message={tools.error ?? ''} onRetry={() => void loadTools(server.name)} />
          ) : tools.items.length ? (
            <ul className="tool-list" aria-label={`Tools of ${server.name}`}>
              {tools.items.map((tool) => (
                <ToolRow key={tool.name} server={server.name} tool={tool} />
              ))}
            </ul>
          ) : (
            <p className="muted small">The server lists no tools.</p>
          )}
          {server.enabled && tools?.status === 'ready' && tools.items.length > 0 && (
            <>
              <h3 className="subheading">Try a tool</h3>
              <TryTool server={server.name} tools={tools.items} />
            </>
          )}
        </div>
        <div className="stack">
          <div className="section-title-row">
            <h3 className="subheading">Set-up</h3>
          </div>
          <SetUp server={server} />
          <TimeoutForm server={server} />
          {server.transport === 'stdio' && <StderrTail server={server} />}
        </div>
      </div>

      {confirming && (
        <Dialog title={`Remove ${server.name}?`} description="Its tools disappear from every agent at once; keys limited to it keep the other servers." onClose={() => setConfirming(false)} size="small">
          {removeError && <ErrorNotice message={removeError} />}
          <ConfirmActions
            onCancel={() => setConfirming(false)}
            submitting={removing}
            label="Remove"
            busyLabel="Removing…"
            tone="danger"
            onConfirm={async () => {
              setRemoving(true);
              setRemoveError(null);
              try {
                await remove(server.name);
                showToast(`Removed ${server.name}`);
                onRemoved();
              } catch (caught) {
                setRemoveError(describeError(caught));
                setRemoving(false);
              }
            }}
          />
        </Dialog>
      )}
    </section>
  );
}
