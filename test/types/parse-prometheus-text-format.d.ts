// The part of parse-prometheus-text-format the /metrics tests use (the package ships no types).
declare module 'parse-prometheus-text-format' {
  interface Sample {
    value?: string;
    labels?: Record<string, string>;
    /** Histograms: cumulative counts by upper bound (`le`). */
    buckets?: Record<string, string>;
    count?: string;
    sum?: string;
  }
  interface MetricFamily {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: Sample[];
  }
  export default function parsePrometheusTextFormat(text: string): MetricFamily[];
}
