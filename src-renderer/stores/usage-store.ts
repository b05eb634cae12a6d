// The Usage page's state: which range and breakdown are shown, and the report for them. A newer request
// replaces an older one still in flight, so a quick switch of range never shows stale figures.
import { create } from 'zustand';
import { describeError } from '../api/api-error';
import type { UsageDimension, UsageRange, UsageReportView } from '../api/types';
import { requireAdminClient } from './session-store';

interface UsageState {
  range: UsageRange;
  by: UsageDimension;
  /** A date range in local days (YYYY-MM-DD, both included); '' for the period's usual span. */
  from: string;
  to: string;
  report: UsageReportView | null;
  status: 'idle' | 'loading' | 'ready' | 'error';
  error: string | null;
  setRange(range: UsageRange): void;
  setBy(by: UsageDimension): void;
  setDates(dates: { from?: string; to?: string }): void;
  load(): Promise<void>;
}

let current: AbortController | undefined;

export const useUsageStore = create<UsageState>()((set, get) => ({
  range: 'day',
  by: 'model',
  from: '',
  to: '',
  report: null,
  status: 'idle',
  error: null,

  setRange(range) {
    set({ range });
    void get().load();
  },

  setBy(by) {
    set({ by });
    void get().load();
  },

  setDates(dates) {
    set(dates);
    const { from, to } = get();
    // A half-typed range (from after to) is not asked for: the server would refuse it.
    if (!from || !to || from <= to) void get().load();
  },

  async load() {
    current?.abort();
    const controller = new AbortController();
    current = controller;
    set({ status: get().report ? 'ready' : 'loading', error: null });
    try {
      const report = await requireAdminClient().usage({ range: get().range, by: get().by, from: get().from || undefined, to: get().to || undefined }, controller.signal);
      if (current === controller) set({ report, status: 'ready' });
    } catch (error) {
      if (controller.signal.aborted) return;
      set({ status: 'error', error: describeError(error) });
    }
  },
}));

export function resetUsageStoreForTests(): void {
  current?.abort();
  current = undefined;
  useUsageStore.setState({ range: 'day', by: 'model', from: '', to: '', report: null, status: 'idle', error: null });
}
