// Virtual keys (provider credentials stored in Gatehouse) and gateway API keys (for clients that
// bring their own provider token): two compact tables with one search and one sort, and a panel per key
// with its details and actions.
import { useEffect, useState, type ReactNode } from 'react';
import type { GatewayKey, VirtualKey } from '../api/types';
import { Icon } from '../components/Icon';
import { EmptyState, ErrorNotice, LoadingState } from '../components/StatusViews';
import { nextSortOrder, searchKeys, sortKeys, type KeyTableRow, type SortOrder } from '../keys/key-table';
import { useKeyLimitsStore } from '../stores/key-limits-store';
import { useKeysStore } from '../stores/keys-store';
import { NewGatewayKeyDialog, NewVirtualKeyDialog, RevealedKeyDialog } from './keys/KeyDialogs';
import { KeyPanel, type KeyPanelTarget } from './keys/KeyPanel';
import { useKeySpendStore } from './keys/KeySpend';
import { KeyTable } from './keys/KeyTable';
import './keys/keys-table.css';

type OpenDialog = { type: 'new-virtual' } | { type: 'new-gateway' } | { type: 'key'; id: string } | null;

function KeySection({ id, title, hint, label, kind, rows, total, order, onSort, onOpen, empty }: { id: string; title: string; hint: string; label: string; kind: 'virtual' | 'gateway'; rows: KeyTableRow[]; total: number; order: SortOrder; onSort(column: SortOrder['column']): void; onOpen(id: string): void; empty: ReactNode }) {
  return (
    <section className="card card-flush" aria-labelledby={id}>
      <div className="card-header card-header-padded">
        <div>
          <h2 id={id} className="card-title">
            {title} <span className="count">{rows.length === total ? total : `${rows.length} of ${total}`}</span>
          </h2>
          <p className="muted small">{hint}</p>
        </div>
      </div>
      {total === 0 ? empty : rows.length ? <KeyTable label={label} kind={kind} rows={rows} order={order} onSort={onSort} onOpen={onOpen} /> : <p className="key-table-none muted">No {title.toLowerCase()} match the search.</p>}
    </section>
  );
}

export function KeysPage() {
  const status = useKeysStore((state) => state.status);
  const loadError = useKeysStore((state) => state.loadError);
  const virtualKeys = useKeysStore((state) => state.virtualKeys);
  const gatewayKeys = useKeysStore((state) => state.gatewayKeys);
  const providers = useKeysStore((state) => state.providers);
  const revealed = useKeysStore((state) => state.revealed);
  const { load, dismissRevealed } = useKeysStore.getState();
  const spend = useKeySpendStore((state) => state.byKey);
  const loadSpend = useKeySpendStore((state) => state.load);
  const watchLimits = useKeyLimitsStore((state) => state.watch);
  const [dialog, setDialog] = useState<OpenDialog>(null);
  const [query, setQuery] = useState('');
  const [order, setOrder] = useState<SortOrder>({ column: 'name', direction: 'ascending' });

  useEffect(() => {
    void load();
    // A key shown once must not reappear when the person comes back to this page.
    return () => dismissRevealed();
  }, [load, dismissRevealed]);
  useEffect(() => {
    void loadSpend();
  }, [loadSpend]);
  // The limits column and the panel's meters share one refresh while the page is open.
  useEffect(() => watchLimits(), [watchLimits]);

  const provider = (slug: string) => providers.find((item) => item.slug === slug);
  const toRow = (key: VirtualKey | GatewayKey, kind: 'virtual' | 'gateway'): KeyTableRow => {
    const figures = spend[key.id];
    const virtual = kind === 'virtual' ? (key as VirtualKey) : null;
    return {
      id: key.id,
      kind,
      name: key.name,
      provider: virtual ? (provider(virtual.provider)?.name ?? virtual.provider) : null,
      host: virtual?.customHost ?? null,
      keyPrefix: key.keyPrefix,
      spentTodayUsd: figures?.todayUsd ?? 0,
      unpricedToday: figures?.todayUnpriced ?? 0,
      lastUsedAt: key.lastUsedAt ?? null,
    };
  };
  const virtualRows = sortKeys(searchKeys(virtualKeys.map((key) => toRow(key, 'virtual')), query), order);
  const gatewayRows = sortKeys(searchKeys(gatewayKeys.map((key) => toRow(key, 'gateway')), query), order);

  // The open panel follows the store: a rename shows at once, a revoked key closes it.
  const panelTarget = ((): KeyPanelTarget | null => {
    if (dialog?.type !== 'key') return null;
    const virtualKey = virtualKeys.find((key) => key.id === dialog.id);
    if (virtualKey) {
      const info = provider(virtualKey.provider);
      return { kind: 'virtual', key: virtualKey, providerName: info?.name ?? virtualKey.provider, defaultBaseUrl: info?.defaultBaseUrl ?? null };
    }
    const gatewayKey = gatewayKeys.find((key) => key.id === dialog.id);
    return gatewayKey ? { kind: 'gateway', key: gatewayKey } : null;
  })();
  const close = () => setDialog(null);
  const open = (id: string) => setDialog({ type: 'key', id });
  const sort = (column: SortOrder['column']) => setOrder((current) => nextSortOrder(current, column));

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
          {virtualKeys.length + gatewayKeys.length > 0 && (
            <div className="key-toolbar search-input">
              <Icon name="search" />
              <input className="input" type="search" aria-label="Search keys" placeholder="Search by name, provider or host" value={query} onChange={(event) => setQuery(event.target.value)} />
            </div>
          )}
          <KeySection
            id="virtual-keys-heading"
            title="Virtual keys"
            hint="Each refers to one stored provider credential and its host."
            label="Virtual keys"
            kind="virtual"
            rows={virtualRows}
            total={virtualKeys.length}
            order={order}
            onSort={sort}
            onOpen={open}
            empty={
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
            }
          />
          <KeySection
            id="gateway-keys-heading"
            title="Gateway API keys"
            hint="For clients that send their own provider token with x-gateway-provider."
            label="Gateway keys"
            kind="gateway"
            rows={gatewayRows}
            total={gatewayKeys.length}
            order={order}
            onSort={sort}
            onOpen={open}
            empty={
              <EmptyState icon="lock" title="No gateway API keys">
                Create one when a client brings its own provider token.
              </EmptyState>
            }
          />
        </>
      )}

      {dialog?.type === 'new-virtual' && <NewVirtualKeyDialog onClose={close} />}
      {dialog?.type === 'new-gateway' && <NewGatewayKeyDialog onClose={close} />}
      {panelTarget && <KeyPanel target={panelTarget} onClose={close} />}
      {revealed && (!dialog || panelTarget) && <RevealedKeyDialog revealed={revealed} onClose={dismissRevealed} />}
    </div>
  );
}
