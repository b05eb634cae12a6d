// The model a set-up names, picked among the models the key serves (never a model its server may lack):
// a list when it has several, the one it has, or a field to type one when its host listed none.
import { useEffect, useId, useState } from 'react';
import { Field } from '../../components/Field';
import type { KeyModels } from '../../api/types';
import { useKeyModelsStore } from '../../stores/key-models-store';

const SOURCE_LABELS: Record<KeyModels['models'][number]['source'], string> = {
  default: 'Default model',
  provider: 'Listed by the server',
  catalog: 'From the catalog',
  map: 'Model map',
  route: 'Routes',
};

/** The key's models (read once per key) and the one picked: the person's pick, else the first. */
export function useKeyModel(keyId: string | null): { model: string; setModel(model: string): void; entry: ReturnType<typeof useKeyModelsStore.getState>['byKey'][string] | undefined } {
  const entry = useKeyModelsStore((state) => (keyId ? state.byKey[keyId] : undefined));
  const load = useKeyModelsStore((state) => state.load);
  const [picked, setPicked] = useState<{ keyId: string | null; model: string } | null>(null);
  useEffect(() => {
    if (keyId) void load(keyId);
  }, [keyId, load]);
  // A pick belongs to its key: another key starts from its own first model.
  const own = picked && picked.keyId === keyId ? picked.model : null;
  const model = own ?? entry?.models[0]?.id ?? '';
  return { model, setModel: (next) => setPicked({ keyId, model: next }), entry };
}

export function KeyModelPicker({ keyId, value, onChange }: { keyId: string; value: string; onChange(model: string): void }) {
  const entry = useKeyModelsStore((state) => state.byKey[keyId]);
  const listId = useId();
  if (!entry || (entry.status === 'loading' && !entry.models.length)) {
    return <p className="muted small key-model-picker">Reading the models this key serves…</p>;
  }
  const models = entry.models;
  if (!models.length) {
    const why = entry.error ?? entry.listing?.message ?? 'Its host listed no models.';
    return (
      <Field label="Model" className="key-model-picker" hint={`${why} Type the model your tool should ask for.`}>
        <input className="input input-mono" spellCheck={false} placeholder="your-model" value={value} onChange={(event) => onChange(event.target.value)} />
      </Field>
    );
  }
  // Suggestions, not a closed list: a provider's list (or the catalog) can lag a model released today, and a
  // model map may serve names no list has. The person can always type the model their tool should ask for.
  return (
    <Field
      label="Model"
      className="key-model-picker"
      hint={models.length === 1 ? 'The one model this key serves, or type another.' : `${models.length} models this key serves (type to pick, or another); the set-ups below use it.`}
    >
      {(control) => (
        <>
          <input {...control} className="input input-mono" list={listId} spellCheck={false} autoComplete="off" value={value} onChange={(event) => onChange(event.target.value)} />
          <datalist id={listId}>
            {models.map((model) => (
              <option key={model.id} value={model.id} label={SOURCE_LABELS[model.source]} />
            ))}
          </datalist>
        </>
      )}
    </Field>
  );
}
