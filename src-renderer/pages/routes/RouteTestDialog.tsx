// "Test" on a route: asks the server what the router would do with a request for a model name
// (POST /admin/api/routes/explain), shows which target would serve and why the others would not,
// and can then send a real request with that name from the Playground.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { describeError } from '../../api/api-error';
import type { Route, RouteExplanation } from '../../api/types';
import { Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { ErrorNotice, Spinner } from '../../components/StatusViews';
import { draftForModel } from '../../playground/draft-from-log';
import { sampleModelFor, STRATEGY_LABELS } from '../../routes/route-form';
import { usePlaygroundStore } from '../../stores/playground-store';
import { useRouteStore } from '../../stores/route-store';
import { useRoutesStore } from '../../stores/routes-store';

/** Which eligible target serves: the first for fallback; for balance, each one by its weight. */
function servingSummary(explanation: RouteExplanation): string {
  const eligible = explanation.targets.filter((target) => target.eligible);
  if (!eligible.length) return 'No target is eligible for this request: the gateway would answer with an error.';
  const name = (target: (typeof eligible)[number]) => `${target.key} → ${target.model}`;
  if (explanation.strategy === 'balance') {
    return eligible.length === 1 ? `${name(eligible[0])} would serve: it is the only eligible target.` : `One of ${eligible.length} eligible targets would serve, picked by weight.`;
  }
  const [first, ...rest] = eligible;
  return rest.length ? `${name(first)} would serve. If it fails before the answer starts, ${name(rest[0])} takes over.` : `${name(first)} would serve; there is nothing to fall back to.`;
}

function ExplanationView({ explanation, model, routeName }: { explanation: RouteExplanation; model: string; routeName: string }) {
  if (!explanation.route) {
    return (
      <div className="notice notice-warning" role="status">
        <Icon name="alert" size={18} />
        <div className="notice-body">
          <strong>{`No route matches “${model}”`}</strong>
          <span>The request would go to the key or provider it brings, as without routes.</span>
        </div>
      </div>
    );
  }
  const firstEligible = explanation.targets.findIndex((target) => target.eligible);
  return (
    <div className="stack-small" role="status" aria-label="What the router would do">
      {explanation.route !== routeName && (
        <div className="notice notice-warning">
          <Icon name="alert" size={18} />
          <div className="notice-body">
            <strong>{`“${model}” is served by route “${explanation.route}”`}</strong>
            <span>{`An earlier route matches it first, so “${routeName}” is not used for this name.`}</span>
          </div>
        </div>
      )}
      <p>
        <span className="badge badge-accent">{STRATEGY_LABELS[explanation.strategy ?? 'fallback']}</span> {servingSummary(explanation)}
      </p>
      <ol className="explain-targets">
        {explanation.targets.map((target, index) => {
          const serves = target.eligible && (explanation.strategy === 'balance' || index === firstEligible);
          return (
            <li key={`${target.key}-${index}`} className={`explain-target${serves ? ' explain-target-serves' : ''}${target.eligible ? '' : ' explain-target-skipped'}`}>
              <span className={`badge ${serves ? 'badge-success' : target.eligible ? 'badge-neutral' : 'badge-warning'}`}>{serves ? (explanation.strategy === 'balance' ? 'in the mix' : 'serves') : target.eligible ? 'fallback' : 'skipped'}</span>
              <span className="mono truncate">{`${target.key} → ${target.model}`}</span>
              {target.reason && <span className="muted small">{target.reason}</span>}
            </li>
          );
        })}
      </ol>
    </div>
  );
}

export function RouteTestDialog({ route, onClose }: { route: Route; onClose(): void }) {
  const explain = useRoutesStore((state) => state.explain);
  const loadDraft = usePlaygroundStore((state) => state.loadDraft);
  const updatePlayground = usePlaygroundStore((state) => state.update);
  const navigate = useRouteStore((state) => state.navigate);
  const [model, setModel] = useState(() => sampleModelFor(route.match));
  const [promptTokens, setPromptTokens] = useState('');
  const [thinking, setThinking] = useState(false);
  const [tools, setTools] = useState(false);
  const [explanation, setExplanation] = useState<{ model: string; result: RouteExplanation } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [running, setRunning] = useState(false);

  const run = useCallback(
    async (request: { model: string; promptTokens: string; thinking: boolean; tools: boolean }) => {
      if (!request.model.trim()) {
        setError('Enter a model name to test');
        return;
      }
      setRunning(true);
      setError(null);
      try {
        const tokens = Number(request.promptTokens);
        const result = await explain({
          model: request.model.trim(),
          ...(request.promptTokens.trim() && Number.isFinite(tokens) ? { promptTokens: Math.max(0, Math.round(tokens)) } : {}),
          thinking: request.thinking,
          tools: request.tools,
        });
        setExplanation({ model: request.model.trim(), result });
      } catch (caught) {
        setExplanation(null);
        setError(describeError(caught));
      } finally {
        setRunning(false);
      }
    },
    [explain],
  );

  // One click on "Test" shows the answer for the route's own name right away.
  useEffect(() => {
    void run({ model: sampleModelFor(route.match), promptTokens: '', thinking: false, tools: false });
  }, [run, route.match]);

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void run({ model, promptTokens, thinking, tools });
  };

  const openInPlayground = () => {
    const current = usePlaygroundStore.getState();
    loadDraft(draftForModel(current, model.trim()));
    // Any virtual key reaches the route; without one, the Playground does what a tool does with a
    // route: its gateway key and the model name, no provider and no host.
    if (!(current.authKind === 'virtual-key' && current.virtualKey.trim())) updatePlayground({ authKind: 'provider', provider: '' });
    onClose();
    navigate('playground');
  };

  return (
    <Dialog title={`Test route “${route.name}”`} description="What the router would do with a request for this model name. Nothing is sent to a provider." onClose={onClose} size="large">
      <div className="stack">
        <form className="stack-small" onSubmit={onSubmit} aria-label="Test request">
          <div className="form-grid form-grid-3">
            <Field label="Model name" hint={route.match.includes('*') ? `Any name that fits ${route.match}` : undefined}>
              <input className="input input-mono" spellCheck={false} value={model} onChange={(event) => setModel(event.target.value)} />
            </Field>
            <Field label="Prompt tokens" hint="For conditions on long prompts.">
              <input className="input" type="number" min={0} step={1000} placeholder="0" value={promptTokens} onChange={(event) => setPromptTokens(event.target.value)} />
            </Field>
            <div className="field test-flags">
              <label className="checkbox">
                <input type="checkbox" checked={thinking} onChange={(event) => setThinking(event.target.checked)} />
                <span>Thinking requested</span>
              </label>
              <label className="checkbox">
                <input type="checkbox" checked={tools} onChange={(event) => setTools(event.target.checked)} />
                <span>Tools present</span>
              </label>
            </div>
          </div>
          <div>
            <button type="submit" className="button button-secondary" disabled={running}>
              <Icon name="search" />
              Explain
            </button>
          </div>
        </form>
        {running && !explanation && <Spinner label="Asking the router" />}
        {error && <ErrorNotice message={error} />}
        {explanation && <ExplanationView explanation={explanation.result} model={explanation.model} routeName={route.name} />}
        <div className="dialog-actions">
          <span className="muted small dialog-actions-note">The Playground sends this model name with its virtual key, or with a gateway API key and no provider, as a tool would.</span>
          <button type="button" className="button button-secondary" onClick={onClose}>
            Done
          </button>
          <button type="button" className="button button-primary" disabled={!model.trim()} onClick={openInPlayground}>
            <Icon name="playground" />
            Run in Playground
          </button>
        </div>
      </div>
    </Dialog>
  );
}
