// A key's spend today and this month on the Keys page, from the usage totals. One request serves every
// row; a key with calls of unknown price says so rather than showing a lower figure as the whole.
import { useEffect } from 'react';
import { create } from 'zustand';
import type { KeySpend as KeySpendFigures } from '../../api/types';
import { requireAdminClient } from '../../stores/session-store';
import { formatUsd } from '../usage/usage-format';
import '../usage/usage.css';

interface KeySpendState {
  byKey: Record<string, KeySpendFigures>;
  loaded: boolean;
  load(): Promise<void>;
}

let inFlight: Promise<void> | undefined;

export const useKeySpendStore = create<KeySpendState>()((set) => ({
  byKey: {},
  loaded: false,
  load() {
    inFlight ??= (async () => {
      try {
        const { items } = await requireAdminClient().keySpend();
        set({ byKey: Object.fromEntries(items.map((item) => [item.keyId, item])), loaded: true });
      } catch {
        // Spend is a side note on this page: the keys themselves must show even if it cannot load.
        set({ loaded: true });
      } finally {
        inFlight = undefined;
      }
    })();
    return inFlight;
  },
}));

/**
 * The priced part, as the budget meter beside it counts it (same figure, same format), then "+ unknown"
 * when some calls had no price: never "unknown" alone beside a meter that says $0.00, never wrapped.
 */
function Amount({ usd, unpriced }: { usd: number; unpriced: number }) {
  return (
    <strong className="spend-amount" title={unpriced > 0 ? `${unpriced} call${unpriced === 1 ? '' : 's'} without a price: not in this figure, nor in a budget. Set a price in Settings → Model prices.` : undefined}>
      {formatUsd(usd)}
      {unpriced > 0 ? ' + unknown' : ''}
    </strong>
  );
}

export function KeySpend({ keyId, keyName }: { keyId: string; keyName: string }) {
  const spend = useKeySpendStore((state) => state.byKey[keyId]);
  const loaded = useKeySpendStore((state) => state.loaded);
  const load = useKeySpendStore((state) => state.load);
  useEffect(() => {
    void load();
  }, [load]);
  if (!loaded) return null;
  return (
    <div className="key-spend" aria-label={`Spend of ${keyName}`}>
      <span>
        Today <Amount usd={spend?.todayUsd ?? 0} unpriced={spend?.todayUnpriced ?? 0} />
      </span>
      <span>
        This month <Amount usd={spend?.monthUsd ?? 0} unpriced={spend?.monthUnpriced ?? 0} />
      </span>
    </div>
  );
}
