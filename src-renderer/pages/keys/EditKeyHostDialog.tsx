// A virtual key's host and chat-only switch, edited in place: the same gh-vk- key keeps working at the new
// host, so no tool needs a new key. A new host needs the secret again (a key is bound to its host, and its
// secret never follows it to another); the key's panel then tests the new host (Test connection) and shows
// what answered there.
import { useState, type FormEvent } from 'react';
import type { VirtualKey } from '../../api/types';
import { Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { ErrorNotice } from '../../components/StatusViews';
import { toFormError, useSubmission } from '../../components/use-submission';
import { buildRotation, credentialFields, isSecretField, type FieldValues } from '../../keys/provider-form';
import { useKeysStore } from '../../stores/keys-store';
import { requireAdminClient } from '../../stores/session-store';

export function EditKeyHostDialog({ virtualKey, onClose, onSaved }: { virtualKey: VirtualKey; onClose(): void; onSaved(message: string, newHost: boolean): void }) {
  const providers = useKeysStore((state) => state.providers);
  const load = useKeysStore((state) => state.load);
  const provider = providers.find((item) => item.slug === virtualKey.provider);
  const [customHost, setCustomHost] = useState(virtualKey.customHost ?? '');
  const [chatOnly, setChatOnly] = useState(virtualKey.chatOnly);
  const [values, setValues] = useState<FieldValues>({});
  const { submitting, error, setError, submit } = useSubmission(toFormError);
  const hostChanged = customHost.trim() !== (virtualKey.customHost ?? '');
  const secretFields = credentialFields(provider).filter((field) => field.secret);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const rotation = buildRotation(provider, values);
    if (hostChanged && secretFields.some((field) => field.required) && !rotation.secret && !rotation.cloud) {
      setError({ message: 'A new host needs the secret again: the stored one never goes to another host.', param: 'secret' });
      return;
    }
    await submit(async () => {
      const patch = { ...(hostChanged ? { customHost: customHost.trim() || null, ...rotation } : {}), chatOnly };
      await requireAdminClient().editVirtualKey(virtualKey.id, patch);
      await load();
      onSaved(hostChanged ? `Saved the host of ${virtualKey.name}` : `Saved ${virtualKey.name}`, hostChanged && customHost.trim() !== '');
    });
  };

  return (
    <Dialog title={`Change the host of “${virtualKey.name}”`} description="The virtual key stays the same: tools that use it keep working at the new host." onClose={onClose}>
      <form className="stack" onSubmit={onSubmit} noValidate>
        <Field label="Custom host" error={error?.param === 'customHost' ? error.message : null} hint={`Where the key sends its calls${provider?.defaultBaseUrl ? ` (empty: ${provider.defaultBaseUrl})` : ''}. OpenAI-format servers usually answer under /v1.`}>
          <input className="input input-mono" type="url" spellCheck={false} placeholder={provider?.defaultBaseUrl ?? 'http://127.0.0.1:1234/v1'} value={customHost} onChange={(event) => setCustomHost(event.target.value)} />
        </Field>
        {hostChanged &&
          secretFields.map((field) => (
            <Field key={field.name} label={field.label} error={error?.param === field.name || (error?.param === 'secret' && isSecretField(field)) ? error.message : null} hint="Asked again for a new host.">
              <input className="input input-mono" type="password" autoComplete="new-password" value={values[field.name] ?? ''} onChange={(event) => setValues({ ...values, [field.name]: event.target.value })} />
            </Field>
          ))}
        <label className="checkbox-row">
          <input type="checkbox" checked={chatOnly} onChange={(event) => setChatOnly(event.target.checked)} />
          <span>Chat only: the server has no Responses API (Codex's calls are translated to Chat)</span>
        </label>
        {error && !['customHost', 'secret', ...secretFields.map((field) => field.name)].includes(error.param ?? '') && <ErrorNotice message={error.message} />}
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
