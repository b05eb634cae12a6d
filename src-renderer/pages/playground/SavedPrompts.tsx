// Saved prompts: save what is in the Playground under a name, and open or delete saved ones.
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, describeError } from '../../api/api-error';
import { Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { useReplaceConversation } from './ReplaceConversation';
import { Icon } from '../../components/Icon';
import { formatRelativeTime } from '../../components/format';
import { useSubmission } from '../../components/use-submission';
import { useSavedPromptsStore } from '../../stores/saved-prompts-store';
import { useToastStore } from '../../stores/toast-store';
import { useKeysStore } from '../../stores/keys-store';

const MODE_NAMES: Record<string, string> = {
  '/v1/completions': 'Completion',
  '/v1/chat/completions': 'Chat',
  '/v1/messages': 'Messages',
  '/v1/responses': 'Responses',
};

/** `as`: the key and model to keep (the compare view's first side) instead of the single view's. */
export function SavePromptDialog({ onClose, as }: { onClose(): void; as?: { keyId: string; model: string } }) {
  const saveCurrent = useSavedPromptsStore((state) => state.saveCurrent);
  const items = useSavedPromptsStore((state) => state.items);
  const showToast = useToastStore((state) => state.show);
  const [name, setName] = useState('');
  const { submitting, error, setError, submit } = useSubmission((caught) => (caught instanceof ApiError || caught instanceof Error ? describeError(caught) : String(caught)));
  const replaces = items.some((item) => item.name === name.trim());
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) {
      setError('Give the prompt a name you will recognise');
      return;
    }
    await submit(async () => {
      const saved = await saveCurrent(name.trim(), as);
      showToast(`Saved “${saved.name}”`);
      onClose();
    });
  };
  return (
    <Dialog
      title="Save prompt"
      description={as ? 'Keeps the prompt, conversation and parameters with side A’s key and model.' : 'Keeps the model, prompt, conversation, parameters and the key it runs with (by name, never the key itself).'}
      onClose={onClose}
      size="small"
    >
      <form className="stack" onSubmit={onSubmit} noValidate>
        <Field label="Prompt name" error={error} hint={replaces ? 'A saved prompt of this name is replaced.' : undefined}>
          <input className="input" value={name} maxLength={100} placeholder="e.g. Summarise a ticket" autoFocus onChange={(event) => setName(event.target.value)} />
        </Field>
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

export function SavedPromptsCard() {
  const items = useSavedPromptsStore((state) => state.items);
  const status = useSavedPromptsStore((state) => state.status);
  const loadError = useSavedPromptsStore((state) => state.error);
  const load = useSavedPromptsStore((state) => state.load);
  const open = useSavedPromptsStore((state) => state.open);
  const remove = useSavedPromptsStore((state) => state.remove);
  const keys = useKeysStore((state) => state.virtualKeys);
  const showToast = useToastStore((state) => state.show);
  useEffect(() => {
    void load();
  }, [load]);

  const { replace, dialog } = useReplaceConversation('this saved prompt');
  const onOpen = (id: string) => {
    const prompt = items.find((item) => item.id === id);
    if (!prompt) return;
    replace(() => {
      if (open(prompt)) showToast(`Opened “${prompt.name}”`);
      else showToast(`“${prompt.name}” is a ${MODE_NAMES[prompt.endpoint] ?? prompt.endpoint} request, which the Playground cannot show`, 'error');
    });
  };
  const onDelete = async (id: string) => {
    try {
      await remove(id);
    } catch (error) {
      showToast(describeError(error), 'error');
    }
  };

  return (
    // Not named "…prompts" for assistive technology: the Prompt field keeps the only label with that word.
    <section className="card">
      {dialog}
      <h2 className="card-title">
        Saved prompts
      </h2>
      {status === 'error' && <p className="field-error">{loadError}</p>}
      {status === 'ready' && !items.length && <p className="muted small">None yet. Save a prompt to run it again later, with its key and parameters.</p>}
      {items.length > 0 && (
        <ul className="saved-prompts" aria-label="Saved">
          {items.map((item) => {
            const keyName = item.keyId ? keys.find((key) => key.id === item.keyId)?.name : undefined;
            return (
              <li key={item.id} className="saved-prompt">
                <div className="saved-prompt-text">
                  <span className="saved-prompt-name truncate">{item.name}</span>
                  <span className="muted small truncate">
                    {MODE_NAMES[item.endpoint] ?? item.endpoint}
                    {keyName ? ` · ${keyName}` : ''} · {formatRelativeTime(item.updatedAt)}
                  </span>
                </div>
                <div className="card-actions">
                  <button type="button" className="button button-secondary button-small" aria-label={`Open ${item.name}`} onClick={() => onOpen(item.id)}>
                    Open
                  </button>
                  <button type="button" className="button button-ghost button-icon" aria-label={`Delete ${item.name}`} onClick={() => void onDelete(item.id)}>
                    <Icon name="trash" />
                  </button>
                </div>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
