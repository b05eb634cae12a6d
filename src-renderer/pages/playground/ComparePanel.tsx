// The compare view: two keys (or one key with two models) side by side, each with its own model, the
// same prompt and parameters, and the numbers people compare: latency, tokens and, when priced, cost.
import { useEffect } from 'react';
import { Field } from '../../components/Field';
import { ErrorNotice } from '../../components/StatusViews';
import { StatusBadge } from '../../components/StatusBadge';
import { formatCount, formatDuration } from '../../components/format';
import { useCompareStore, type CompareSide, type SideIndex } from '../../stores/compare-store';
import { ModelOptions } from './ParametersPanel';
import { VirtualKeyOptions, useVirtualKeys } from './ConnectionCard';
import { localServerFor, mergeModelNames, useLocalServers } from '../../playground/local-models';

const SIDE_NAMES = ['A', 'B'] as const;

/** A cost in US dollars, with enough digits for a fraction of a cent. */
export function formatCost(usd: number | null): string {
  if (usd === null) return '—';
  if (usd === 0) return '$0';
  return usd < 0.01 ? `$${usd.toPrecision(2)}` : `$${usd.toFixed(4)}`;
}

function SideTarget({ index }: { index: SideIndex }) {
  const side = useCompareStore((state) => state.sides[index]);
  const listed = useCompareStore((state) => state.modelsByKey[state.sides[index].keyId]);
  const updateSide = useCompareStore((state) => state.updateSide);
  const { keys, loaded } = useVirtualKeys();
  // A key for a local server found on this machine offers that server's models too.
  const localServer = localServerFor(useLocalServers(), keys.find((key) => key.id === side.keyId)?.customHost);
  const models = listed || localServer ? mergeModelNames(listed ?? [], localServer) : undefined;
  const name = SIDE_NAMES[index];
  const listId = `compare-models-${name}`;
  return (
    <div className="compare-target" role="group" aria-label={`Side ${name}`}>
      <h3 className="subheading">{`Side ${name}`}</h3>
      <Field label={`Key ${name}`} error={side.error?.param === 'keyId' ? side.error.message : null}>
        <select className="input" value={side.keyId} onChange={(event) => updateSide(index, { keyId: event.target.value })}>
          <option value="">{loaded ? (keys.length ? 'Choose a key…' : 'No virtual keys yet') : 'Loading keys…'}</option>
          <VirtualKeyOptions keys={keys} />
        </select>
      </Field>
      <Field label={`Model ${name}`} error={side.error?.param === 'model' ? side.error.message : null} hint={models?.length ? `${models.length} listed by this key` : 'Any model the key serves'}>
        <input className="input input-mono" list={listId} autoComplete="off" spellCheck={false} value={side.model} placeholder="Pick or type a model name…" onChange={(event) => updateSide(index, { model: event.target.value })} />
      </Field>
      <ModelOptions id={listId} models={models ?? []} />
    </div>
  );
}

export function CompareTargets() {
  const prefill = useCompareStore((state) => state.prefill);
  const { loaded } = useVirtualKeys();
  // Opening the compare view fills what is not set yet, once the keys are known.
  useEffect(() => {
    if (loaded) prefill();
  }, [loaded, prefill]);
  return (
    <section className="card" aria-labelledby="compare-heading">
      <h2 id="compare-heading" className="card-title">
        Compare
      </h2>
      <p className="muted small">The prompt and parameters below go to both sides at once, each as its own key and model.</p>
      <div className="compare-grid">
        <SideTarget index={0} />
        <SideTarget index={1} />
      </div>
    </section>
  );
}

function SideResult({ side, name }: { side: CompareSide; name: string }) {
  const isRunning = side.phase === 'running';
  return (
    <div className="compare-result" role="region" aria-label={`Result ${name}`} aria-busy={isRunning}>
      <h3 className="subheading">{`Side ${name}`}{side.model ? <span className="muted"> · <span className="model-id">{side.model}</span></span> : null}</h3>
      <div className={`output${isRunning ? ' output-running' : ''}`}>
        {side.output ? (
          <pre className="output-text">
            {side.output}
            {isRunning && <span className="caret" aria-hidden="true" />}
          </pre>
        ) : (
          <p className="output-placeholder">{isRunning ? 'Waiting for the first token…' : side.phase === 'idle' ? 'Run to compare.' : 'No output.'}</p>
        )}
      </div>
      {side.error && side.error.param !== 'keyId' && side.error.param !== 'model' && <ErrorNotice title={side.error.status ? `Request failed (${side.error.status})` : 'Cannot run yet'} message={side.error.message} />}
      <dl className="stats stats-compact" aria-label={`Statistics ${name}`}>
        <div className="stat">
          <dt>Status</dt>
          <dd>{side.status ? <StatusBadge status={side.status} error={side.error?.message} /> : isRunning ? 'waiting…' : '—'}</dd>
        </div>
        <div className="stat">
          <dt>Latency</dt>
          <dd>{formatDuration(side.latencyMs)}</dd>
        </div>
        <div className="stat">
          <dt>First token</dt>
          <dd>{formatDuration(side.firstTokenMs)}</dd>
        </div>
        <div className="stat">
          <dt>Tokens</dt>
          <dd>
            {side.usage ? (
              <>
                {formatCount(side.usage.promptTokens)} <span className="muted">in</span> · {formatCount(side.usage.completionTokens)} <span className="muted">out</span>
              </>
            ) : (
              '—'
            )}
          </dd>
        </div>
        <div className="stat">
          <dt>Cost</dt>
          {/* Tokens without a price read "unknown", never a missing cell. */}
          <dd title={side.costUsd === null && side.usage ? 'No price for this model: set one in Settings → Model prices' : undefined}>{side.costUsd !== null ? formatCost(side.costUsd) : side.usage ? 'unknown' : '—'}</dd>
        </div>
      </dl>
    </div>
  );
}

export function CompareResults() {
  const sides = useCompareStore((state) => state.sides);
  return (
    <section className="card" aria-label="Comparison">
      <h2 className="card-title">Side by side</h2>
      <div className="compare-grid">
        <SideResult side={sides[0]} name="A" />
        <SideResult side={sides[1]} name="B" />
      </div>
    </section>
  );
}
