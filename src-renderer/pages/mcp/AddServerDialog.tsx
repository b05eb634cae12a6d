// Adding an MCP server: a command Gatehouse starts (stdio) or an address it connects to (Streamable
// HTTP or legacy HTTP+SSE). Presets fill the form; the person completes them. Values marked secret are
// sent once and sealed by the server; it never answers them again.
import { useState, type FormEvent } from 'react';
import type { McpTransport } from '../../api/types';
import { Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { SegmentedControl } from '../../components/SegmentedControl';
import { ErrorNotice } from '../../components/StatusViews';
import { toFormError, useSubmission } from '../../components/use-submission';
import { draftToServer, EMPTY_DRAFT, SERVER_PRESETS, type DraftProblem, type ServerDraft, type ValueRow } from '../../mcp/server-form';
import { useMcpServersStore } from '../../stores/mcp-servers-store';

const TRANSPORTS: Array<{ value: McpTransport; label: string }> = [
  { value: 'stdio', label: 'Command (stdio)' },
  { value: 'http', label: 'Streamable HTTP' },
  { value: 'sse', label: 'HTTP+SSE (legacy)' },
];

/** Name / value / secret rows, for the environment or the headers. */
function ValueRows({ legend, what, rows, onChange, error, namePlaceholder }: { legend: string; what: string; rows: ValueRow[]; onChange(rows: ValueRow[]): void; error?: string | null; namePlaceholder: string }) {
  const change = (index: number, patch: Partial<ValueRow>) => onChange(rows.map((row, at) => (at === index ? { ...row, ...patch } : row)));
  return (
    <fieldset className={`field value-rows${error ? ' field-invalid' : ''}`}>
      <legend className="field-label">{legend}</legend>
      {rows.length > 0 && (
        <ul className="value-row-list">
          {rows.map((row, index) => (
            <li key={index} className="value-row">
              <input className="input input-mono" aria-label={`${what} ${index + 1} name`} placeholder={namePlaceholder} value={row.name} spellCheck={false} onChange={(event) => change(index, { name: event.target.value })} />
              <input
                className="input input-mono"
                aria-label={`${what} ${index + 1} value`}
                type={row.secret ? 'password' : 'text'}
                autoComplete="off"
                placeholder={row.secret ? 'sealed once saved' : 'value'}
                value={row.value}
                spellCheck={false}
                onChange={(event) => change(index, { value: event.target.value })}
              />
              <label className="checkbox checkbox-small">
                <input type="checkbox" checked={row.secret} onChange={(event) => change(index, { secret: event.target.checked })} />
                <span>
                  Secret<span className="visually-hidden"> ({what.toLowerCase()} {index + 1})</span>
                </span>
              </label>
              <button type="button" className="button button-ghost button-icon button-small" aria-label={`Remove ${what.toLowerCase()} ${index + 1}`} onClick={() => onChange(rows.filter((_, at) => at !== index))}>
                <Icon name="close" />
              </button>
            </li>
          ))}
        </ul>
      )}
      <div>
        <button type="button" className="button button-secondary button-small" onClick={() => onChange([...rows, { name: '', value: '', secret: false }])}>
          <Icon name="plus" />
          Add {what.toLowerCase()}
        </button>
      </div>
      {error ? <p className="field-error">{error}</p> : <p className="field-hint">Mark tokens and passwords secret: they are sealed at rest and never logged.</p>}
    </fieldset>
  );
}

export function AddServerDialog({ onClose, onAdded }: { onClose(): void; onAdded(name: string): void }) {
  const add = useMcpServersStore((state) => state.add);
  const [draft, setDraft] = useState<ServerDraft>(EMPTY_DRAFT);
  const [presetNote, setPresetNote] = useState<string | null>(null);
  const [problem, setProblem] = useState<DraftProblem | null>(null);
  const { submitting, error, submit } = useSubmission(toFormError);
  const update = (patch: Partial<ServerDraft>) => setDraft((current) => ({ ...current, ...patch }));
  const fieldError = (field: DraftProblem['field']) => (problem?.field === field ? problem.message : null);
  const serverError = error && error.param !== 'name' ? error.message : null;

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const checked = draftToServer(draft);
    if ('problem' in checked) {
      setProblem(checked.problem);
      return;
    }
    setProblem(null);
    await submit(async () => {
      const server = await add(checked.server);
      onAdded(server.name);
    });
  };

  return (
    <Dialog title="Add an MCP server" description="Gatehouse starts or connects to it, and hands its tools to every agent through one address." onClose={onClose} size="large">
      <form className="stack" onSubmit={onSubmit} noValidate>
        <div className="mcp-presets" role="group" aria-label="Start from a preset">
          <span className="muted small">Start from</span>
          {SERVER_PRESETS.map((preset) => (
            <button
              key={preset.id}
              type="button"
              className="button button-secondary button-small"
              onClick={() => {
                setDraft({ ...preset.draft, env: preset.draft.env.map((row) => ({ ...row })) });
                setPresetNote(preset.note);
                setProblem(null);
              }}
            >
              {preset.label}
            </button>
          ))}
        </div>
        {presetNote && (
          <div className="notice notice-warning" role="status">
            <Icon name="alert" size={16} />
            <span className="notice-body">{presetNote}</span>
          </div>
        )}
        <div className="form-grid form-grid-2">
          <Field label="Name" hint="Lower-case letters, digits and “-”; tools appear as name__tool." error={fieldError('name') ?? (error?.param === 'name' ? error.message : null)}>
            <input className="input input-mono" value={draft.name} spellCheck={false} autoComplete="off" placeholder="github" onChange={(event) => update({ name: event.target.value })} />
          </Field>
          <Field label="Call timeout (seconds)" error={fieldError('timeout')}>
            <input className="input input-number" inputMode="decimal" value={draft.timeoutSeconds} onChange={(event) => update({ timeoutSeconds: event.target.value })} />
          </Field>
        </div>
        <div className="field">
          <span className="field-label">Transport</span>
          <SegmentedControl
            label="Transport"
            options={TRANSPORTS}
            value={draft.transport}
            onChange={(transport) => {
              update({ transport });
              // A preset's note is about its command; it no longer applies to an address.
              setPresetNote(null);
            }}
          />
        </div>
        {draft.transport === 'stdio' ? (
          <>
            <div className="form-grid mcp-command-grid">
              <Field label="Command" error={fieldError('command')}>
                <input className="input input-mono" value={draft.command} spellCheck={false} placeholder="npx" onChange={(event) => update({ command: event.target.value })} />
              </Field>
              <Field label="Arguments" hint="Separated by spaces; quote one that has spaces." error={fieldError('args')}>
                <input className="input input-mono" value={draft.args} spellCheck={false} placeholder="-y @modelcontextprotocol/server-everything" onChange={(event) => update({ args: event.target.value })} />
              </Field>
            </div>
            <ValueRows legend="Environment" what="Variable" rows={draft.env} namePlaceholder="NAME" error={fieldError('env')} onChange={(env) => update({ env })} />
          </>
        ) : (
          <>
            <Field label="URL" hint={draft.transport === 'http' ? 'The server’s Streamable HTTP endpoint, often …/mcp.' : 'The legacy SSE endpoint, often …/sse.'} error={fieldError('url')}>
              <input className="input input-mono" type="url" value={draft.url} spellCheck={false} placeholder={draft.transport === 'http' ? 'https://example.com/mcp' : 'https://example.com/sse'} onChange={(event) => update({ url: event.target.value })} />
            </Field>
            <ValueRows legend="Headers" what="Header" rows={draft.headers} namePlaceholder="Authorization" error={fieldError('headers')} onChange={(headers) => update({ headers })} />
          </>
        )}
        {serverError && <ErrorNotice message={serverError} />}
        <div className="dialog-actions">
          <button type="button" className="button button-secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={submitting}>
            {submitting ? 'Adding…' : 'Add server'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
