// Virtual keys (provider credentials stored in Gatehouse) and gateway API keys (for clients that
// bring their own provider token).
import { KeyHost } from './keys/KeyHost';
import { useEffect, useState, type FormEvent } from 'react';
import { describeError } from '../api/api-error';
import type { GatewayKey, VirtualKey } from '../api/types';
import { Dialog } from '../components/Dialog';
import { formatFullTime, formatRelativeTime } from '../components/format';
import { Icon, type IconName } from '../components/Icon';
import { EmptyState, ErrorNotice, LoadingState } from '../components/StatusViews';
import { useKeysStore } from '../stores/keys-store';
import { useToastStore } from '../stores/toast-store';
import { describeKeyModels } from '../keys/model-map';
import { EditKeyHostDialog } from './keys/EditKeyHostDialog';
import { ConfirmRevokeDialog, KeyModelsDialog, NewGatewayKeyDialog, NewVirtualKeyDialog, RevealedKeyDialog, RotateKeyDialog, RoutingSwitch } from './keys/KeyDialogs';
import { KeyUsage } from './keys/KeyUsage';
import { KeySpend } from './keys/KeySpend';
import { KeyLimitsSummary } from './keys/KeyLimits';
import { KeyModelAccess } from './keys/KeyModelAccess';
import { KeyMcpServers } from './keys/KeyMcpServers';

type OpenDialog =
  | { type: 'new-virtual' }
  | { type: 'new-gateway' }
  | { type: 'rotate'; key: VirtualKey }
  | { type: 'edit-host'; key: VirtualKey }
  | { type: 'models'; key: VirtualKey }
  | { type: 'revoke-virtual'; key: VirtualKey }
  | { type: 'revoke-gateway'; key: GatewayKey }
  | { type: 'usage'; kind: 'virtual' | 'gateway'; name: string; provider: string | null }
  | null;

function RenameForm({ currentName, rename, onDone }: { currentName: string; rename(name: string): Promise<void>; onDone(): void }) {
  const [name, setName] = useState(currentName);
  const [error, setError] = useState<string | null>(null);
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim() || name.trim() === currentName) return onDone();
    try {
      await rename(name.trim());
      onDone();
    } catch (caught) {
      setError(describeError(caught));
    }
  };
  return (
    <form className="rename-form" onSubmit={onSubmit}>
      <input
        className="input input-compact"
        aria-label={`New name for ${currentName}`}
        value={name}
        autoFocus
        onChange={(event) => setName(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            // Escape closes the rename field, not a dialog or detail around it.
            event.stopPropagation();
            onDone();
          }
        }}
      />
      <button type="submit" className="button button-primary button-small">
        Save
      </button>
      <button type="button" className="button button-ghost button-small" onClick={onDone}>
        Cancel
      </button>
      {error && <span className="field-error">{error}</span>}
    </form>
  );
}

/**
 * A row's action: the visible verb plus the key's name for screen readers. The name is text, not
 * an aria-label, so "find the field labelled Name" never lands on a Rename button.
 */
function RowAction({ icon, verb, subject, danger = false, onClick }: { icon: IconName; verb: string; subject: string; danger?: boolean; onClick(): void }) {
  return (
    <button type="button" className={`button button-ghost button-small${danger ? ' button-danger-text' : ''}`} onClick={onClick}>
      <Icon name={icon} />
      {verb}
      <span className="visually-hidden"> {subject}</span>
    </button>
  );
}

/** The row's routing switch: saved as it is flipped; a refusal is shown and the switch stays as it was. */
function KeyRoutingToggle({ virtualKey }: { virtualKey: VirtualKey }) {
  const setVirtualKeyRouting = useKeysStore((state) => state.setVirtualKeyRouting);
  const showToast = useToastStore((state) => state.show);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const flip = async (allow: boolean) => {
    setSaving(true);
    setError(null);
    try {
      await setVirtualKeyRouting(virtualKey.id, allow);
      showToast(allow ? `Routes may serve other keys with ${virtualKey.name}` : `Only gateway keys and ${virtualKey.name} itself reach it through routes`);
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setSaving(false);
    }
  };
  return (
    <div className="key-routing small">
      <RoutingSwitch checked={virtualKey.allowRouting === true} disabled={saving} subject={virtualKey.name} onChange={(allow) => void flip(allow)} />
      {error && <span className="field-error">{error}</span>}
    </div>
  );
}

function VirtualKeyRow({ virtualKey, providerName, onOpen }: { virtualKey: VirtualKey; providerName: string; onOpen(dialog: OpenDialog): void }) {
  const [isRenaming, setRenaming] = useState(false);
  const renameVirtualKey = useKeysStore((state) => state.renameVirtualKey);
  const settings = Object.entries(virtualKey.settings ?? {});
  const models = describeKeyModels(virtualKey);
  return (
    <li className="key-row">
      <div className="key-main">
        {isRenaming ? (
          <RenameForm currentName={virtualKey.name} rename={(name) => renameVirtualKey(virtualKey.id, name)} onDone={() => setRenaming(false)} />
        ) : (
          <span className="key-name">{virtualKey.name}</span>
        )}
        <div className="key-meta">
          <span className="badge badge-accent">{providerName}</span>
          <code className="key-prefix">{virtualKey.keyPrefix}…</code>
          {virtualKey.customHost && (
            <KeyHost url={virtualKey.customHost} />
          )}
          {virtualKey.chatOnly && (
            <span className="badge" title="Its server speaks Chat Completions only: Responses calls (Codex) are translated to Chat">
              Chat only
            </span>
          )}
          {settings.map(([name, value]) => (
            <span key={name} className="muted small truncate" title={name}>
              {name.split('.').pop()}: {value}
            </span>
          ))}
          {models && (
            <span className="muted small truncate key-models" title={Object.entries(virtualKey.modelMap ?? {}).map(([from, to]) => `${from} → ${to}`).join('\n') || undefined}>
              {models}
            </span>
          )}
        </div>
        <KeyRoutingToggle virtualKey={virtualKey} />
        <KeyLimitsSummary keyId={virtualKey.id} keyName={virtualKey.name} />
        <KeyModelAccess keyRef={{ id: virtualKey.id, name: virtualKey.name }} />
        <KeyMcpServers keyRef={{ kind: 'virtual', id: virtualKey.id, name: virtualKey.name, mcpServers: virtualKey.mcpServers }} />
      </div>
      <div className="key-dates small muted">
        <KeySpend keyId={virtualKey.id} keyName={virtualKey.name} />
        <span title={formatFullTime(virtualKey.createdAt)}>Created {formatRelativeTime(virtualKey.createdAt)}</span>
        {virtualKey.lastUsedAt !== undefined && (
          <span title={virtualKey.lastUsedAt ? formatFullTime(virtualKey.lastUsedAt) : undefined}>Used {formatRelativeTime(virtualKey.lastUsedAt)}</span>
        )}
      </div>
      <div className="key-actions">
        <RowAction icon="code" verb="Use" subject={virtualKey.name} onClick={() => onOpen({ type: 'usage', kind: 'virtual', name: virtualKey.name, provider: virtualKey.provider })} />
        <RowAction icon="edit" verb="Rename" subject={virtualKey.name} onClick={() => setRenaming(true)} />
        <RowAction icon="route" verb="Models" subject={virtualKey.name} onClick={() => onOpen({ type: 'models', key: virtualKey })} />
        <RowAction icon="edit" verb="Edit" subject={virtualKey.name} onClick={() => onOpen({ type: 'edit-host', key: virtualKey })} />
        <RowAction icon="rotate" verb="Rotate" subject={virtualKey.name} onClick={() => onOpen({ type: 'rotate', key: virtualKey })} />
        <RowAction icon="trash" verb="Revoke" subject={virtualKey.name} danger onClick={() => onOpen({ type: 'revoke-virtual', key: virtualKey })} />
      </div>
    </li>
  );
}

function GatewayKeyRow({ gatewayKey, onOpen }: { gatewayKey: GatewayKey; onOpen(dialog: OpenDialog): void }) {
  const [isRenaming, setRenaming] = useState(false);
  const renameGatewayKey = useKeysStore((state) => state.renameGatewayKey);
  return (
    <li className="key-row">
      <div className="key-main">
        {isRenaming ? (
          <RenameForm currentName={gatewayKey.name} rename={(name) => renameGatewayKey(gatewayKey.id, name)} onDone={() => setRenaming(false)} />
        ) : (
          <span className="key-name">{gatewayKey.name}</span>
        )}
        <div className="key-meta">
          <code className="key-prefix">{gatewayKey.keyPrefix}…</code>
        </div>
        <KeyLimitsSummary keyId={gatewayKey.id} keyName={gatewayKey.name} />
        <KeyModelAccess keyRef={{ id: gatewayKey.id, name: gatewayKey.name }} />
        <KeyMcpServers keyRef={{ kind: 'gateway', id: gatewayKey.id, name: gatewayKey.name, mcpServers: gatewayKey.mcpServers }} />
      </div>
      <div className="key-dates small muted">
        <KeySpend keyId={gatewayKey.id} keyName={gatewayKey.name} />
        <span title={formatFullTime(gatewayKey.createdAt)}>Created {formatRelativeTime(gatewayKey.createdAt)}</span>
        {gatewayKey.lastUsedAt !== undefined && <span>Used {formatRelativeTime(gatewayKey.lastUsedAt)}</span>}
      </div>
      <div className="key-actions">
        <RowAction icon="code" verb="Use" subject={gatewayKey.name} onClick={() => onOpen({ type: 'usage', kind: 'gateway', name: gatewayKey.name, provider: null })} />
        <RowAction icon="edit" verb="Rename" subject={gatewayKey.name} onClick={() => setRenaming(true)} />
        <RowAction icon="trash" verb="Revoke" subject={gatewayKey.name} danger onClick={() => onOpen({ type: 'revoke-gateway', key: gatewayKey })} />
      </div>
    </li>
  );
}

export function KeysPage() {
  const status = useKeysStore((state) => state.status);
  const loadError = useKeysStore((state) => state.loadError);
  const virtualKeys = useKeysStore((state) => state.virtualKeys);
  const gatewayKeys = useKeysStore((state) => state.gatewayKeys);
  const providers = useKeysStore((state) => state.providers);
  const revealed = useKeysStore((state) => state.revealed);
  const { load, dismissRevealed, revokeVirtualKey, revokeGatewayKey } = useKeysStore.getState();
  const showToast = useToastStore((state) => state.show);
  const [dialog, setDialog] = useState<OpenDialog>(null);

  useEffect(() => {
    void load();
    // A key shown once must not reappear when the person comes back to this page.
    return () => dismissRevealed();
  }, [load, dismissRevealed]);

  const providerName = (slug: string) => providers.find((provider) => provider.slug === slug)?.name ?? slug;
  const close = () => setDialog(null);

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Keys</h1>
          <p className="page-subtitle">Hand out keys instead of provider secrets. Revoke one without touching the others.</p>
        </div>
        <div className="header-actions">
          <button type="button" className="button button-secondary" onClick={() => setDialog({ type: 'new-gateway' })}>
            <Icon name="plus" />
            New gateway key
          </button>
          <button type="button" className="button button-primary" onClick={() => setDialog({ type: 'new-virtual' })}>
            <Icon name="plus" />
            New virtual key
          </button>
        </div>
      </header>

      {status === 'loading' && <LoadingState label="Loading keys" />}
      {status === 'error' && <ErrorNotice title="Could not load keys" message={loadError ?? ''} onRetry={() => void load()} />}

      {status === 'ready' && (
        <>
          <section className="card card-flush">
            <div className="card-header card-header-padded">
              <div>
                <h2 id="virtual-keys-heading" className="card-title">
                  Virtual keys <span className="count">{virtualKeys.length}</span>
                </h2>
                <p className="muted small">Each refers to one stored provider credential and its host.</p>
              </div>
            </div>
            {virtualKeys.length ? (
              <ul className="key-list" aria-label="Virtual keys">
                {virtualKeys.map((virtualKey) => (
                  <VirtualKeyRow key={virtualKey.id} virtualKey={virtualKey} providerName={providerName(virtualKey.provider)} onOpen={setDialog} />
                ))}
              </ul>
            ) : (
              <EmptyState
                icon="keys"
                title="No virtual keys yet"
                action={
                  <button type="button" className="button button-primary" onClick={() => setDialog({ type: 'new-virtual' })}>
                    <Icon name="plus" />
                    Add your first virtual key
                  </button>
                }
              >
                Store a provider’s API key once; give each app its own gh-vk- key.
              </EmptyState>
            )}
          </section>

          <section className="card card-flush">
            <div className="card-header card-header-padded">
              <div>
                <h2 id="gateway-keys-heading" className="card-title">
                  Gateway API keys <span className="count">{gatewayKeys.length}</span>
                </h2>
                <p className="muted small">For clients that send their own provider token with x-gateway-provider.</p>
              </div>
            </div>
            {gatewayKeys.length ? (
              <ul className="key-list" aria-label="Gateway keys">
                {gatewayKeys.map((gatewayKey) => (
                  <GatewayKeyRow key={gatewayKey.id} gatewayKey={gatewayKey} onOpen={setDialog} />
                ))}
              </ul>
            ) : (
              <EmptyState icon="lock" title="No gateway API keys">
                Create one when a client brings its own provider token.
              </EmptyState>
            )}
          </section>
        </>
      )}

      {dialog?.type === 'new-virtual' && <NewVirtualKeyDialog onClose={close} />}
      {dialog?.type === 'new-gateway' && <NewGatewayKeyDialog onClose={close} />}
      {dialog?.type === 'rotate' && <RotateKeyDialog virtualKey={dialog.key} onClose={close} onRotated={() => { close(); showToast('Credential rotated'); }} />}
      {dialog?.type === 'edit-host' && <EditKeyHostDialog virtualKey={dialog.key} onClose={close} onSaved={(message) => { close(); showToast(message); }} />}
      {dialog?.type === 'models' && <KeyModelsDialog virtualKey={dialog.key} onClose={close} onSaved={() => { close(); showToast(`Saved the models of ${dialog.key.name}`); }} />}
      {dialog?.type === 'revoke-virtual' && (
        <ConfirmRevokeDialog kind="virtual" name={dialog.key.name} onClose={close} onConfirm={async () => { await revokeVirtualKey(dialog.key.id); showToast(`Revoked ${dialog.key.name}`); }} />
      )}
      {dialog?.type === 'revoke-gateway' && (
        <ConfirmRevokeDialog kind="gateway" name={dialog.key.name} onClose={close} onConfirm={async () => { await revokeGatewayKey(dialog.key.id); showToast(`Revoked ${dialog.key.name}`); }} />
      )}
      {dialog?.type === 'usage' && (
        <Dialog title={`Use “${dialog.name}”`} description={dialog.kind === 'virtual' ? 'Set-ups for coding tools, SDKs and curl, with this gateway’s address.' : 'The full key was shown once when it was created; these examples read it from an environment variable.'} onClose={close} size="large">
          <KeyUsage kind={dialog.kind} provider={dialog.provider} />
        </Dialog>
      )}
      {revealed && !dialog && <RevealedKeyDialog revealed={revealed} onClose={dismissRevealed} />}
    </div>
  );
}
