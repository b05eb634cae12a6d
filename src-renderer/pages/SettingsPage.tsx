// Where Gatehouse listens, where it keeps its data, what it logs, and how well keys are protected.
import { useEffect, useState, type FormEvent } from 'react';
import { settingsSchema } from '../../src-main/core/settings';
import type { Settings } from '../api/types';
import { CopyButton } from '../components/CopyButton';
import { Field } from '../components/Field';
import { Icon } from '../components/Icon';
import { SegmentedControl } from '../components/SegmentedControl';
import { ErrorNotice, LoadingState } from '../components/StatusViews';
import { useSessionStore } from '../stores/session-store';
import { useSettingsStore } from '../stores/settings-store';
import { useToastStore } from '../stores/toast-store';
import { ModelOverrides } from './settings/ModelOverrides';
import { DiscoveryPortsCard } from './settings/DiscoveryPortsCard';
import { AppearanceCard } from './settings/AppearanceCard';
import { TeamGatewayCard } from './settings/TeamGatewayCard';

interface SettingsDraft {
  host: string;
  port: string;
  retentionDays: string;
  maxLogRows: string;
  storeBodies: boolean;
  mcpKeyDefault: Settings['mcpKeyDefault'];
}

type NumericSetting = 'port' | 'retentionDays' | 'maxLogRows';
type EditableSetting = 'host' | NumericSetting;

const NUMERIC_SETTING_LABELS: Record<NumericSetting, string> = { port: 'Port', retentionDays: 'Retention', maxLogRows: 'Row limit' };

function draftOf(settings: Settings): SettingsDraft {
  return {
    host: settings.host,
    port: String(settings.port),
    retentionDays: String(settings.retentionDays),
    maxLogRows: String(settings.maxLogRows),
    storeBodies: settings.storeBodies,
    mcpKeyDefault: settings.mcpKeyDefault,
  };
}

/** Checks a typed value against the server's own settings schema, so the bounds live in one place. */
function settingError(name: EditableSetting, text: string): string | null {
  if (name === 'host') return settingsSchema.shape.host.safeParse(text.trim()).success ? null : 'Enter an address to listen on';
  const value = text.trim() === '' ? Number.NaN : Number(text);
  const result = settingsSchema.shape[name].safeParse(value);
  if (result.success) return null;
  const issue = result.error.issues[0];
  const range = issue && 'minimum' in issue ? ` (at least ${Number(issue.minimum).toLocaleString('en-US')})` : issue && 'maximum' in issue ? ` (at most ${Number(issue.maximum).toLocaleString('en-US')})` : '';
  return `${NUMERIC_SETTING_LABELS[name]} must be a whole number in range${range}`;
}

export function KeyProtectionCard({ settings }: { settings: Settings }) {
  const { keyProtection } = settings;
  return (
    <section className={`card protection ${keyProtection.protected ? 'protection-ok' : 'protection-warn'}`} aria-labelledby="protection-heading">
      <div className="protection-icon" aria-hidden="true">
        <Icon name={keyProtection.protected ? 'shield' : 'alert'} size={22} />
      </div>
      <div className="protection-body">
        <h2 id="protection-heading" className="card-title">
          Key protection: {keyProtection.protected ? 'protected' : 'not protected'}
        </h2>
        <p className="muted small">
          Mode <code>{keyProtection.mode}</code>
        </p>
        {keyProtection.protected ? (
          <p>Stored provider credentials are encrypted with a key held by the operating system.</p>
        ) : (
          <div className="notice notice-warning" role="alert">
            <Icon name="alert" size={18} />
            <div className="notice-body">
              <strong>Stored credentials are not protected by the operating system.</strong>
              <span>{keyProtection.warning ?? 'Anyone who can read the data folder may be able to recover the provider secrets behind your virtual keys.'}</span>
            </div>
          </div>
        )}
      </div>
    </section>
  );
}

/**
 * The one port setting: `gatehouse serve` and the desktop app both listen where Settings say (a flag or
 * GATEHOUSE_PORT wins), and the desktop app saves here the port it moves to after a clash.
 */
const PORT_HINT =
  typeof window !== 'undefined' && window.gatehouse
    ? 'Takes effect when Gatehouse next starts (the app and `gatehouse serve`), unless --port or GATEHOUSE_PORT says otherwise. A port chosen after a clash is saved here.'
    : 'Takes effect at the next start, unless --port or GATEHOUSE_PORT says otherwise. 0 picks a free port.';

export function SettingsPage() {
  const settings = useSettingsStore((state) => state.settings);
  const status = useSettingsStore((state) => state.status);
  const loadError = useSettingsStore((state) => state.loadError);
  const saving = useSettingsStore((state) => state.saving);
  const saveError = useSettingsStore((state) => state.saveError);
  const { load, save } = useSettingsStore.getState();
  const version = useSessionStore((state) => state.version);
  const showToast = useToastStore((state) => state.show);
  const [draft, setDraft] = useState<SettingsDraft | null>(null);

  useEffect(() => {
    void load();
  }, [load]);
  useEffect(() => {
    if (settings) setDraft(draftOf(settings));
  }, [settings]);

  // Appearance is the browser's own and the team gateway this computer's, so both stay at hand while the
  // managed gateway's settings cannot load (a team token to fix, say).
  if (status === 'loading' && !settings) return <div className="page page-narrow"><AppearanceCard /><TeamGatewayCard /><LoadingState label="Loading settings" /></div>;
  if (status === 'error' && !settings) return <div className="page page-narrow"><AppearanceCard /><TeamGatewayCard /><ErrorNotice title="Could not load settings" message={loadError ?? ''} onRetry={() => void load()} /></div>;
  if (!settings || !draft) return null;

  const localErrors: Partial<Record<EditableSetting, string>> = {};
  for (const name of ['host', 'port', 'retentionDays', 'maxLogRows'] as const) {
    const error = settingError(name, draft[name]);
    if (error) localErrors[name] = error;
  }
  const fieldError = (name: EditableSetting) => localErrors[name] ?? (saveError?.param === name ? saveError.message : null);
  const isDirty = JSON.stringify(draft) !== JSON.stringify(draftOf(settings));
  const portNumber = Number(draft.port);
  const listenChanged = draft.host.trim() !== settings.host || portNumber !== settings.port;
  const listening = settings.listening ?? { host: settings.host, port: settings.port };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (Object.keys(localErrors).length) return;
    const saved = await save({
      host: draft.host.trim(),
      port: portNumber,
      retentionDays: Number(draft.retentionDays),
      maxLogRows: Number(draft.maxLogRows),
      storeBodies: draft.storeBodies,
      mcpKeyDefault: draft.mcpKeyDefault,
    });
    if (saved) showToast(listenChanged ? 'Saved. Restart Gatehouse to listen on the new address.' : 'Settings saved');
  };

  return (
    <div className="page page-narrow">
      <header className="page-header">
        <div>
          <h1>Settings</h1>
          <p className="page-subtitle">
            Gatehouse {version ? `v${version}` : ''} · listening on <code>{listening.host}:{listening.port}</code>
          </p>
        </div>
      </header>

      <AppearanceCard />
      <TeamGatewayCard />
      <KeyProtectionCard settings={settings} />

      <form className="stack" onSubmit={onSubmit} noValidate>
        <section className="card" aria-labelledby="network-heading">
          <h2 id="network-heading" className="card-title">
            Network
          </h2>
          <div className="form-grid">
            <Field label="Bind address" error={fieldError('host')} hint="127.0.0.1 keeps Gatehouse on this machine. Other addresses need --allow-remote.">
              <input className="input input-mono" value={draft.host} onChange={(event) => setDraft({ ...draft, host: event.target.value })} />
            </Field>
            <Field label="Port" error={fieldError('port')} hint={PORT_HINT}>
              <input className="input input-mono" type="number" min={0} max={65535} value={draft.port} onChange={(event) => setDraft({ ...draft, port: event.target.value })} />
            </Field>
          </div>
        </section>

        <section className="card" aria-labelledby="logging-heading">
          <h2 id="logging-heading" className="card-title">
            Request log
          </h2>
          <div className="form-grid">
            <Field label="Keep logs for (days)" error={fieldError('retentionDays')} hint="Older entries are deleted automatically, and leave the Usage figures with them (key budgets keep their own count).">
              <input className="input" type="number" min={1} value={draft.retentionDays} onChange={(event) => setDraft({ ...draft, retentionDays: event.target.value })} />
            </Field>
            <Field label="Keep at most (rows)" error={fieldError('maxLogRows')} hint="The oldest rows go first once the log is this long.">
              <input className="input" type="number" min={1000} step={1000} value={draft.maxLogRows} onChange={(event) => setDraft({ ...draft, maxLogRows: event.target.value })} />
            </Field>
            <div className="field full-width">
              <span className="field-label">Bodies</span>
              <label className="switch">
                <input type="checkbox" role="switch" checked={draft.storeBodies} onChange={(event) => setDraft({ ...draft, storeBodies: event.target.checked })} />
                <span className="switch-track" aria-hidden="true" />
                <span>Store request and response bodies</span>
              </label>
              <p className="field-hint">Off keeps only timing, status and token counts: prompts and answers are not written to disk.</p>
            </div>
          </div>
        </section>

        <section className="card" aria-labelledby="mcp-default-heading">
          <h2 id="mcp-default-heading" className="card-title">
            MCP servers
          </h2>
          <div className="field full-width">
            <span className="field-label">Keys that name no MCP server</span>
            <SegmentedControl<Settings['mcpKeyDefault']>
              label="Keys that name no MCP server"
              options={[
                { value: 'allow', label: 'Reach every server' },
                { value: 'deny', label: 'Reach none until allowed' },
              ]}
              value={draft.mcpKeyDefault}
              onChange={(mcpKeyDefault) => setDraft({ ...draft, mcpKeyDefault })}
            />
            <p className="field-hint">A key’s own choice (Keys → a key → MCP servers) wins. “None until allowed” keeps every key away from tool servers until you give it some.</p>
          </div>
        </section>

        <section className="card" aria-labelledby="data-heading">
          <h2 id="data-heading" className="card-title">
            Data folder
          </h2>
          <div className="kv-copy">
            <Icon name="folder" />
            <code className="truncate" title={settings.dataDir}>
              {settings.dataDir}
            </code>
            <CopyButton text={settings.dataDir} what="data folder path" compact variant="ghost" />
          </div>
          <p className="muted small">Holds the database (keys, request log, settings) and the admin token. Back it up to move Gatehouse to another machine.</p>
        </section>

        {saveError && !['host', 'port', 'retentionDays', 'maxLogRows'].includes(saveError.param ?? '') && <ErrorNotice title="Could not save" message={saveError.message} />}

        <div className="form-footer">
          <button type="button" className="button button-secondary" disabled={!isDirty || saving} onClick={() => setDraft(draftOf(settings))}>
            Discard changes
          </button>
          <button type="submit" className="button button-primary" disabled={!isDirty || saving || Object.keys(localErrors).length > 0}>
            {saving ? 'Saving…' : 'Save settings'}
          </button>
        </div>
      </form>

      <ModelOverrides />
      <DiscoveryPortsCard settings={settings} />
    </div>
  );
}
