// Create or edit a route: what it matches, how it chooses, and its targets (a virtual key by name,
// the model to send, weight, timeout and conditions). The server's refusals land beside their field.
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, describeError } from '../../api/api-error';
import type { Route, RouteStrategy } from '../../api/types';
import { Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { SegmentedControl } from '../../components/SegmentedControl';
import { ErrorNotice } from '../../components/StatusViews';
import {
  draftFromRoute,
  emptyTarget,
  fieldOfParam,
  isShownField,
  moveItem,
  routeInputFromDraft,
  STRATEGY_DESCRIPTIONS,
  targetError,
  type RouteDraft,
  type RouteFormErrors,
  type TargetDraft,
  type Tristate,
} from '../../routes/route-form';
import { useKeysStore } from '../../stores/keys-store';
import { useRoutesStore } from '../../stores/routes-store';

const CONDITION_CHOICES: Array<{ value: Tristate; label: string }> = [
  { value: 'any', label: 'Either way' },
  { value: 'yes', label: 'Only when present' },
  { value: 'no', label: 'Only when absent' },
];

/** Any / yes / no for one condition of a target. */
function ConditionSelect({ value, onChange }: { value: Tristate; onChange(value: Tristate): void }) {
  return (
    <select className="input" value={value} onChange={(event) => onChange(event.target.value as Tristate)}>
      {CONDITION_CHOICES.map((choice) => (
        <option key={choice.value} value={choice.value}>
          {choice.label}
        </option>
      ))}
    </select>
  );
}

function TargetEditor({
  target,
  index,
  count,
  strategy,
  keyNames,
  errors,
  onChange,
  onMove,
  onRemove,
}: {
  target: TargetDraft;
  index: number;
  count: number;
  strategy: RouteStrategy;
  keyNames: string[];
  errors: RouteFormErrors;
  onChange(patch: Partial<TargetDraft>): void;
  onMove(delta: number): void;
  onRemove(): void;
}) {
  const label = `Target ${index + 1}`;
  const isUnknownKey = target.key !== '' && !keyNames.includes(target.key);
  const hasConditions = target.minPromptTokens !== '' || target.thinking !== 'any' || target.tools !== 'any';
  const conditionError = targetError(errors, index, 'when');
  return (
    <div className="target-editor" role="group" aria-label={label}>
      <div className="target-editor-header">
        <h4 className="target-editor-title">{label}</h4>
        <div className="card-actions">
          <button type="button" className="button button-ghost button-icon" aria-label={`Move ${label.toLowerCase()} up`} aria-disabled={index === 0} onClick={() => index > 0 && onMove(-1)}>
            <Icon name="chevron-up" />
          </button>
          <button type="button" className="button button-ghost button-icon" aria-label={`Move ${label.toLowerCase()} down`} aria-disabled={index === count - 1} onClick={() => index < count - 1 && onMove(1)}>
            <Icon name="chevron-down" />
          </button>
          <button type="button" className="button button-ghost button-icon button-danger-text" aria-label={`Remove ${label.toLowerCase()}`} onClick={onRemove}>
            <Icon name="trash" />
          </button>
        </div>
      </div>
      <div className="form-grid form-grid-2">
        <Field label="Virtual key" error={targetError(errors, index, 'key')} hint={isUnknownKey ? 'No active virtual key has this name.' : undefined}>
          <select className="input" value={target.key} onChange={(event) => onChange({ key: event.target.value })}>
            <option value="" disabled>
              Choose a key…
            </option>
            {isUnknownKey && <option value={target.key}>{`${target.key} (not found)`}</option>}
            {keyNames.map((name) => (
              <option key={name} value={name}>
                {name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="Model" error={targetError(errors, index, 'model')} hint="Empty sends the requested name as it is.">
          <input className="input input-mono" spellCheck={false} placeholder="e.g. qwen3-coder:30b" value={target.model} onChange={(event) => onChange({ model: event.target.value })} />
        </Field>
        {strategy === 'balance' && (
          <Field label="Weight" error={targetError(errors, index, 'weight')} hint="Share of requests; 1 when empty.">
            <input className="input" type="number" min={0} step="any" placeholder="1" value={target.weight} onChange={(event) => onChange({ weight: event.target.value })} />
          </Field>
        )}
        <Field label="Timeout (ms)" error={targetError(errors, index, 'timeout_ms')} hint="Past it, the next target is tried. Empty: no limit of its own.">
          <input className="input" type="number" min={1} step={1000} placeholder="30000" value={target.timeoutMs} onChange={(event) => onChange({ timeoutMs: event.target.value })} />
        </Field>
      </div>
      <details className="disclosure" open={hasConditions || Boolean(conditionError) || undefined}>
        <summary>Conditions{hasConditions ? ' (set)' : ''}</summary>
        <div className="disclosure-body">
          <p className="muted small">This target is skipped for requests that do not meet every condition set here.</p>
          <div className="form-grid form-grid-3">
            <Field label="Prompt tokens at least" error={errors[`targets[${index}].when.min_prompt_tokens`] ?? errors[`targets[${index}].when`]} hint="For long contexts.">
              <input className="input" type="number" min={0} step={1000} placeholder="60000" value={target.minPromptTokens} onChange={(event) => onChange({ minPromptTokens: event.target.value })} />
            </Field>
            <Field label="Thinking" error={errors[`targets[${index}].when.thinking`]} hint="Reasoning requested.">
              <ConditionSelect value={target.thinking} onChange={(thinking) => onChange({ thinking })} />
            </Field>
            <Field label="Tools" error={errors[`targets[${index}].when.tools`]} hint="The request offers tools.">
              <ConditionSelect value={target.tools} onChange={(tools) => onChange({ tools })} />
            </Field>
          </div>
        </div>
      </details>
    </div>
  );
}

export function RouteDialog({ route, onClose, onSaved }: { route: Route | null; onClose(): void; onSaved(route: Route): void }) {
  const virtualKeys = useKeysStore((state) => state.virtualKeys);
  const keysStatus = useKeysStore((state) => state.status);
  const loadKeys = useKeysStore((state) => state.load);
  const save = useRoutesStore((state) => state.save);
  const keyNames = virtualKeys.filter((key) => !key.revokedAt).map((key) => key.name);
  const [draft, setDraft] = useState<RouteDraft>(() => draftFromRoute(route, keyNames[0] ?? ''));
  const [errors, setErrors] = useState<RouteFormErrors>({});
  const [generalError, setGeneralError] = useState<string | null>(null);
  const [submitting, setSubmitting] = useState(false);

  useEffect(() => {
    if (keysStatus === 'idle') void loadKeys();
  }, [keysStatus, loadKeys]);

  // Keys may arrive after the dialog opened: a new route's empty first target takes the first key.
  const firstKeyName = keyNames[0] ?? '';
  useEffect(() => {
    if (route || !firstKeyName) return;
    setDraft((current) => (current.targets.length === 1 && !current.targets[0].key ? { ...current, targets: [{ ...current.targets[0], key: firstKeyName }] } : current));
  }, [firstKeyName, route]);

  const patchTarget = (uid: number, patch: Partial<TargetDraft>) => setDraft((current) => ({ ...current, targets: current.targets.map((target) => (target.uid === uid ? { ...target, ...patch } : target)) }));
  const moveTarget = (index: number, delta: number) => {
    setDraft((current) => ({ ...current, targets: moveItem(current.targets, index, index + delta) }));
    setErrors({});
  };
  const removeTarget = (uid: number) => {
    setDraft((current) => ({ ...current, targets: current.targets.filter((target) => target.uid !== uid) }));
    setErrors({});
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const { input, errors: formErrors } = routeInputFromDraft(draft);
    setGeneralError(null);
    if (Object.keys(formErrors).length) {
      setErrors(formErrors);
      return;
    }
    setErrors({});
    setSubmitting(true);
    try {
      onSaved(await save(route?.id ?? null, input));
    } catch (caught) {
      // An error about another route of the table (`routes[2].…`) is not about this form's fields: it goes in the notice.
      const field = caught instanceof ApiError && !caught.param?.startsWith('routes[') ? fieldOfParam(caught.param) : null;
      if (field && isShownField(field, draft.targets.length)) setErrors({ [field]: describeError(caught) });
      else setGeneralError(describeError(caught));
      setSubmitting(false);
    }
  };

  return (
    <Dialog
      title={route ? `Edit route “${route.name}”` : 'New route'}
      description="Requests whose model name fits the match go to these targets instead of a single key. Routes are checked in order; the first match wins."
      onClose={onClose}
      size="large"
    >
      <form className="stack" onSubmit={onSubmit} noValidate>
        <div className="form-grid form-grid-2">
          <Field label="Name" error={errors.name} hint="Shown in the Logs beside each request it served.">
            <input className="input" value={draft.name} placeholder="e.g. background" autoFocus onChange={(event) => setDraft({ ...draft, name: event.target.value })} />
          </Field>
          <Field label="Match" error={errors.match} hint="An exact model name (gpt-5) or a glob with * (claude-haiku-*).">
            <input className="input input-mono" spellCheck={false} value={draft.match} placeholder="claude-haiku-*" onChange={(event) => setDraft({ ...draft, match: event.target.value })} />
          </Field>
        </div>
        <div className="field">
          <div className="field-label-row">
            <span className="field-label">Strategy</span>
          </div>
          <div>
            <SegmentedControl<RouteStrategy>
              label="Strategy"
              value={draft.strategy}
              onChange={(strategy) => setDraft({ ...draft, strategy })}
              options={[
                { value: 'fallback', label: 'Fallback' },
                { value: 'balance', label: 'Balance' },
              ]}
            />
          </div>
          {errors.strategy ? <p className="field-error">{errors.strategy}</p> : <p className="field-hint">{STRATEGY_DESCRIPTIONS[draft.strategy]}</p>}
        </div>

        <div className="stack-small" role="group" aria-label="Targets">
          <div className="field-label-row">
            <h3 className="subheading">Targets</h3>
            {keysStatus === 'ready' && !keyNames.length && <span className="field-error">Create a virtual key first (Keys page): targets are virtual keys.</span>}
          </div>
          {errors.targets && <p className="field-error">{errors.targets}</p>}
          {draft.targets.map((target, index) => (
            <TargetEditor
              key={target.uid}
              target={target}
              index={index}
              count={draft.targets.length}
              strategy={draft.strategy}
              keyNames={keyNames}
              errors={errors}
              onChange={(patch) => patchTarget(target.uid, patch)}
              onMove={(delta) => moveTarget(index, delta)}
              onRemove={() => removeTarget(target.uid)}
            />
          ))}
          <div>
            <button type="button" className="button button-secondary button-small" onClick={() => setDraft({ ...draft, targets: [...draft.targets, emptyTarget(keyNames[0] ?? '')] })}>
              <Icon name="plus" />
              Add target
            </button>
          </div>
        </div>

        {generalError && <ErrorNotice title="Not saved" message={generalError} />}
        <div className="dialog-actions">
          <button type="button" className="button button-secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={submitting}>
            {submitting ? 'Saving…' : route ? 'Save route' : 'Create route'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
