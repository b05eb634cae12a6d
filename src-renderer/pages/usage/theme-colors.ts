// The chart colours, read from the design tokens so charts follow light and dark mode like the rest of
// the UI (SVG attributes set by the chart library cannot use CSS variables everywhere).
import { useEffect, useState } from 'react';

export interface ChartColors {
  accent: string;
  second: string;
  third: string;
  grid: string;
  text: string;
  surface: string;
}

const FALLBACK: ChartColors = { accent: '#4f46e5', second: '#0e9f6e', third: '#d97706', grid: '#e3e6ec', text: '#5d6472', surface: '#ffffff' };

function read(): ChartColors {
  if (typeof window === 'undefined') return FALLBACK;
  const style = getComputedStyle(document.documentElement);
  const token = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  return {
    accent: token('--accent', FALLBACK.accent),
    second: token('--chart-2', FALLBACK.second),
    third: token('--chart-3', FALLBACK.third),
    grid: token('--border', FALLBACK.grid),
    text: token('--text-muted', FALLBACK.text),
    surface: token('--surface-raised', FALLBACK.surface),
  };
}

export function useChartColors(): ChartColors {
  const [colors, setColors] = useState(read);
  useEffect(() => {
    const scheme = window.matchMedia('(prefers-color-scheme: dark)');
    const update = () => setColors(read());
    scheme.addEventListener('change', update);
    return () => scheme.removeEventListener('change', update);
  }, []);
  return colors;
}
