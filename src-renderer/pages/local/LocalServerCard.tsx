// One local model server: what it is, where, whether it answers now, its models; a key in one click.
import { formatFullTime, formatRelativeTime } from '../../components/format';
import { CopyButton } from '../../components/CopyButton';
import { Icon } from '../../components/Icon';
import { KIND_NAMES, keyNameFor, type LocalServer } from '../../stores/local-servers-store';
import { formatBytes, formatContextLength } from './model-format';

interface LocalServerCardProps {
  server: LocalServer;
  creatingKey: boolean;
  /** The active virtual key that already reaches this server: shown instead of "Make a key". */
  serverKey: string | null;
  onMakeKey(): void;
  onOpenKeys(): void;
  /** The model whose key is being found or made for "Add to a route", if one on this server. */
  preparingRouteFor?: string | null;
  /** Absent: the card offers no route action (an offline server has nothing to send to). */
  onAddToRoute?(model: string): void;
}

export function LocalServerCard({ server, creatingKey, serverKey, onMakeKey, onOpenKeys, preparingRouteFor = null, onAddToRoute }: LocalServerCardProps) {
  const routable = server.online && onAddToRoute !== undefined;
  const name = keyNameFor(server);
  return (
    <section className={`card card-flush local-server${server.online ? '' : ' local-server-offline'}`} aria-label={name}>
      <header className="local-server-header">
        <div className="local-server-title">
          <span className="local-server-icon" aria-hidden="true">
            <Icon name="server" size={18} />
          </span>
          <div className="local-server-heading">
            <h2 className="card-title">
              {KIND_NAMES[server.kind]}
              {server.online ? <span className="badge badge-success">online</span> : <span className="badge badge-neutral">offline</span>}
            </h2>
            <div className="local-server-meta small">
              <code className="mono" title="OpenAI-compatible base URL">
                {server.url}
              </code>
              {server.version && <span className="muted">{/^\d/.test(server.version) ? `v${server.version}` : server.version}</span>}
              <span className="muted">
                {server.models.length} model{server.models.length === 1 ? '' : 's'}
              </span>
              {!server.online && (
                <span className="muted local-server-seen" title={formatFullTime(server.lastSeen)}>
                  last seen {formatRelativeTime(server.lastSeen)}
                </span>
              )}
            </div>
          </div>
        </div>
        <div className="card-actions">
          <CopyButton text={server.url} label="Copy" what={`base URL of ${name}`} variant="ghost" compact />
          {serverKey ? (
            <button type="button" className="button button-secondary" title={`The virtual key “${serverKey}” reaches this server`} onClick={onOpenKeys}>
              <Icon name="keys" />
              Key: {serverKey}
            </button>
          ) : (
            <button type="button" className="button button-primary" disabled={creatingKey} onClick={onMakeKey}>
              <Icon name="keys" />
              {creatingKey ? 'Making key…' : 'Make a key'}
              <span className="visually-hidden"> for {name}</span>
            </button>
          )}
        </div>
      </header>
      {server.models.length ? (
        <ul className="local-models" aria-label={`Models on ${name}`}>
          {server.models.map((model) => {
            const size = formatBytes(model.size);
            const context = formatContextLength(model.contextLength);
            return (
              <li key={model.id} className={`local-model${routable ? ' local-model-routable' : ''}`}>
                <code className="local-model-id truncate" title={model.id}>
                  {model.id}
                </code>
                <span className="local-model-facts small muted">
                  {size && <span title="Size on disk">{size}</span>}
                  {context && <span title={`${model.contextLength?.toLocaleString('en-US')} tokens of context`}>{context} context</span>}
                  {model.loaded === true && <span className="badge badge-accent">loaded</span>}
                </span>
                {routable && (
                  <button
                    type="button"
                    className="button button-ghost button-small"
                    disabled={preparingRouteFor !== null}
                    aria-label={`Add to a route: ${model.id}`}
                    onClick={() => onAddToRoute(model.id)}
                  >
                    <Icon name="route" />
                    {preparingRouteFor === model.id ? 'Preparing…' : 'Add to a route'}
                  </button>
                )}
                <CopyButton text={model.id} label="Copy" what={`model name ${model.id}`} variant="ghost" compact />
              </li>
            );
          })}
        </ul>
      ) : (
        <p className="local-models-none muted small">The server lists no models yet: pull or load one, then refresh.</p>
      )}
    </section>
  );
}
