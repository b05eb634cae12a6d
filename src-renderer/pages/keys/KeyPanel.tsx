// One key's details and every action on it, opened from its row in the keys table: what the key is
// (provider, host, models, limits, routing, MCP servers, spend, dates) with a plainly named action beside
// each setting, Test connection for a virtual key (also run after its host changes), and Use, Rename,
// Rotate and Revoke at the bottom. The panel reads the key from the store,
// so what an action saves shows at once; a key revoked elsewhere closes it.
import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { describeError } from '../../api/api-error';
import type { GatewayKey, VirtualKey } from '../../api/types';
import { Dialog } from '../../components/Dialog';
import { formatFullTime, formatRelativeTime } from '../../components/format';
import { Icon } from '../../components/Icon';
import { keyNameProblem } from '../../keys/key-name';
import { describeKeyModels } from '../../keys/model-map';
import { useKeysStore } from '../../stores/keys-store';
import { useKeyLimitsStore } from '../../stores/key-limits-store';
import { useSettingsStore } from '../../stores/settings-store';
import { useToastStore } from '../../stores/toast-store';
import { ConnectionTest } from './ConnectionTest';
import { EditKeyHostDialog } from './EditKeyHostDialog';
import { ConfirmRevokeDialog, KeyModelsDialog, RotateKeyDialog, RoutingSwitch } from './KeyDialogs';
import { KeyHost } from './KeyHost';
import { KeyLimitMeters, KeyLimitsDialog } from './KeyLimits';
import { KeyMcpServersDialog, describeMcpAccess } from './KeyMcpServers';
import { KeyModelAccessDialog, describeModelAccess } from './KeyModelAccess';
import { KeySpend } from './KeySpend';
import { KeyUsage } from './KeyUsage';

export type KeyPanelTarget = { kind: 'virtual'; key: VirtualKey; providerName: string; defaultBaseUrl: string | null } | { kind: 'gateway'; key: GatewayKey };

type Action = 'host' | 'models' | 'allowed' | 'limits' | 'mcp' | 'use' | 'rotate' | 'revoke' | null;

function RenameForm({ currentName, rename, onDone }: { currentName: string; rename(name: string): Promise<void>; onDone(): void }) {
  const [name, setName] = useState(currentName);
  const [error, setError] = useState<string | null>(null);
  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    if (name.trim() === currentName) return onDone();
    const problem = keyNameProblem(name);
    if (problem) return setError(problem);
    try {
      await rename(name.trim());
      onDone();
    } catch (caught) {
      setError(describeError(caught));
    }
  };
  return (
    <form className="rename-form" onSubmit={onSubmit}>
      <input
        className="input input-compact"
        aria-label={`New name for ${currentName}`}
        value={name}
        autoFocus
        onChange={(event) => setName(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === 'Escape') {
            // Escape closes the rename field, not the panel around it.
            event.preventDefault();
            event.stopPropagation();
            onDone();
          }
        }}
      />
      <button type="submit" className="button button-primary button-small">
        Save
      </button>
      <button type="button" className="button button-ghost button-small" onClick={onDone}>
        Cancel
      </button>
      {error && <span className="field-error">{error}</span>}
    </form>
  );
}

/** One setting of the key: its plain name, what it is now, and the button that changes it (or tests it). */
function Setting({ label, action, verb = 'Change', onChange, children }: { label: string; action?: string; verb?: string; onChange?(): void; children: ReactNode }) {
  return (
    <div className="key-setting">
      <dt>{label}</dt>
      <dd>{children}</dd>
      <dd className="key-setting-action">
        {onChange && (
          <button type="button" className="button button-ghost button-small" onClick={onChange}>
            {verb}
            <span className="visually-hidden"> {action ?? label.toLowerCase()}</span>
          </button>
        )}
      </dd>
    </div>
  );
}

/** The routing switch: saved as it is flipped; a refusal is shown and the switch stays as it was. */
function KeyRoutingToggle({ virtualKey }: { virtualKey: VirtualKey }) {
  const setVirtualKeyRouting = useKeysStore((state) => state.setVirtualKeyRouting);
  const showToast = useToastStore((state) => state.show);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const flip = async (allow: boolean) => {
    setSaving(true);
    setError(null);
    try {
      await setVirtualKeyRouting(virtualKey.id, allow);
      showToast(allow ? `Routes may serve other keys with ${virtualKey.name}` : `Only gateway keys and ${virtualKey.name} itself reach it through routes`);
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setSaving(false);
    }
  };
  return (
    <div className="key-routing">
      <RoutingSwitch checked={virtualKey.allowRouting === true} disabled={saving} subject={virtualKey.name} onChange={(allow) => void flip(allow)} />
      {error && <span className="field-error">{error}</span>}
    </div>
  );
}

export function KeyPanel({ target, onClose }: { target: KeyPanelTarget; onClose(): void }) {
  const { key, kind } = target;
  const renameVirtualKey = useKeysStore((state) => state.renameVirtualKey);
  const renameGatewayKey = useKeysStore((state) => state.renameGatewayKey);
  const revokeVirtualKey = useKeysStore((state) => state.revokeVirtualKey);
  const revokeGatewayKey = useKeysStore((state) => state.revokeGatewayKey);
  const allowed = useKeysStore((state) => state.allowedModels[key.id]);
  const limitsView = useKeyLimitsStore((state) => state.byKey[key.id]);
  const showToast = useToastStore((state) => state.show);
  // What a key that names no MCP server gets unless it says otherwise (Settings → MCP servers).
  const mcpKeyDefault = useSettingsStore((state) => state.settings?.mcpKeyDefault ?? 'allow');
  const settingsStatus = useSettingsStore((state) => state.status);
  useEffect(() => {
    if (settingsStatus === 'idle') void useSettingsStore.getState().load();
  }, [settingsStatus]);
  const [renaming, setRenaming] = useState(false);
  const [action, setAction] = useState<Action>(null);
  // Each Test connection (a click, a host just changed) mounts a fresh test, which asks the host at once.
  const [connectionTests, setConnectionTests] = useState(0);
  const testConnection = () => setConnectionTests((count) => count + 1);
  const closeAction = () => setAction(null);
  const done = (message: string) => {
    setAction(null);
    showToast(message);
  };

  const rename = (name: string) => (kind === 'virtual' ? renameVirtualKey(key.id, name) : renameGatewayKey(key.id, name));
  const revoke = async () => {
    await (kind === 'virtual' ? revokeVirtualKey(key.id) : revokeGatewayKey(key.id));
    showToast(`Revoked ${key.name}`);
    onClose();
  };
  const kindLabel = kind === 'virtual' ? `Virtual key · ${target.providerName}` : 'Gateway API key';

  return (
    <Dialog title={key.name} description={`${kindLabel} · ${key.keyPrefix}…`} onClose={onClose} size="large">
      <div className="key-panel">
        {renaming && <RenameForm currentName={key.name} rename={rename} onDone={() => setRenaming(false)} />}
        <dl className="key-settings">
          {kind === 'virtual' && (
            <Setting label="Host" onChange={() => setAction('host')}>
              {key.customHost ? <KeyHost url={key.customHost} /> : <span className="muted">Provider default{target.defaultBaseUrl ? ` (${target.defaultBaseUrl})` : ''}</span>}
              {key.chatOnly && (
                <span className="badge" title="Its server speaks Chat Completions only: Responses calls (Codex) are translated to Chat">
                  Chat only
                </span>
              )}
            </Setting>
          )}
          {kind === 'virtual' && (
            <Setting label="Default model" onChange={() => setAction('models')}>
              <span className="mono" title={Object.entries(key.modelMap ?? {}).map(([from, to]) => `${from} → ${to}`).join('\n') || undefined}>
                {describeKeyModels(key) || <span className="muted">None: requests name their model</span>}
              </span>
              {Object.entries(key.settings ?? {}).map(([name, value]) => (
                <span key={name} className="muted small" title={name}>
                  {name.split('.').pop()}: {value}
                </span>
              ))}
            </Setting>
          )}
          {kind === 'virtual' && (
            <Setting label="Connection" verb="Test" action="connection" onChange={testConnection}>
              <span className="muted">Asks the host for its models with the key’s secret</span>
            </Setting>
          )}
          <Setting label="Allowed models" onChange={() => setAction('allowed')}>
            <span className="key-setting-text">{describeModelAccess(allowed)}</span>
          </Setting>
          <Setting label="Limits" onChange={() => setAction('limits')}>
            <KeyLimitMeters keyId={key.id} keyName={key.name} />
          </Setting>
          {kind === 'virtual' && (
            <Setting label="Routing">
              <KeyRoutingToggle virtualKey={key} />
            </Setting>
          )}
          <Setting label="MCP servers" action="MCP servers" onChange={() => setAction('mcp')}>
            <span className="key-setting-text">{describeMcpAccess(key.mcpServers, key.mcpTools, key.mcpDefault, mcpKeyDefault)}</span>
          </Setting>
          <Setting label="Spend">
            <KeySpend keyId={key.id} keyName={key.name} />
          </Setting>
          <Setting label="Used">
            <span title={key.lastUsedAt ? formatFullTime(key.lastUsedAt) : undefined}>Last {formatRelativeTime(key.lastUsedAt)}</span>
            <span className="muted" title={formatFullTime(key.createdAt)}>
              Created {formatRelativeTime(key.createdAt)}
            </span>
          </Setting>
        </dl>
        {kind === 'virtual' && connectionTests > 0 && <ConnectionTest key={connectionTests} keyId={key.id} />}
        <div className="dialog-actions key-panel-actions">
          <button type="button" className="button button-secondary" onClick={() => setAction('use')}>
            <Icon name="code" />
            Use
          </button>
          <button type="button" className="button button-secondary" onClick={() => setRenaming(true)}>
            <Icon name="edit" />
            Rename
          </button>
          {kind === 'virtual' && (
            <button type="button" className="button button-secondary" onClick={() => setAction('rotate')}>
              <Icon name="rotate" />
              Rotate credential
            </button>
          )}
          <button type="button" className="button button-ghost button-danger-text" onClick={() => setAction('revoke')}>
            <Icon name="trash" />
            Revoke
          </button>
        </div>
      </div>

      {action === 'host' && kind === 'virtual' && (
        <EditKeyHostDialog
          virtualKey={key}
          onClose={closeAction}
          onSaved={(message, newHost) => {
            done(message);
            if (newHost) testConnection();
          }}
        />
      )}
      {action === 'models' && kind === 'virtual' && <KeyModelsDialog virtualKey={key} onClose={closeAction} onSaved={() => done(`Saved the models of ${key.name}`)} />}
      {action === 'rotate' && kind === 'virtual' && <RotateKeyDialog virtualKey={key} onClose={closeAction} onRotated={() => done('Credential rotated')} />}
      {action === 'allowed' && <KeyModelAccessDialog keyRef={{ id: key.id, name: key.name }} current={allowed ?? null} onClose={closeAction} />}
      {action === 'limits' && <KeyLimitsDialog keyId={key.id} keyName={key.name} view={limitsView} onClose={closeAction} />}
      {action === 'mcp' && <KeyMcpServersDialog keyRef={{ kind, id: key.id, name: key.name, mcpServers: key.mcpServers, mcpTools: key.mcpTools, mcpDefault: key.mcpDefault }} globalDefault={mcpKeyDefault} onClose={closeAction} />}
      {action === 'revoke' && <ConfirmRevokeDialog kind={kind} name={key.name} onClose={closeAction} onConfirm={revoke} />}
      {action === 'use' && (
        <Dialog title={`Use “${key.name}”`} description={kind === 'virtual' ? 'Set-ups for coding tools, SDKs and curl, with this gateway’s address.' : 'The full key was shown once when it was created; these examples read it from an environment variable.'} onClose={closeAction} size="large">
          <KeyUsage kind={kind} keyId={key.id} provider={kind === 'virtual' ? key.provider : null} />
        </Dialog>
      )}
    </Dialog>
  );
}
