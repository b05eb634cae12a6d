// A compact table of keys, one line each: name, provider, host, limits, spend today, last used. A
// column header sorts; the name opens the key's panel (so does a click anywhere on the row).
import type { KeyLimits } from '../../api/types';
import { formatFullTime, formatRelativeTime } from '../../components/format';
import type { KeyTableRow, SortColumn, SortOrder } from '../../keys/key-table';
import { useKeyLimitsStore } from '../../stores/key-limits-store';
import { formatUsd } from '../usage/usage-format';
import { KeyHost } from './KeyHost';
import { describeLimits } from './KeyLimits';

interface Column {
  id: SortColumn | 'limits';
  label: string;
  sortable: boolean;
}

const VIRTUAL_COLUMNS: Column[] = [
  { id: 'name', label: 'Name', sortable: true },
  { id: 'provider', label: 'Provider', sortable: true },
  { id: 'host', label: 'Host', sortable: true },
  { id: 'limits', label: 'Limits', sortable: false },
  { id: 'spend', label: 'Spend today', sortable: true },
  { id: 'lastUsed', label: 'Last used', sortable: true },
];

// A gateway key has no provider nor host: its client brings both.
const GATEWAY_COLUMNS = VIRTUAL_COLUMNS.filter((column) => column.id !== 'provider' && column.id !== 'host');

function SortHeader({ column, order, onSort }: { column: Column; order: SortOrder; onSort(column: SortColumn): void }) {
  const active = order.column === column.id;
  const numeric = column.id === 'spend';
  if (!column.sortable) return <th scope="col">{column.label}</th>;
  return (
    <th scope="col" aria-sort={active ? order.direction : 'none'} className={numeric ? 'numeric' : undefined}>
      <button type="button" className="key-sort" onClick={() => onSort(column.id as SortColumn)}>
        {column.label}
        <span aria-hidden="true" className="key-sort-mark">
          {active ? (order.direction === 'ascending' ? '▲' : '▼') : ''}
        </span>
      </button>
    </th>
  );
}

function LimitsCell({ keyId }: { keyId: string }) {
  const view = useKeyLimitsStore((state) => state.byKey[keyId]);
  const limits: KeyLimits | undefined = view?.limits;
  const text = describeLimits(limits);
  return (
    <td className={limits && text !== 'No limits' ? 'key-cell-limits' : 'key-cell-limits muted'} title={text}>
      {view?.blocked ? (
        <span className="badge badge-danger" title={view.blocked.message}>
          Blocked
        </span>
      ) : null}
      {text}
    </td>
  );
}

export function KeyTable({ label, kind, rows, order, onSort, onOpen }: { label: string; kind: 'virtual' | 'gateway'; rows: KeyTableRow[]; order: SortOrder; onSort(column: SortColumn): void; onOpen(id: string): void }) {
  const columns = kind === 'virtual' ? VIRTUAL_COLUMNS : GATEWAY_COLUMNS;
  return (
    <table className={`key-table key-table-${kind}`} aria-label={label}>
      <thead>
        <tr>
          {columns.map((column) => (
            <SortHeader key={column.id} column={column} order={order} onSort={onSort} />
          ))}
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.id} onClick={() => onOpen(row.id)}>
            <th scope="row" className="key-cell-name">
              <button type="button" className="key-open" title={row.name} onClick={(event) => { event.stopPropagation(); onOpen(row.id); }}>
                {row.name}
              </button>
              <code className="key-prefix">{row.keyPrefix}…</code>
            </th>
            {kind === 'virtual' && <td className="key-cell-provider">{row.provider}</td>}
            {kind === 'virtual' && <td className="key-cell-host">{row.host ? <KeyHost url={row.host} /> : <span className="muted">default</span>}</td>}
            <LimitsCell keyId={row.id} />
            <td className="numeric key-cell-spend" title={row.unpricedToday > 0 ? `${row.unpricedToday} call${row.unpricedToday === 1 ? '' : 's'} today without a price: not in this figure` : undefined}>
              {formatUsd(row.spentTodayUsd)}
              {row.unpricedToday > 0 ? ' + unknown' : ''}
            </td>
            <td className="key-cell-used" title={row.lastUsedAt ? formatFullTime(row.lastUsedAt) : undefined}>
              {formatRelativeTime(row.lastUsedAt)}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
