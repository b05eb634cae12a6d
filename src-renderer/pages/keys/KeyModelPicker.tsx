// The model a set-up names, picked among the models the key serves (never a model its server may lack):
// a list when it has several, the one it has, or a field to type one when its host listed none.
import { useEffect, useState } from 'react';
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
  const groups = (Object.keys(SOURCE_LABELS) as (keyof typeof SOURCE_LABELS)[]).map((source) => [source, models.filter((model) => model.source === source)] as const).filter(([, list]) => list.length);
  return (
    <Field
      label="Model"
      className="key-model-picker"
      hint={models.length === 1 ? 'The one model this key serves.' : `${models.length} models this key serves; the set-ups below use the one picked.`}
    >
      <select className="input input-mono" value={value} onChange={(event) => onChange(event.target.value)}>
        {groups.map(([source, list]) => (
          <optgroup key={source} label={SOURCE_LABELS[source]}>
            {list.map((model) => (
              <option key={model.id} value={model.id}>
                {model.id}
              </option>
            ))}
          </optgroup>
        ))}
      </select>
    </Field>
  );
}
