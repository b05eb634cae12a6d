// The Keys page's table as data: one row per key with the figures its columns show, the search that
// filters it and the column order it is sorted by. Kept apart from React so both key tables share it.

export interface KeyTableRow {
  id: string;
  kind: 'virtual' | 'gateway';
  name: string;
  /** The provider's display name; null for a gateway key (it brings its own provider token). */
  provider: string | null;
  host: string | null;
  keyPrefix: string;
  /** Priced spend today in USD, and how many of today's calls had no price. */
  spentTodayUsd: number;
  unpricedToday: number;
  lastUsedAt: string | null;
}

export type SortColumn = 'name' | 'provider' | 'host' | 'spend' | 'lastUsed';
export interface SortOrder {
  column: SortColumn;
  direction: 'ascending' | 'descending';
}

/** Rows whose name, provider, host or key prefix contains every word of the query, in any case. */
export function searchKeys(rows: readonly KeyTableRow[], query: string): KeyTableRow[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  if (!words.length) return [...rows];
  return rows.filter((row) => {
    const text = [row.name, row.provider ?? '', row.host ?? '', row.keyPrefix].join(' ').toLowerCase();
    return words.every((word) => text.includes(word));
  });
}

const byText = (a: string | null, b: string | null) => (a ?? '').localeCompare(b ?? '', undefined, { sensitivity: 'base', numeric: true });
const time = (iso: string | null) => (iso ? new Date(iso).getTime() || 0 : 0);

function compare(column: SortColumn, a: KeyTableRow, b: KeyTableRow): number {
  switch (column) {
    case 'name':
      return byText(a.name, b.name);
    case 'provider':
      return byText(a.provider, b.provider);
    case 'host':
      return byText(a.host, b.host);
    case 'spend':
      return a.spentTodayUsd - b.spentTodayUsd || a.unpricedToday - b.unpricedToday;
    case 'lastUsed':
      return time(a.lastUsedAt) - time(b.lastUsedAt);
  }
}

/** Sorted by the column, ties broken by name so the order never jumps between refreshes. */
export function sortKeys(rows: readonly KeyTableRow[], order: SortOrder): KeyTableRow[] {
  const sign = order.direction === 'ascending' ? 1 : -1;
  return [...rows].sort((a, b) => sign * compare(order.column, a, b) || byText(a.name, b.name) || a.id.localeCompare(b.id));
}

/** A header click: the same column flips its direction; a new one starts with what a person looks for first. */
export function nextSortOrder(current: SortOrder, column: SortColumn): SortOrder {
  if (current.column === column) return { column, direction: current.direction === 'ascending' ? 'descending' : 'ascending' };
  // Spend and last use: the biggest and the most recent first.
  return { column, direction: column === 'spend' || column === 'lastUsed' ? 'descending' : 'ascending' };
}
