// The Usage page's charts, drawn with recharts: spend and tokens per period, and spend by the chosen
// breakdown. Animations are off: figures should read at once, and screenshots stay stable.
import { Bar, BarChart, CartesianGrid, Legend, ResponsiveContainer, Tooltip, XAxis, YAxis } from 'recharts';
import type { UsageGroupView, UsagePeriod, UsageRange } from '../../api/types';
import { useChartColors } from './theme-colors';
import { formatPeriod, formatTokens, formatUsd, niceTicks } from './usage-format';

const CHART_HEIGHT = 220;
/** A few periods of data must not fill the chart with one or two slabs. */
const MAX_BAR_WIDTH = 36;

function tooltipStyle(colors: ReturnType<typeof useChartColors>) {
  return {
    contentStyle: { background: colors.surface, border: `1px solid ${colors.grid}`, borderRadius: 8, fontSize: 12 },
    labelStyle: { color: colors.text },
    cursor: { fill: colors.grid, opacity: 0.4 },
  };
}

export function SpendOverTime({ series, range }: { series: UsagePeriod[]; range: UsageRange }) {
  const colors = useChartColors();
  const data = series.map((period) => ({ label: formatPeriod(period.period, range), spend: period.costUsd }));
  const ticks = niceTicks(Math.max(0, ...data.map((point) => point.spend)));
  return (
    <div className="usage-chart" role="img" aria-label={`Spend per ${range}`}>
      <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
        <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid vertical={false} stroke={colors.grid} />
          <XAxis dataKey="label" tick={{ fill: colors.text, fontSize: 11 }} tickLine={false} axisLine={{ stroke: colors.grid }} minTickGap={12} />
          <YAxis tick={{ fill: colors.text, fontSize: 11 }} tickLine={false} axisLine={false} width={84} ticks={ticks} domain={[0, ticks[ticks.length - 1]]} tickFormatter={(value: number) => formatUsd(value)} />
          <Tooltip {...tooltipStyle(colors)} formatter={(value) => [formatUsd(Number(value)), 'Spend']} />
          <Bar dataKey="spend" name="Spend" fill={colors.accent} radius={[3, 3, 0, 0]} maxBarSize={MAX_BAR_WIDTH} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

export function TokensOverTime({ series, range }: { series: UsagePeriod[]; range: UsageRange }) {
  const colors = useChartColors();
  const data = series.map((period) => ({
    label: formatPeriod(period.period, range),
    input: period.promptTokens - period.cacheReadTokens,
    cached: period.cacheReadTokens,
    output: period.completionTokens,
  }));
  return (
    <div className="usage-chart" role="img" aria-label={`Tokens per ${range}`}>
      <ResponsiveContainer width="100%" height={CHART_HEIGHT}>
        <BarChart data={data} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
          <CartesianGrid vertical={false} stroke={colors.grid} />
          <XAxis dataKey="label" tick={{ fill: colors.text, fontSize: 11 }} tickLine={false} axisLine={{ stroke: colors.grid }} minTickGap={12} />
          <YAxis tick={{ fill: colors.text, fontSize: 11 }} tickLine={false} axisLine={false} width={64} tickFormatter={(value: number) => formatTokens(value)} />
          <Tooltip {...tooltipStyle(colors)} formatter={(value, name) => [formatTokens(Number(value)), String(name)]} />
          <Legend wrapperStyle={{ fontSize: 12, color: colors.text }} />
          <Bar dataKey="input" name="Input" stackId="tokens" fill={colors.accent} maxBarSize={MAX_BAR_WIDTH} isAnimationActive={false} />
          <Bar dataKey="cached" name="Cached input" stackId="tokens" fill={colors.third} maxBarSize={MAX_BAR_WIDTH} isAnimationActive={false} />
          <Bar dataKey="output" name="Output" stackId="tokens" fill={colors.second} radius={[3, 3, 0, 0]} maxBarSize={MAX_BAR_WIDTH} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}

/** The ten largest groups by spend, as horizontal bars. */
export function SpendBreakdown({ groups, title }: { groups: UsageGroupView[]; title: string }) {
  const colors = useChartColors();
  const data = groups
    .filter((group) => group.costUsd > 0)
    .slice(0, 10)
    .map((group) => ({ label: group.label, spend: group.costUsd }));
  const ticks = niceTicks(Math.max(0, ...data.map((point) => point.spend)), 3);
  if (data.length === 0) return <p className="muted small usage-chart-empty">No priced calls in this period.</p>;
  return (
    <div className="usage-chart" role="img" aria-label={title}>
      <ResponsiveContainer width="100%" height={Math.max(120, data.length * 32 + 24)}>
        <BarChart data={data} layout="vertical" margin={{ top: 4, right: 16, bottom: 4, left: 8 }}>
          <CartesianGrid horizontal={false} stroke={colors.grid} />
          <XAxis type="number" tick={{ fill: colors.text, fontSize: 11 }} tickLine={false} axisLine={{ stroke: colors.grid }} ticks={ticks} domain={[0, ticks[ticks.length - 1]]} tickFormatter={(value: number) => formatUsd(value)} />
          <YAxis type="category" dataKey="label" tick={{ fill: colors.text, fontSize: 11 }} tickLine={false} axisLine={false} width={150} />
          <Tooltip {...tooltipStyle(colors)} formatter={(value) => [formatUsd(Number(value)), 'Spend']} />
          <Bar dataKey="spend" name="Spend" fill={colors.accent} radius={[0, 3, 3, 0]} maxBarSize={24} isAnimationActive={false} />
        </BarChart>
      </ResponsiveContainer>
    </div>
  );
}
