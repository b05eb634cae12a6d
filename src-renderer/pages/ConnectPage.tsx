// Connect a tool: ready set-ups for Claude Code, Codex, OpenCode, the openai and anthropic SDKs and
// curl, with this gateway's address and a key written in. The key typed here stays in memory; when it is
// one of this gateway's virtual keys (its shown prefix matches), the Model is picked among its models.
import { Fragment, useEffect, useMemo, useState } from 'react';
import { CopyButton } from '../components/CopyButton';
import { Field } from '../components/Field';
import { Icon } from '../components/Icon';
import { MODEL_PLACEHOLDER, TOOL_GROUPS, toolSetups } from '../connect/tool-setups';
import { usePlaygroundStore } from '../stores/playground-store';
import { useRouteStore } from '../stores/route-store';
import { useGatewayOrigin } from '../stores/session-store';
import { useKeysStore } from '../stores/keys-store';
import { KeyModelPicker, useKeyModel } from './keys/KeyModelPicker';
import { McpSetups } from './connect/McpSetups';
import { ToolSetupTabs } from './connect/ToolSetupView';

const GROUP_INTROS: Record<(typeof TOOL_GROUPS)[number], string> = {
  'Coding agents': 'Each agent speaks its own API; Gatehouse answers all three and translates for the provider behind the key.',
  SDKs: 'The official SDKs, pointed at Gatehouse instead of the vendor.',
  curl: 'One request on each API, to check the set-up from a shell.',
};

export function ConnectPage() {
  // A key pasted in the Playground is offered here too (both stay in memory only).
  const playgroundKey = usePlaygroundStore((state) => (state.authKind === 'virtual-key' ? state.virtualKey : ''));
  const playgroundModel = usePlaygroundStore((state) => state.model);
  const navigate = useRouteStore((state) => state.navigate);
  const [key, setKey] = useState(playgroundKey);
  const [typedModel, setTypedModel] = useState(playgroundModel);
  const virtualKeys = useKeysStore((state) => state.virtualKeys);
  const loadKeys = useKeysStore((state) => state.load);
  useEffect(() => {
    void loadKeys();
  }, [loadKeys]);
  // The key's own record, found by the prefix the Keys page shows (the full key is never stored readable).
  const knownKey = useMemo(() => {
    const typed = key.trim();
    const matches = typed.startsWith('gh-vk-') ? virtualKeys.filter((item) => typed.startsWith(item.keyPrefix)) : [];
    return matches.length === 1 ? matches[0] : null;
  }, [key, virtualKeys]);
  const picked = useKeyModel(knownKey?.id ?? null);
  const model = knownKey ? picked.model : typedModel;
  // While the app manages the team, tools are set up for the team's gateway, not this computer's.
  const origin = useGatewayOrigin();
  const setups = useMemo(() => toolSetups({ origin, key: key.trim() || null, model }), [origin, key, model]);
  // A gateway key reaches MCP servers (and models with the provider's own token), not the model set-ups here.
  const isGatewayKey = key.trim().startsWith('gh-gk-');
  const keyLooksWrong = key.trim() !== '' && !key.trim().startsWith('gh-vk-') && !isGatewayKey;

  return (
    <div className="page page-connect">
      <header className="page-header">
        <div>
          <h1>Connect a tool</h1>
          <p className="page-subtitle">Copy a set-up: the gateway’s address and your key are already in it.</p>
        </div>
      </header>

      <section className="card connect-inputs" aria-label="What to write in">
        <div className="kv-copy">
          <span className="kv-copy-label">Address</span>
          <code>{origin}</code>
          <CopyButton text={origin} what="gateway address" compact variant="ghost" />
        </div>
        <div className="connect-fields">
          <Field
            label="Virtual key"
            hint={
              isGatewayKey ? (
                'A gateway key: the MCP set-ups below work with it; the model set-ups need a virtual key (gh-vk-…).'
              ) : (
                <>
                  Shown once when it was created; it is kept in this window only.{' '}
                  <button type="button" className="link-button" onClick={() => navigate('keys')}>
                    Create one in Keys
                  </button>
                </>
              )
            }
            error={keyLooksWrong ? 'Tools connect with a virtual key (gh-vk-…): it names the provider and its credentials.' : undefined}
          >
            <input className="input input-mono" value={key} spellCheck={false} autoComplete="off" placeholder="gh-vk-…" onChange={(event) => setKey(event.target.value)} />
          </Field>
          {knownKey ? (
            <KeyModelPicker keyId={knownKey.id} value={model} onChange={picked.setModel} />
          ) : (
            <Field label="Model" hint="Any model the key’s provider serves.">
              <input className="input input-mono" value={typedModel} spellCheck={false} placeholder={MODEL_PLACEHOLDER} onChange={(event) => setTypedModel(event.target.value)} />
            </Field>
          )}
        </div>
        {!key.trim() && (
          <p className="muted small">
            <Icon name="alert" size={14} /> No key yet: the set-ups say <code>YOUR_GATEHOUSE_KEY</code> where it goes.
          </p>
        )}
      </section>

      {TOOL_GROUPS.map((group) => (
        <Fragment key={group}>
          <section className="card" aria-label={group}>
            <h2 className="card-title">{group}</h2>
            <p className="muted small">{GROUP_INTROS[group]}</p>
            <ToolSetupTabs label={group} setups={setups.filter((setup) => setup.group === group)} maxHeight={420} />
          </section>
          {/* The agents' tool servers, right after their models. */}
          {group === 'Coding agents' && <McpSetups origin={origin} keyText={key} />}
        </Fragment>
      ))}
    </div>
  );
}
