// The completion as it arrives, and the numbers people compare between runs.
import { useState } from 'react';
import type { TokenLogprob } from '../../api/gateway-client';
import { formatCount, formatDuration } from '../../components/format';
import { ErrorNotice } from '../../components/StatusViews';
import { StatusBadge } from '../../components/StatusBadge';
import { CopyButton } from '../../components/CopyButton';
import type { PlaygroundMode } from '../../playground/parameters';
import { EMPTY_FILTERS, useLogsStore } from '../../stores/logs-store';
import { usePlaygroundStore, type RunError, type RunPhase, type RunStats } from '../../stores/playground-store';
import { useRouteStore } from '../../stores/route-store';

function placeholderFor(phase: RunPhase): string {
  if (phase === 'running') return 'Waiting for the first token…';
  if (phase === 'idle') return 'Run a prompt to see the completion here, token by token when streaming.';
  return 'No output.';
}

export function OutputPanel() {
  const phase = usePlaygroundStore((state) => state.phase);
  const outputs = usePlaygroundStore((state) => state.outputs);
  const tokenLogprobs = usePlaygroundStore((state) => state.tokenLogprobs);
  const stats = usePlaygroundStore((state) => state.stats);
  const error = usePlaygroundStore((state) => state.error);
  const mode = usePlaygroundStore((state) => state.mode);
  const findInLogs = useFindInLogs();
  return <OutputView phase={phase} outputs={outputs} tokenLogprobs={tokenLogprobs} stats={stats} error={error} mode={mode} onFindInLogs={findInLogs} />;
}

interface OutputViewProps {
  phase: RunPhase;
  outputs: string[];
  tokenLogprobs?: TokenLogprob[][];
  stats: RunStats | null;
  error: RunError | null;
  mode: PlaygroundMode;
  onFindInLogs?(traceId: string): void;
}

/** A token shaded by how likely the model found it: the less likely, the warmer. */
export function TokenChip({ token }: { token: TokenLogprob }) {
  const probability = token.logprob === null ? null : Math.exp(token.logprob);
  const tone = probability === null ? 'unknown' : probability >= 0.9 ? 'sure' : probability >= 0.5 ? 'likely' : probability >= 0.2 ? 'unsure' : 'unlikely';
  const shown = token.token.replace(/\n/g, '↵\n');
  return (
    <span className={`token token-${tone}`} title={probability === null ? 'no log probability' : `p = ${(probability * 100).toFixed(probability < 0.01 ? 2 : 1)}% (logprob ${token.logprob?.toFixed(3)})`}>
      {shown}
    </span>
  );
}

export function OutputView({ phase, outputs, tokenLogprobs = [], stats, error, mode, onFindInLogs }: OutputViewProps) {
  const [showTokens, setShowTokens] = useState(false);
  const hasTokens = tokenLogprobs.some((tokens) => tokens?.length);
  const isRunning = phase === 'running';
  const choices = outputs.length ? outputs : [''];

  return (
    <section className="card output-card">
      <div className="card-header">
        <h2 className="card-title">
          Output
          {phase === 'stopped' && <span className="badge badge-neutral">stopped</span>}
        </h2>
        <div className="card-actions">
          {hasTokens && (
            <label className="checkbox checkbox-small">
              <input type="checkbox" checked={showTokens} onChange={(event) => setShowTokens(event.target.checked)} />
              <span>Token probabilities</span>
            </label>
          )}
          {outputs.some(Boolean) && <CopyButton text={outputs.join('\n\n')} what="output" variant="ghost" />}
        </div>
      </div>

      <div role="region" aria-label="Output" aria-busy={isRunning} className={`output${isRunning ? ' output-running' : ''}`}>
        {outputs.some(Boolean) && choices.map((text, index) => (
          <div key={index} className="output-choice">
            {choices.length > 1 && <div className="output-choice-label">{`Choice ${index + 1}`}</div>}
            <pre className="output-text">
              {showTokens && tokenLogprobs[index]?.length ? tokenLogprobs[index].map((token, position) => <TokenChip key={position} token={token} />) : text}
              {isRunning && <span className="caret" aria-hidden="true" />}
            </pre>
          </div>
        ))}
        {!outputs.some(Boolean) && <p className="output-placeholder">{placeholderFor(phase)}</p>}
      </div>

      <RunFacts phase={phase} stats={stats} error={error} onFindInLogs={onFindInLogs} />
    </section>
  );
}

/** What a run came to: its error, status, latency, first token, tokens and finish reason, and its trace id. */
export function RunFacts({ phase, stats, error, onFindInLogs }: Pick<OutputViewProps, 'phase' | 'stats' | 'error' | 'onFindInLogs'>) {
  const isRunning = phase === 'running';
  const usage = stats?.usage;
  const finishReasons = stats?.finishReasons.filter(Boolean).join(', ');
  return (
    <>
      {error && <ErrorNotice title={error.status ? `Request failed (${error.status})` : 'Cannot run yet'} message={error.message} />}

      <dl className="stats" aria-label="Run statistics">
        <div className="stat">
          <dt>Status</dt>
          <dd>{stats?.status ? <StatusBadge status={stats.status} error={error?.message} /> : isRunning ? 'waiting…' : '—'}</dd>
        </div>
        <div className="stat">
          <dt>Latency</dt>
          <dd>{formatDuration(stats?.latencyMs)}</dd>
        </div>
        <div className="stat">
          <dt>Time to first token</dt>
          <dd>{formatDuration(stats?.firstTokenMs)}</dd>
        </div>
        <div className="stat">
          <dt>Tokens</dt>
          <dd>
            {usage ? (
              <>
                {formatCount(usage.promptTokens)} <span className="muted">in</span> · {formatCount(usage.completionTokens)} <span className="muted">out</span>
    </>
          ) : (
            '—'
          )}
        </dd>
      </div>
      <div className="stat">
        <dt>Finish reason</dt>
        <dd>{finishReasons || '—'}</dd>
      </div>
    </dl>
    {stats?.traceId && (
      <p className="trace-line">
        Trace id <code>{stats.traceId}</code>
        {onFindInLogs && phase !== 'running' && (
          <button type="button" className="link-button" onClick={() => onFindInLogs(stats.traceId ?? '')}>
            Find in Logs
          </button>
        )}
      </p>
    )}
    </>
  );
}

/** The Logs page, opened on the rows of a trace id. */
export function useFindInLogs(): (traceId: string) => void {
  const navigate = useRouteStore((state) => state.navigate);
  return (traceId: string) => {
    // The Logs page loads with these filters when it opens.
    useLogsStore.setState({ filters: { ...EMPTY_FILTERS, q: traceId }, selectedId: null, detail: null });
    navigate('logs');
  };
}
