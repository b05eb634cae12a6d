// Export: the rows the current filters show (all of them, not only those loaded) as CSV or JSON Lines.
import { useState } from 'react';
import type { LogExportFormat } from '../../api/admin-client';
import { describeError } from '../../api/api-error';
import { Icon } from '../../components/Icon';
import { filterQueryOf, type LogFilters } from '../../stores/logs-store';
import { requireAdminClient } from '../../stores/session-store';
import { useToastStore } from '../../stores/toast-store';

const FORMATS: Array<{ format: LogExportFormat; label: string; extension: string }> = [
  { format: 'csv', label: 'CSV', extension: 'csv' },
  { format: 'jsonl', label: 'JSON Lines', extension: 'jsonl' },
];

function saveBlob(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its own copy once it started.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function LogExport({ filters }: { filters: LogFilters }) {
  const [busy, setBusy] = useState<LogExportFormat | null>(null);
  const [open, setOpen] = useState(false);
  const showToast = useToastStore((state) => state.show);
  const exportAs = async (format: LogExportFormat, extension: string) => {
    setOpen(false);
    setBusy(format);
    try {
      const blob = await requireAdminClient().exportLogs(filterQueryOf(filters), format);
      const stamp = new Date().toISOString().slice(0, 19).replaceAll(':', '-');
      saveBlob(blob, `gatehouse-logs-${stamp}.${extension}`);
    } catch (error) {
      showToast(`Could not export the log: ${describeError(error)}`, 'error');
    } finally {
      setBusy(null);
    }
  };
  return (
    <div className="menu-anchor">
      <button type="button" className="button button-secondary" aria-haspopup="menu" aria-expanded={open} disabled={busy !== null} onClick={() => setOpen(!open)}>
        <Icon name="download" />
        {busy ? 'Exporting…' : 'Export'}
      </button>
      {open && (
        <div className="menu" role="menu" aria-label="Export format" onKeyDown={(event) => event.key === 'Escape' && setOpen(false)}>
          {FORMATS.map(({ format, label, extension }) => (
            <button key={format} type="button" role="menuitem" className="menu-item" onClick={() => void exportAs(format, extension)}>
              {label}
            </button>
          ))}
          <p className="menu-note">The rows these filters match, all of them.</p>
        </div>
      )}
    </div>
  );
}
