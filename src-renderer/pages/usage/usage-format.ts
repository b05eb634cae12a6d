// How money, tokens and periods read on the Usage and Keys pages.
import type { UsageRange } from '../../api/types';

const usd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 2 });
const smallUsd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', minimumFractionDigits: 2, maximumFractionDigits: 4 });
const tinyUsd = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD', maximumSignificantDigits: 2 });
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

/** Dollars to the cent; under a dollar up to four decimals, under a cent two significant digits: a cheap call is never "$0.00". */
export function formatUsd(value: number): string {
  if (value > 0 && value < 0.01) return tinyUsd.format(value);
  return value > 0 && value < 1 ? smallUsd.format(value) : usd.format(value);
}

export function formatTokens(value: number): string {
  return value < 10_000 ? value.toLocaleString('en-US') : compact.format(value);
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A period's first day (YYYY-MM-DD) as a chart label: "Nov 24", "Week of Nov 24", "Nov 2026". */
export function formatPeriod(period: string, range: UsageRange): string {
  const [year, month, day] = period.split('-').map(Number);
  const monthName = MONTHS[month - 1] ?? period;
  if (range === 'month') return `${monthName} ${year}`;
  return range === 'week' ? `Wk ${monthName} ${day}` : `${monthName} ${day}`;
}

/** A local day (YYYY-MM-DD) as "Nov 24, 2026". */
export function formatDay(day: string): string {
  const [year, month, date] = day.split('-').map(Number);
  return `${MONTHS[month - 1] ?? day} ${date}, ${year}`;
}

/**
 * Round axis ticks from 0 past the largest value, 1-2-5 steps: $0.01, $0.02… rather than recharts'
 * even fifths of the maximum ($0.009, $0.018, $0.027…). About four steps; [0, 1] when all is zero.
 */
export function niceTicks(max: number, steps = 4): number[] {
  if (!(max > 0)) return [0, 1];
  const rough = max / steps;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = [1, 2, 2.5, 5, 10].map((factor) => factor * magnitude).find((candidate) => candidate >= rough) ?? 10 * magnitude;
  const ticks: number[] = [];
  for (let tick = 0; tick < max + step / 2 && ticks.length <= steps + 1; tick += step) ticks.push(Number(tick.toPrecision(12)));
  if (ticks[ticks.length - 1] < max) ticks.push(Number((ticks[ticks.length - 1] + step).toPrecision(12)));
  return ticks;
}
