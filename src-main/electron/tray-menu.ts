// What the tray says and offers, as plain data: tray.ts turns it into an Electron menu, and the
// unit tests read it without Electron.

export type TrayAction = 'open-window' | 'copy-base-url' | 'toggle-start-at-login' | 'quit';

export type TrayMenuEntry =
  | { kind: 'status'; label: string }
  | { kind: 'separator' }
  | { kind: 'action'; action: TrayAction; label: string }
  | { kind: 'checkbox'; action: TrayAction; label: string; checked: boolean };

export interface TrayState {
  /** The gateway's address, e.g. http://127.0.0.1:8787; null while it is not running. */
  url: string | null;
  startAtLogin: boolean;
  /** False where the platform offers no way to start at login. */
  canStartAtLogin: boolean;
}

/** Tools configure the OpenAI-compatible base URL, which is the gateway address plus /v1. */
export function baseUrlOf(gatewayUrl: string): string {
  return `${gatewayUrl.replace(/\/+$/, '')}/v1`;
}

export function trayTooltip(state: TrayState): string {
  return state.url ? `Gatehouse: running at ${state.url}` : 'Gatehouse: not running';
}

export function buildTrayMenu(state: TrayState): TrayMenuEntry[] {
  const entries: TrayMenuEntry[] = [
    { kind: 'status', label: state.url ? `Running at ${state.url}` : 'Gateway not running' },
    { kind: 'separator' },
    { kind: 'action', action: 'open-window', label: 'Open Gatehouse' },
  ];
  if (state.url) entries.push({ kind: 'action', action: 'copy-base-url', label: `Copy base URL (${baseUrlOf(state.url)})` });
  entries.push({ kind: 'separator' });
  if (state.canStartAtLogin) {
    entries.push({ kind: 'checkbox', action: 'toggle-start-at-login', label: 'Start at login', checked: state.startAtLogin });
    entries.push({ kind: 'separator' });
  }
  entries.push({ kind: 'action', action: 'quit', label: 'Quit Gatehouse' });
  return entries;
}
