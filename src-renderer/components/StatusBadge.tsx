// A response status as a coloured badge: green for success, amber for client errors, red for failures.
import { statusTone } from './format';

export function StatusBadge({ status, error }: { status: number | null | undefined; error?: string | null }) {
  const tone = statusTone(status, error);
  const text = status ? String(status) : error ? 'failed' : '—';
  return <span className={`badge badge-${tone}`}>{text}</span>;
}
