// Settings → Models: the user's own price and context window for a model, over the catalog's (0 for a
// local model, a negotiated price, a fine-tune the catalog does not know). Prices are USD per million
// tokens; a blank field keeps the catalog's figure.
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, describeError } from '../../api/api-error';
import type { CatalogModel, ModelOverride } from '../../api/types';
import { Field } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { ErrorNotice } from '../../components/StatusViews';
import { requireAdminClient } from '../../stores/session-store';
import { useKeysStore } from '../../stores/keys-store';
import { useToastStore } from '../../stores/toast-store';
import '../usage/usage.css';

type NumberField = 'contextWindow' | 'input' | 'output' | 'cacheRead' | 'cacheWrite';

const NUMBER_FIELDS: Array<{ name: NumberField; label: string; integer: boolean }> = [
  { name: 'input', label: 'Input $/M', integer: false },
  { name: 'output', label: 'Output $/M', integer: false },
  { name: 'cacheRead', label: 'Cache read $/M', integer: false },
  { name: 'cacheWrite', label: 'Cache write $/M', integer: false },
  { name: 'contextWindow', label: 'Context window', integer: true },
];

type Draft = { provider: string; model: string } & Record<NumberField, string>;

const EMPTY_DRAFT: Draft = { provider: 'ollama', model: '', contextWindow: '', input: '', output: '', cacheRead: '', cacheWrite: '' };

function shown(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : value.toLocaleString('en-US', { maximumFractionDigits: 4 });
}

/** The catalog's flat price for a placeholder (a tiered price shows its base). */
function catalogPrice(price: number | { base: number } | undefined): string {
  if (price === undefined) return '';
  return typeof price === 'number' ? String(price) : String(price.base);
}

export function ModelOverrides() {
  const showToast = useToastStore((state) => state.show);
  const [items, setItems] = useState<ModelOverride[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [draft, setDraft] = useState<Draft>(EMPTY_DRAFT);
  const [catalog, setCatalog] = useState<CatalogModel | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [saving, setSaving] = useState(false);
  // Every provider the gateway knows (GET /admin/api/providers); until it arrives, the chosen one.
  const providers = useKeysStore((state) => state.providers);
  const loadProviders = useKeysStore((state) => state.loadProviders);
  const providerSlugs = providers.length ? providers.map((provider) => provider.slug) : [draft.provider].filter((slug) => slug !== '*');

  const load = async () => {
    try {
      setItems((await requireAdminClient().modelOverrides()).items);
      setLoadError(null);
    } catch (caught) {
      setLoadError(describeError(caught));
    }
  };

  useEffect(() => {
    void load();
    void loadProviders();
  }, [loadProviders]);

  // What the catalog says of the model being typed, as placeholders: the user sees what they replace.
  useEffect(() => {
    const model = draft.model.trim();
    if (!model) return setCatalog(null);
    let current = true;
    const timer = setTimeout(() => {
      requireAdminClient()
        .catalogModel(draft.provider, model)
        .then((found) => current && setCatalog(found && found.source !== 'override' ? found : null))
        .catch(() => current && setCatalog(null));
    }, 300);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [draft.provider, draft.model]);

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const override: ModelOverride = { provider: draft.provider, model: draft.model.trim() };
    // A slip is pointed out next to its field before anything is sent.
    for (const field of NUMBER_FIELDS) {
      const text = draft[field.name].trim();
      if (text === '') continue;
      const value = Number(text);
      const valid = field.integer ? Number.isInteger(value) && value >= 1 : Number.isFinite(value) && value >= 0;
      if (!valid) {
        setError(new ApiError(`${field.label} must be ${field.integer ? 'a whole number of 1 or more' : 'a price of 0 or more'}`, 0, null, field.name));
        return;
      }
      override[field.name] = value;
    }
    setSaving(true);
    try {
      await requireAdminClient().setModelOverride(override);
      setError(null);
      setDraft({ ...EMPTY_DRAFT, provider: draft.provider });
      showToast(`Saved the override for ${override.model}`);
      await load();
    } catch (caught) {
      setError(caught instanceof ApiError ? caught : new ApiError(describeError(caught), 0));
    } finally {
      setSaving(false);
    }
  };

  const remove = async (item: ModelOverride) => {
    try {
      await requireAdminClient().deleteModelOverride(item.provider, item.model);
      showToast(`Removed the override for ${item.model}`);
      await load();
    } catch (caught) {
      showToast(describeError(caught), 'error');
    }
  };

  const fieldError = (name: string) => (error && error.param === name ? error.message : null);
  const placeholder = (name: NumberField): string => {
    if (!catalog) return '';
    if (name === 'contextWindow') return catalog.contextWindow ? String(catalog.contextWindow) : '';
    return catalog.prices ? catalogPrice(catalog.prices[name]) : '';
  };

  return (
    <section className="card" aria-labelledby="models-heading">
      <h2 id="models-heading" className="card-title">
        Model prices and context windows
      </h2>
      <p className="muted small">
        Costs and the context-length check use the bundled model catalog. Set your own figures for a model here: 0 for a local model, your negotiated price, or a model the catalog does not list. Prices are USD per million tokens.
      </p>
      {loadError && <ErrorNotice title="Could not load the overrides" message={loadError} onRetry={() => void load()} />}
      {items && items.length > 0 && (
        <div className="usage-table-wrap">
          <table className="usage-table override-table" aria-label="Model overrides">
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">Model</th>
                {NUMBER_FIELDS.map((field) => (
                  <th key={field.name} scope="col" className="numeric">
                    {field.label}
                  </th>
                ))}
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {items.map((item) => (
                <tr key={`${item.provider}/${item.model}`}>
                  <td>{item.provider === '*' ? 'any' : item.provider}</td>
                  <th scope="row">{item.model}</th>
                  {NUMBER_FIELDS.map((field) => (
                    <td key={field.name} className="numeric">
                      {shown(item[field.name])}
                    </td>
                  ))}
                  <td>
                    <button type="button" className="button button-ghost button-icon" aria-label={`Remove the override for ${item.model}`} onClick={() => void remove(item)}>
                      <Icon name="trash" />
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <form className="form-grid model-override-form" onSubmit={onSubmit} noValidate>
        <Field label="Provider" error={fieldError('provider')}>
          <select className="input" value={draft.provider} onChange={(event) => setDraft({ ...draft, provider: event.target.value })}>
            {providerSlugs.map((slug) => (
              <option key={slug} value={slug}>
                {slug}
              </option>
            ))}
            <option value="*">any provider</option>
          </select>
        </Field>
        <Field label="Model" error={fieldError('model')} hint={catalog ? `In the catalog as ${catalog.catalogId ?? catalog.model}` : 'The model name as your tools send it.'}>
          <input className="input input-mono" value={draft.model} placeholder="llama3.2" onChange={(event) => setDraft({ ...draft, model: event.target.value })} />
        </Field>
        {NUMBER_FIELDS.map((field) => (
          <Field key={field.name} label={field.label} error={fieldError(field.name)}>
            <input
              className="input"
              type="number"
              min={field.integer ? 1 : 0}
              step={field.integer ? 1 : 'any'}
              value={draft[field.name]}
              placeholder={placeholder(field.name)}
              onChange={(event) => setDraft({ ...draft, [field.name]: event.target.value })}
            />
          </Field>
        ))}
        {error && !['provider', 'model', ...NUMBER_FIELDS.map((field) => field.name)].includes(error.param ?? '') && <ErrorNotice title="Could not save" message={error.message} />}
        <div className="form-footer full-width">
          <button type="submit" className="button button-primary" disabled={saving || !draft.model.trim()}>
            Save override
          </button>
        </div>
      </form>
    </section>
  );
}
