// Where Gatehouse listens, where it keeps its data, what it logs, and how well keys are protected.
import { useEffect, useState, type FormEvent } from 'react';
import type { Settings } from '../api/types';
import { CopyButton } from '../components/CopyButton';
import { Field } from '../components/Field';
import { Icon } from '../components/Icon';
import { ErrorNotice, LoadingState } from '../components/StatusViews';
import { useSessionStore } from '../stores/session-store';
import { useSettingsStore } from '../stores/settings-store';
import { useToastStore } from '../stores/toast-store';

interface SettingsDraft {
  host: string;
  port: string;
  retentionDays: string;
  storeBodies: boolean;
}

function draftOf(settings: Settings): SettingsDraft {
  return { host: settings.host, port: String(settings.port), retentionDays: String(settings.retentionDays), storeBodies: settings.storeBodies };
}

function KeyProtectionCard({ settings }: { settings: Settings }) {
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

  if (status === 'loading' && !settings) return <div className="page"><LoadingState label="Loading settings" /></div>;
  if (status === 'error' && !settings) return <div className="page"><ErrorNotice title="Could not load settings" message={loadError ?? ''} onRetry={() => void load()} /></div>;
  if (!settings || !draft) return null;

  const portNumber = Number(draft.port);
  const retention = Number(draft.retentionDays);
  const localErrors: Partial<Record<'host' | 'port' | 'retentionDays', string>> = {};
  if (!draft.host.trim()) localErrors.host = 'Enter an address to listen on';
  if (!Number.isInteger(portNumber) || portNumber < 0 || portNumber > 65535) localErrors.port = 'Port must be a whole number from 0 to 65535';
  if (!Number.isInteger(retention) || retention < 1) localErrors.retentionDays = 'Keep logs for at least 1 day';
  const fieldError = (name: 'host' | 'port' | 'retentionDays') => localErrors[name] ?? (saveError?.param === name ? saveError.message : null);
  const isDirty = JSON.stringify(draft) !== JSON.stringify(draftOf(settings));
  const listenChanged = draft.host !== settings.host || portNumber !== settings.port;

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (Object.keys(localErrors).length) return;
    const saved = await save({ host: draft.host.trim(), port: portNumber, retentionDays: retention, storeBodies: draft.storeBodies });
    if (saved) showToast(listenChanged ? 'Saved. Restart Gatehouse to listen on the new address.' : 'Settings saved');
  };

  return (
    <div className="page page-narrow">
      <header className="page-header">
        <div>
          <h1>Settings</h1>
          <p className="page-subtitle">Gatehouse {version ? `v${version}` : ''} · listening on {settings.host}:{settings.port}</p>
        </div>
      </header>

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
            <Field label="Port" error={fieldError('port')} hint="Takes effect after a restart.">
              <input className="input input-mono" type="number" min={0} max={65535} value={draft.port} onChange={(event) => setDraft({ ...draft, port: event.target.value })} />
            </Field>
          </div>
        </section>

        <section className="card" aria-labelledby="logging-heading">
          <h2 id="logging-heading" className="card-title">
            Request log
          </h2>
          <div className="form-grid">
            <Field label="Keep logs for (days)" error={fieldError('retentionDays')} hint="Older entries are deleted automatically.">
              <input className="input" type="number" min={1} value={draft.retentionDays} onChange={(event) => setDraft({ ...draft, retentionDays: event.target.value })} />
            </Field>
            <div className="field">
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

        {saveError && !['host', 'port', 'retentionDays'].includes(saveError.param ?? '') && <ErrorNotice title="Could not save" message={saveError.message} />}

        <div className="form-footer">
          <button type="button" className="button button-secondary" disabled={!isDirty || saving} onClick={() => setDraft(draftOf(settings))}>
            Discard changes
          </button>
          <button type="submit" className="button button-primary" disabled={!isDirty || saving || Object.keys(localErrors).length > 0}>
            {saving ? 'Saving…' : 'Save settings'}
          </button>
        </div>
      </form>
    </div>
  );
}
