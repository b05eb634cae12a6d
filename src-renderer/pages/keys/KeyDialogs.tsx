// The dialogs of the Keys page: create, show once, rotate, revoke.
import { useState, type FormEvent } from 'react';
import { describeError } from '../../api/api-error';
import type { ProviderField, ProviderInfo, VirtualKey } from '../../api/types';
import { CopyButton } from '../../components/CopyButton';
import { ConfirmActions, Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { ErrorNotice } from '../../components/StatusViews';
import { toFormError, useSubmission, type FormError } from '../../components/use-submission';
import { buildKeyModels, emptyModelMapRow, rowsFromModelMap, type ModelMapRow } from '../../keys/model-map';
import { buildNewVirtualKey, buildRotation, credentialFields, exampleModelFor, isFieldRequired, isSecretField, missingRequiredFields, type FieldValues } from '../../keys/provider-form';
import { useKeysStore, type RevealedKey } from '../../stores/keys-store';
import { keyNameProblem } from '../../keys/key-name';
import { KeyUsage } from './KeyUsage';
import { ConnectionTest } from './ConnectionTest';

/** Cancel and the form's submit button, which says what it is doing while the request runs. */
function FormActions({ onCancel, submitting, label, busyLabel }: { onCancel(): void; submitting: boolean; label: string; busyLabel: string }) {
  return (
    <div className="dialog-actions">
      <button type="button" className="button button-secondary" onClick={onCancel}>
        Cancel
      </button>
      <button type="submit" className="button button-primary" disabled={submitting}>
        {submitting ? busyLabel : label}
      </button>
    </div>
  );
}

const lowerFirst = (text: string) => text.charAt(0).toLowerCase() + text.slice(1);

/** The provider's credential inputs; secret ones are password fields that never autofill. */
function CredentialFields({ provider, values, onChange, error, customHost = '' }: { provider: ProviderInfo | undefined; values: FieldValues; onChange(values: FieldValues): void; error: FormError | null; customHost?: string }) {
  const fields = credentialFields(provider);
  const labelOf = (name: string) => fields.find((field) => field.name === name)?.label ?? name;
  const hintFor = (field: ProviderField) => {
    if (field.alternative) return `Or give the ${lowerFirst(labelOf(field.alternative))} instead.`;
    return field.required ? undefined : 'Optional';
  };
  // The server names its main secret field `secret` in errors, whatever the field is called.
  const mainSecretName = fields.find(isSecretField)?.name ?? fields.find((field) => field.secret)?.name;
  return (
    <>
      {fields.map((field) => (
        <Field key={field.name} label={field.label} error={error?.param === field.name || (error?.param === 'secret' && field.name === mainSecretName) ? error.message : null} hint={hintFor(field)}>
          <input
            className={`input${field.secret ? ' input-mono' : ''}`}
            type={field.secret ? 'password' : 'text'}
            autoComplete={field.secret ? 'new-password' : 'off'}
            spellCheck={false}
            required={isFieldRequired(field, values, customHost)}
            placeholder={field.placeholder}
            value={values[field.name] ?? ''}
            onChange={(event) => onChange({ ...values, [field.name]: event.target.value })}
          />
        </Field>
      ))}
    </>
  );
}

/**
 * A key's default model (sent when a request names none) and its model map (a requested name → the
 * provider's model), so one key can stand for a whole local box.
 */
function KeyModelsFields({ providerSlug, defaultModel, rows, onDefaultModel, onRows, error }: { providerSlug: string; defaultModel: string; rows: ModelMapRow[]; onDefaultModel(value: string): void; onRows(rows: ModelMapRow[]): void; error: FormError | null }) {
  const patchRow = (uid: number, patch: Partial<ModelMapRow>) => onRows(rows.map((row) => (row.uid === uid ? { ...row, ...patch } : row)));
  const mapError = error?.param === 'modelMap' || error?.param?.startsWith('modelMap.') ? error.message : null;
  return (
    <>
      <Field label="Default model" error={error?.param === 'defaultModel' ? error.message : null} hint="Optional. Sent when a request names no model.">
        <input className="input input-mono" spellCheck={false} placeholder={exampleModelFor(providerSlug)} value={defaultModel} onChange={(event) => onDefaultModel(event.target.value)} />
      </Field>
      <div className="field">
        <div className="field-label-row">
          <span className="field-label">Model map</span>
        </div>
        <div className="model-map" role="group" aria-label="Model map">
          {rows.map((row, index) => (
            <div key={row.uid} className="model-map-row">
              <input className="input input-mono" spellCheck={false} aria-label={`Requested model ${index + 1}`} placeholder="requested name, e.g. gpt-4o" value={row.from} onChange={(event) => patchRow(row.uid, { from: event.target.value })} />
              <span className="model-map-arrow" aria-hidden="true">
                →
              </span>
              <input className="input input-mono" spellCheck={false} aria-label={`Provider model ${index + 1}`} placeholder={`sent as, e.g. ${exampleModelFor(providerSlug)}`} value={row.to} onChange={(event) => patchRow(row.uid, { to: event.target.value })} />
              <button type="button" className="button button-ghost button-icon" aria-label={`Remove mapping ${index + 1}`} onClick={() => onRows(rows.filter((item) => item.uid !== row.uid))}>
                <Icon name="trash" />
              </button>
            </div>
          ))}
          <div>
            <button type="button" className="button button-ghost button-small" onClick={() => onRows([...rows, emptyModelMapRow()])}>
              <Icon name="plus" />
              Add mapping
            </button>
          </div>
        </div>
        {mapError ? <p className="field-error">{mapError}</p> : <p className="field-hint">Optional. A request for the name on the left is sent to this key’s provider as the name on the right.</p>}
      </div>
    </>
  );
}

/** What the routing switch means, in one place for the new-key form and the key's row. */
export const ROUTING_HINT = 'Routes always serve gateway keys and this key’s own calls. On, a route may also serve another virtual key’s call with this key’s credentials, counted against this key’s limits.';

/** Whether routes may lend this key's credentials to other virtual keys' calls; `subject` names the key to screen readers. */
export function RoutingSwitch({ checked, onChange, subject, disabled = false }: { checked: boolean; onChange(checked: boolean): void; subject?: string; disabled?: boolean }) {
  return (
    <label className="switch" title={subject ? ROUTING_HINT : undefined}>
      <input type="checkbox" role="switch" checked={checked} disabled={disabled} onChange={(event) => onChange(event.target.checked)} />
      <span className="switch-track" aria-hidden="true" />
      <span>
        Other keys may use it through routes
        {subject && <span className="visually-hidden"> ({subject})</span>}
      </span>
    </label>
  );
}

export function NewVirtualKeyDialog({ onClose }: { onClose(): void }) {
  const providers = useKeysStore((state) => state.providers);
  const createVirtualKey = useKeysStore((state) => state.createVirtualKey);
  const [name, setName] = useState('');
  const [providerSlug, setProviderSlug] = useState(providers[0]?.slug ?? 'openai');
  const [values, setValues] = useState<FieldValues>({});
  const [customHost, setCustomHost] = useState('');
  const [defaultModel, setDefaultModel] = useState('');
  const [modelRows, setModelRows] = useState<ModelMapRow[]>([]);
  const [allowRouting, setAllowRouting] = useState(false);
  const { submitting, error, setError, submit } = useSubmission(toFormError);
  const provider = providers.find((item) => item.slug === providerSlug);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const nameProblem = keyNameProblem(name);
    if (nameProblem) {
      setError({ message: nameProblem, param: 'name' });
      return;
    }
    if (provider?.hostRequired && !customHost.trim()) {
      setError({ message: `${provider.name} has no address of its own: give the server’s address, e.g. http://127.0.0.1:8000/v1`, param: 'customHost' });
      return;
    }
    const missing = missingRequiredFields(provider, values, customHost);
    if (missing.length) {
      setError({ message: `${missing[0].label} is required for ${provider?.name ?? providerSlug}`, param: missing[0].name });
      return;
    }
    const { models, error: modelsError } = buildKeyModels(defaultModel, modelRows);
    if (modelsError) {
      setError(modelsError);
      return;
    }
    await submit(async () => {
      const body = buildNewVirtualKey(name, provider, providerSlug, values, customHost);
      // Only set fields are sent, so a server without model settings still creates the key.
      if (models.defaultModel) body.defaultModel = models.defaultModel;
      if (Object.keys(models.modelMap).length) body.modelMap = models.modelMap;
      if (allowRouting) body.allowRouting = true;
      await createVirtualKey(body);
      onClose();
    });
  };

  const fieldError = (param: string) => (error?.param === param ? error.message : null);
  const isModelsParam = (param: string | null) => param === 'defaultModel' || param === 'modelMap' || Boolean(param?.startsWith('modelMap.'));
  const generalError = error && !isModelsParam(error.param) && !['name', 'provider', 'customHost', 'secret', ...credentialFields(provider).map((field) => field.name)].includes(error.param ?? '') ? error.message : null;

  return (
    <Dialog
      title="New virtual key"
      description="Store a provider credential in Gatehouse and hand out a gh-vk- key that refers to it. The credential is encrypted and never shown again."
      onClose={onClose}
    >
      <form className="stack" onSubmit={onSubmit} noValidate>
        <Field label="Name" error={fieldError('name')}>
          <input className="input" value={name} placeholder="e.g. Laptop scripts" autoFocus onChange={(event) => setName(event.target.value)} />
        </Field>
        <Field label="Provider" error={fieldError('provider')}>
          <select className="input" value={providerSlug} onChange={(event) => { setProviderSlug(event.target.value); setValues({}); }}>
            {providers.map((item) => (
              <option key={item.slug} value={item.slug}>
                {item.name}
              </option>
            ))}
            {!providers.length && <option value="openai">openai</option>}
          </select>
        </Field>
        <CredentialFields provider={provider} values={values} onChange={setValues} error={error} customHost={customHost} />
        <Field
          label="Custom host"
          error={fieldError('customHost')}
          hint={
            provider?.hostRequired
              ? 'Required: the server’s address, usually ending in /v1. The key only ever goes there.'
              : `Optional. The key only ever goes to this address${provider?.defaultBaseUrl ? ` (default ${provider.defaultBaseUrl})` : ''}.`
          }
        >
          <input
            className="input input-mono"
            type="url"
            spellCheck={false}
            required={provider?.hostRequired === true}
            placeholder={provider?.hostRequired ? 'http://127.0.0.1:8000/v1' : provider?.defaultBaseUrl || 'https://…'}
            value={customHost}
            onChange={(event) => setCustomHost(event.target.value)}
          />
        </Field>
        <div className="field">
          <RoutingSwitch checked={allowRouting} onChange={setAllowRouting} />
          <p className="field-hint">{ROUTING_HINT}</p>
        </div>
        <details className="disclosure" open={isModelsParam(error?.param ?? null) || undefined}>
          <summary>Models (optional)</summary>
          <div className="disclosure-body">
            <KeyModelsFields providerSlug={providerSlug} defaultModel={defaultModel} rows={modelRows} onDefaultModel={setDefaultModel} onRows={setModelRows} error={error} />
          </div>
        </details>
        {generalError && <ErrorNotice message={generalError} />}
        <FormActions onCancel={onClose} submitting={submitting} label="Create" busyLabel="Creating…" />
      </form>
    </Dialog>
  );
}

export function NewGatewayKeyDialog({ onClose }: { onClose(): void }) {
  const createGatewayKey = useKeysStore((state) => state.createGatewayKey);
  const [name, setName] = useState('');
  const { submitting, error, setError, submit } = useSubmission(toFormError);
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const nameProblem = keyNameProblem(name);
    if (nameProblem) {
      setError({ message: nameProblem, param: 'name' });
      return;
    }
    await submit(async () => {
      await createGatewayKey(name.trim());
      onClose();
    });
  };
  return (
    <Dialog title="New gateway API key" description="Clients send this key in x-gateway-api-key together with their own provider token." onClose={onClose} size="small">
      <form className="stack" onSubmit={onSubmit} noValidate>
        <Field label="Name" error={error?.param === 'name' || !error?.param ? error?.message : null}>
          <input className="input" value={name} placeholder="e.g. CI runner" autoFocus onChange={(event) => setName(event.target.value)} />
        </Field>
        <FormActions onCancel={onClose} submitting={submitting} label="Create" busyLabel="Creating…" />
      </form>
    </Dialog>
  );
}

export function RevealedKeyDialog({ revealed, onClose }: { revealed: RevealedKey; onClose(): void }) {
  return (
    <Dialog title={`${revealed.kind === 'virtual' ? 'Virtual key' : 'Gateway API key'} “${revealed.name}” created`} onClose={onClose} size="large">
      <div className="stack">
        <div className="notice notice-warning">
          <Icon name="alert" size={18} />
          <div className="notice-body">
            <strong>Copy it now: this is the only time it is shown.</strong>
            <span>Gatehouse keeps only a hash. If you lose it, revoke it and create another.</span>
          </div>
        </div>
        <div className="secret-display">
          <code aria-label="New key" className="secret-value">
            {revealed.key}
          </code>
          <CopyButton text={revealed.key} what="key" variant="primary" />
        </div>
        {revealed.kind === 'virtual' && <ConnectionTest keyId={revealed.id} />}
        <h3 className="subheading">Use it</h3>
        <KeyUsage kind={revealed.kind} keyId={revealed.id} provider={revealed.provider} keyValue={revealed.key} />
        <div className="dialog-actions">
          <button type="button" className="button button-primary" onClick={onClose}>
            Done
          </button>
        </div>
      </div>
    </Dialog>
  );
}

export function RotateKeyDialog({ virtualKey, onClose, onRotated }: { virtualKey: VirtualKey; onClose(): void; onRotated(): void }) {
  const providers = useKeysStore((state) => state.providers);
  const rotateVirtualKey = useKeysStore((state) => state.rotateVirtualKey);
  const regenerateVirtualKey = useKeysStore((state) => state.regenerateVirtualKey);
  const provider = providers.find((item) => item.slug === virtualKey.provider);
  const [values, setValues] = useState<FieldValues>({});
  const { submitting, error, setError, submit } = useSubmission(toFormError);
  const regenerate = () =>
    submit(async () => {
      await regenerateVirtualKey(virtualKey.id);
      onClose();
    });
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const rotation = buildRotation(provider, values);
    if (!rotation.secret && !rotation.cloud) {
      setError({ message: 'Enter the new credential', param: null });
      return;
    }
    await submit(async () => {
      await rotateVirtualKey(virtualKey.id, rotation);
      onRotated();
    });
  };
  return (
    <Dialog
      title={`Rotate credential of “${virtualKey.name}”`}
      description="Replace the provider credential this key refers to. The virtual key itself stays the same, so clients keep working."
      onClose={onClose}
    >
      <form className="stack" onSubmit={onSubmit} noValidate>
        <CredentialFields provider={provider} values={values} onChange={setValues} error={error} customHost={virtualKey.customHost ?? ''} />
        {error && !error.param && <ErrorNotice message={error.message} />}
        <FormActions onCancel={onClose} submitting={submitting} label="Save new credential" busyLabel="Saving…" />
      </form>
      <div className="dialog-aside">
        <div>
          <strong>Was the gh-vk- key itself exposed?</strong>
          <p className="muted small">Issue a new virtual key for the same credential. The current one stops working at once.</p>
        </div>
        <button type="button" className="button button-secondary" disabled={submitting} onClick={() => void regenerate()}>
          <Icon name="rotate" />
          Issue a new key
        </button>
      </div>
    </Dialog>
  );
}

export function ConfirmRevokeDialog({ kind, name, onConfirm, onClose }: { kind: 'virtual' | 'gateway'; name: string; onConfirm(): Promise<void>; onClose(): void }) {
  const { submitting, error, submit } = useSubmission(describeError);
  const confirm = () =>
    submit(async () => {
      await onConfirm();
      onClose();
    });
  return (
    <Dialog title={`Revoke “${name}”?`} onClose={onClose} size="small">
      <div className="stack">
        <p>
          Every client using this {kind === 'virtual' ? 'virtual key' : 'gateway API key'} gets <strong>401</strong> from its next request.
          {kind === 'virtual' ? ' The stored provider credential is deleted.' : ''} This cannot be undone.
        </p>
        {error && <ErrorNotice message={error} />}
        <ConfirmActions onCancel={onClose} onConfirm={() => void confirm()} submitting={submitting} label="Revoke key" busyLabel="Revoking…" tone="danger" />
      </div>
    </Dialog>
  );
}

export function KeyModelsDialog({ virtualKey, onClose, onSaved }: { virtualKey: VirtualKey; onClose(): void; onSaved(): void }) {
  const updateVirtualKeyModels = useKeysStore((state) => state.updateVirtualKeyModels);
  const [defaultModel, setDefaultModel] = useState(virtualKey.defaultModel ?? '');
  const [rows, setRows] = useState<ModelMapRow[]>(() => {
    const existing = rowsFromModelMap(virtualKey.modelMap);
    return existing.length ? existing : [emptyModelMapRow()];
  });
  const { submitting, error, setError, submit } = useSubmission(toFormError);
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const { models, error: modelsError } = buildKeyModels(defaultModel, rows);
    if (modelsError) {
      setError(modelsError);
      return;
    }
    await submit(async () => {
      await updateVirtualKeyModels(virtualKey.id, models);
      onSaved();
    });
  };
  const isFieldError = error?.param === 'defaultModel' || error?.param === 'modelMap' || Boolean(error?.param?.startsWith('modelMap.'));
  return (
    <Dialog title={`Models of “${virtualKey.name}”`} description="What this key sends when a request names no model, and which requested names it swaps for the provider’s own." onClose={onClose}>
      <form className="stack" onSubmit={onSubmit} noValidate>
        <KeyModelsFields providerSlug={virtualKey.provider} defaultModel={defaultModel} rows={rows} onDefaultModel={setDefaultModel} onRows={setRows} error={error} />
        {error && !isFieldError && <ErrorNotice message={error.message} />}
        <FormActions onCancel={onClose} submitting={submitting} label="Save models" busyLabel="Saving…" />
      </form>
    </Dialog>
  );
}
