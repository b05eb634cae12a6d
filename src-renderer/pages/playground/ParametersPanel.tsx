// Every request field of spec §2.1, each control bounded by the gateway's own spec-bounds.
import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent } from 'react';
import { Field } from '../../components/Field';
import { Icon } from '../../components/Icon';
import {
  CHAT_TOP_LOGPROBS_CONTROL,
  escapeStopSequence,
  LOGIT_BIAS_BOUND,
  MAX_STOP_SEQUENCES,
  numericControlsFor,
  REASONING_EFFORTS,
  unescapeStopSequence,
  type NumericControl,
  type ReasoningEffortChoice,
} from '../../playground/parameters';
import { usePlaygroundStore } from '../../stores/playground-store';
import { useKeysStore } from '../../stores/keys-store';
import { KIND_NAMES } from '../../stores/local-servers-store';
import { localServerFor, mergeModelNames, useLocalServers } from '../../playground/local-models';

function boundText(control: NumericControl): string {
  const { min, max } = control.bound;
  if (control.name === 'seed') return '64-bit integer';
  if (max >= Number.MAX_SAFE_INTEGER) return `≥ ${min}`;
  return `${min} – ${max}`;
}

function NumericParameter({ control, error }: { control: NumericControl; error?: string }) {
  const raw = usePlaygroundStore((state) => state.parameters.numbers[control.name] ?? '');
  const setNumber = usePlaygroundStore((state) => state.setNumber);
  const { bound } = control;
  const sliderValue = raw.trim() && Number.isFinite(Number(raw)) ? Number(raw) : (bound.default ?? bound.min);
  return (
    <Field
      label={control.label}
      error={error}
      hint={control.help}
      trailing={
        <span className="field-meta">
          {boundText(control)}
          {raw !== '' && (
            <button type="button" className="link-button" aria-label={`Reset ${control.label}`} onClick={() => setNumber(control.name, '')}>
              reset
            </button>
          )}
        </span>
      }
    >
      {control.slider ? (
        (controlProps) => (
          <div className="slider-row">
            <input
              type="range"
              className="slider"
              aria-hidden="true"
              tabIndex={-1}
              min={bound.min}
              max={bound.max}
              step={control.step}
              value={sliderValue}
              onChange={(event) => setNumber(control.name, event.target.value)}
            />
            <input
              {...controlProps}
              className="input input-number"
              type="number"
              inputMode="decimal"
              min={bound.min}
              max={bound.max}
              step={control.step}
              placeholder={bound.default !== undefined ? String(bound.default) : 'off'}
              value={raw}
              onChange={(event) => setNumber(control.name, event.target.value)}
            />
          </div>
        )
      ) : (
        <input
          className="input input-number-wide"
          type={control.name === 'seed' ? 'text' : 'number'}
          inputMode="numeric"
          min={control.name === 'seed' ? undefined : bound.min}
          max={control.name === 'seed' || bound.max >= Number.MAX_SAFE_INTEGER ? undefined : bound.max}
          step={1}
          placeholder={bound.default !== undefined ? `default ${bound.default}` : 'not sent'}
          value={raw}
          onChange={(event) => setNumber(control.name, event.target.value)}
        />
      )}
    </Field>
  );
}

function StopSequences({ error }: { error?: string }) {
  const stop = usePlaygroundStore((state) => state.parameters.stop);
  const updateParameters = usePlaygroundStore((state) => state.updateParameters);
  const [draft, setDraft] = useState('');
  const isFull = stop.length >= MAX_STOP_SEQUENCES;
  const add = () => {
    if (!draft || isFull) return;
    updateParameters({ stop: [...stop, unescapeStopSequence(draft)] });
    setDraft('');
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === 'Enter') {
      event.preventDefault();
      add();
    }
  };
  return (
    <div className="field-group">
      <Field label="Stop sequences" error={error} hint={isFull ? `At most ${MAX_STOP_SEQUENCES}.` : 'Press Enter to add. \\n is a newline.'} trailing={<span className="field-meta">{stop.length} / {MAX_STOP_SEQUENCES}</span>}>
        <input className="input input-mono" value={draft} disabled={isFull} placeholder={isFull ? 'Limit reached' : 'e.g. \\n\\n'} onChange={(event) => setDraft(event.target.value)} onKeyDown={onKeyDown} />
      </Field>
      {stop.length > 0 && (
        <ul className="chip-list" aria-label="Stop sequences added">
          {stop.map((sequence, index) => (
            <li key={`${sequence}-${index}`} className="chip chip-static">
              <code>{escapeStopSequence(sequence)}</code>
              <button type="button" className="chip-remove" aria-label={`Remove stop sequence ${escapeStopSequence(sequence)}`} onClick={() => updateParameters({ stop: stop.filter((_, position) => position !== index) })}>
                <Icon name="close" size={12} />
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

/** How long typing a key or token waits before its model list is asked for. */
const MODEL_LIST_DEBOUNCE_MS = 400;

function modelHint(status: string, count: number, error: string | null, localServer: string | null): string {
  if (localServer && count) return `${count} model${count === 1 ? '' : 's'} on ${localServer}; any other name works too.`;
  if (status === 'loading') return 'Reading the models this key serves…';
  if (status === 'ready' && count) return `${count} model${count === 1 ? '' : 's'} listed by the provider; any other name works too.`;
  if (status === 'ready') return 'The provider lists no models; type a name.';
  if (status === 'error') return `No model list (${error ?? 'unavailable'}); type a name.`;
  return 'Any model the provider serves, e.g. gpt-4o-mini, llama3.2';
}

/** The model: free text, offering the models the chosen key (or provider and token) lists. */
function ModelField({ error }: { error?: string }) {
  const model = usePlaygroundStore((state) => state.model);
  const update = usePlaygroundStore((state) => state.update);
  const options = usePlaygroundStore((state) => state.modelOptions);
  const status = usePlaygroundStore((state) => state.modelOptionsStatus);
  const listError = usePlaygroundStore((state) => state.modelOptionsError);
  const loadModelOptions = usePlaygroundStore((state) => state.loadModelOptions);
  // What the list depends on; a pasted key or token is waited on while it is typed.
  const authKind = usePlaygroundStore((state) => state.authKind);
  const keyId = usePlaygroundStore((state) => state.keyId);
  const virtualKey = usePlaygroundStore((state) => state.virtualKey);
  const provider = usePlaygroundStore((state) => state.provider);
  const providerToken = usePlaygroundStore((state) => state.providerToken);
  const customHost = usePlaygroundStore((state) => state.customHost);
  const gatewayApiKey = usePlaygroundStore((state) => state.gatewayApiKey);
  const modelSourceChanged = usePlaygroundStore((state) => state.modelSourceChanged);
  // A key or host that points at a local server found on this machine offers that server's models too.
  const keyHost = useKeysStore((state) => state.virtualKeys.find((key) => key.id === keyId)?.customHost);
  const localServer = localServerFor(useLocalServers(), authKind === 'provider' ? customHost : authKind === 'key-by-name' ? keyHost : null);
  const offered = mergeModelNames(options, localServer);
  useEffect(() => {
    modelSourceChanged();
    const timer = setTimeout(() => void loadModelOptions(), authKind === 'key-by-name' ? 0 : MODEL_LIST_DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [authKind, keyId, virtualKey, provider, providerToken, customHost, gatewayApiKey, loadModelOptions, modelSourceChanged]);
  const keyName = useKeysStore((state) => state.virtualKeys.find((key) => key.id === keyId)?.name) ?? 'this key';
  const settleModelPick = usePlaygroundStore((state) => state.settleModelPick);
  const notice = usePlaygroundStore((state) => state.modelNotice);
  // Once the list of the key just chosen is in (or could not be read), a model it serves is picked:
  // the last one used with it, else its first. Without a key change, a first Run should still not fail
  // for want of a name: an empty field takes the list's first model (once per list, so clearing the
  // field to type another is left alone). The store is read afresh: this render's status may still be
  // the previous key's.
  const firstOffered = offered[0];
  useEffect(() => {
    const fresh = usePlaygroundStore.getState();
    if (fresh.modelOptionsStatus !== 'ready' && fresh.modelOptionsStatus !== 'error') return;
    const freshOffered = mergeModelNames(fresh.modelOptions, localServer);
    if (fresh.modelPickPending) settleModelPick(freshOffered, keyName);
    else if (fresh.modelOptionsStatus === 'ready' && freshOffered[0] && !fresh.model.trim()) update({ model: freshOffered[0] });
  }, [status, options, firstOffered, localServer, keyName, settleModelPick, update]);
  return (
    <div className="field-group">
      <Field label="Model" error={error} hint={modelHint(status, offered.length, listError, localServer ? `${KIND_NAMES[localServer.kind]} at ${localServer.url}` : null)}>
        {(control) => (
          <>
            <input {...control} className="input input-mono" list="playground-model-options" autoComplete="off" value={model} spellCheck={false} placeholder="Pick or type a model name…" onChange={(event) => update({ model: event.target.value })} />
            <ModelOptions id="playground-model-options" models={offered} />
          </>
        )}
      </Field>
      {notice && (
        <p className="model-notice small" role="status">
          {notice}
        </p>
      )}
    </div>
  );
}

/** The model suggestions, shared by the Model field; a datalist still lets any text through. */
export function ModelOptions({ id, models }: { id: string; models: readonly string[] }) {
  return (
    <datalist id={id}>
      {models.map((name) => (
        <option key={name} value={name} />
      ))}
    </datalist>
  );
}

/** The gap kept between the sticky Parameters column and the window's top and bottom edges. */
const STICKY_GAP_PX = 16;

/**
 * The Parameters column stays in view beside a long chat without ever running past the window: when it
 * fits, it sticks to the top; when it is taller than the window, it scrolls with the page until its end
 * is in view and sticks there (a negative top), so every control is reached by scrolling the page, and
 * no part of it is cut off at the window's bottom or hidden in a scroller of its own.
 */
function useStickyWithinWindow() {
  const panel = useRef<HTMLElement>(null);
  useLayoutEffect(() => {
    const element = panel.current;
    if (!element) return;
    const place = () => {
      element.style.top = `${Math.min(STICKY_GAP_PX, window.innerHeight - element.offsetHeight - STICKY_GAP_PX)}px`;
    };
    place();
    const observer = new ResizeObserver(place);
    observer.observe(element);
    window.addEventListener('resize', place);
    return () => {
      observer.disconnect();
      window.removeEventListener('resize', place);
    };
  }, []);
  return panel;
}

export function ParametersPanel({ errors }: { errors: Partial<Record<string, string>> }) {
  const panel = useStickyWithinWindow();
  const mode = usePlaygroundStore((state) => state.mode);
  const view = usePlaygroundStore((state) => state.view);
  const parameters = usePlaygroundStore((state) => state.parameters);
  const update = usePlaygroundStore((state) => state.update);
  const updateParameters = usePlaygroundStore((state) => state.updateParameters);
  const controls = numericControlsFor(mode);
  const [primary, advanced] = [controls.filter((control) => control.slider || control.name === 'max_tokens'), controls.filter((control) => !control.slider && control.name !== 'max_tokens')];

  return (
    <aside ref={panel} className="card parameters" aria-labelledby="parameters-heading">
      <h2 id="parameters-heading" className="card-title">
        Parameters
      </h2>
      {/* In the compare view each side names its own model. */}
      {view === 'single' && <ModelField error={errors.model} />}

      <div className="toggle-row">
        <label className="checkbox">
          <input type="checkbox" checked={parameters.stream} onChange={(event) => updateParameters({ stream: event.target.checked })} />
          <span>Stream</span>
        </label>
        {/* Messages and Responses streams report usage by themselves. */}
        {(mode === 'completion' || mode === 'chat') && (
          <label className={`checkbox${parameters.stream ? '' : ' checkbox-disabled'}`}>
            <input type="checkbox" disabled={!parameters.stream} checked={parameters.stream && parameters.includeUsage} onChange={(event) => updateParameters({ includeUsage: event.target.checked })} />
            <span>Include usage</span>
          </label>
        )}
        {mode === 'completion' && (
          <label className="checkbox">
            <input type="checkbox" checked={parameters.echo} onChange={(event) => updateParameters({ echo: event.target.checked })} />
            <span>Echo</span>
          </label>
        )}
      </div>

      {primary.map((control) => (
        <NumericParameter key={control.name} control={control} error={errors[control.name]} />
      ))}

      {(mode === 'chat' || mode === 'responses') && (
        <Field label="Reasoning effort" hint={`Sent as ${mode === 'chat' ? 'reasoning_effort' : 'reasoning.effort'}; Gatehouse turns it into a thinking budget for Claude and Gemini.`}>
          <select className="input" value={parameters.reasoningEffort} onChange={(event) => updateParameters({ reasoningEffort: event.target.value as ReasoningEffortChoice })}>
            {REASONING_EFFORTS.map((effort) => (
              <option key={effort} value={effort}>
                {effort || 'not sent'}
              </option>
            ))}
          </select>
        </Field>
      )}

      <details className="disclosure" open={Boolean(advanced.some((control) => errors[control.name]) || errors.stop || errors.logit_bias || errors.top_logprobs) || undefined}>
        <summary>Advanced</summary>
        <div className="disclosure-body">
          {advanced.map((control) => (
            <NumericParameter key={control.name} control={control} error={errors[control.name]} />
          ))}
          {mode === 'chat' && (
            <Field label={CHAT_TOP_LOGPROBS_CONTROL.label} hint={CHAT_TOP_LOGPROBS_CONTROL.help} error={errors.top_logprobs} trailing={<span className="field-meta">{CHAT_TOP_LOGPROBS_CONTROL.bound.min} – {CHAT_TOP_LOGPROBS_CONTROL.bound.max}</span>}>
              <input className="input input-number-wide" type="number" min={CHAT_TOP_LOGPROBS_CONTROL.bound.min} max={CHAT_TOP_LOGPROBS_CONTROL.bound.max} step={1} placeholder="not sent" value={parameters.topLogprobs} onChange={(event) => updateParameters({ topLogprobs: event.target.value })} />
            </Field>
          )}
          {mode !== 'responses' && <StopSequences error={errors.stop} />}
          {(mode === 'completion' || mode === 'chat') && (
            <Field label="Logit bias" error={errors.logit_bias} hint={`JSON of token id to bias, ${LOGIT_BIAS_BOUND.min} to ${LOGIT_BIAS_BOUND.max}.`}>
              <textarea className="input input-mono" rows={2} spellCheck={false} placeholder='{"50256": -100}' value={parameters.logitBias} onChange={(event) => updateParameters({ logitBias: event.target.value })} />
            </Field>
          )}
          {mode === 'completion' && (
            <Field label="Suffix" hint="Text that comes after the inserted completion.">
              <input className="input" value={parameters.suffix} onChange={(event) => updateParameters({ suffix: event.target.value })} />
            </Field>
          )}
          {mode !== 'messages' && (
            <Field label="User" hint="End-user id passed to the provider for abuse monitoring.">
              <input className="input" value={parameters.user} onChange={(event) => updateParameters({ user: event.target.value })} />
            </Field>
          )}
        </div>
      </details>
    </aside>
  );
}
