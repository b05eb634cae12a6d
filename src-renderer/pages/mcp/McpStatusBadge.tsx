// A server's state as a badge: running green, on its way amber, failed red, stopped or off grey.
import type { McpServerStatus } from '../../api/types';

const TONE: Record<McpServerStatus, string> = {
  running: 'success',
  starting: 'warning',
  restarting: 'warning',
  failed: 'danger',
  stopped: 'neutral',
  disabled: 'neutral',
};

const LABEL: Record<McpServerStatus, string> = {
  running: 'Running',
  starting: 'Starting',
  restarting: 'Restarting',
  failed: 'Failed',
  stopped: 'Stopped',
  disabled: 'Off',
};

export function McpStatusBadge({ status }: { status: McpServerStatus }) {
  return <span className={`badge badge-${TONE[status] ?? 'neutral'}`}>{LABEL[status] ?? status}</span>;
}
