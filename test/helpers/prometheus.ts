// Reads /metrics text the way the tests check it: parsed by a Prometheus text parser, sample by sample.
import parsePrometheusTextFormat, { type MetricFamily } from 'parse-prometheus-text-format';

/** One sample line: `name{labels} value`, histogram parts (`_bucket`, `_sum`, `_count`) included. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/**
 * Parses the text (which must be valid: the parser throws on a bad line) and returns its families and
 * every sample with its labels. The parser folds a histogram's labelled series into one (as prom2json
 * does), so histogram parts are read again as plain samples, with their TYPE lines taken out.
 */
export function parseMetrics(text: string): { families: Map<string, MetricFamily>; samples: Sample[] } {
  const families = new Map(parsePrometheusTextFormat(text).map((family) => [family.name, family]));
  const samples: Sample[] = [];
  for (const family of parsePrometheusTextFormat(text.replace(/^# TYPE \S+ histogram$/gm, ''))) {
    for (const sample of family.metrics) samples.push({ name: family.name, labels: sample.labels ?? {}, value: Number(sample.value) });
  }
  return { families, samples };
}

/** The sum of the samples of that name whose labels include these. */
export function total(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  return samples
    .filter((sample) => sample.name === name && Object.entries(labels).every(([label, value]) => sample.labels[label] === value))
    .reduce((sum, sample) => sum + sample.value, 0);
}
