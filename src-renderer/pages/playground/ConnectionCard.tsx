// How the Playground authenticates: a virtual key picked by name (run by the admin API, so neither
// the key nor its secret reaches the page), a pasted virtual key, or a provider with its own token
// (and a gateway API key, which the gateway needs whenever no virtual key is sent).
import { useEffect } from 'react';
import { Field } from '../../components/Field';
import { SegmentedControl } from '../../components/SegmentedControl';
import { buildGatewayOptionHeaders, REQUEST_TIMEOUT_BOUND, RETRY_COUNT_BOUND, type GatewayOptionValues } from '../../playground/gateway-options';
import { LOCAL_SERVER_PRESETS, usePlaygroundStore, type AuthKind } from '../../stores/playground-store';
import { useKeysStore } from '../../stores/keys-store';
import { useRouteStore } from '../../stores/route-store';
import type { VirtualKey } from '../../api/types';
import { KIND_NAMES } from '../../stores/local-servers-store';
import { sameBaseUrl, useLocalServers } from '../../playground/local-models';

/** The keys to pick from, by name; the provider and host say which is which when names are alike. */
export function VirtualKeyOptions({ keys }: { keys: VirtualKey[] }) {
  return (
    <>
      {keys.map((key) => (
        <option key={key.id} value={key.id}>
          {`${key.name} · ${key.provider}${key.customHost ? ` · ${key.customHost}` : ''}`}
        </option>
      ))}
    </>
  );
}

/** Loads the virtual keys once for the pickers (the Keys page reloads them as they change). */
export function useVirtualKeys(): { keys: VirtualKey[]; loaded: boolean } {
  const keys = useKeysStore((state) => state.virtualKeys);
  const status = useKeysStore((state) => state.status);
  const load = useKeysStore((state) => state.load);
  useEffect(() => {
    if (status === 'idle') void load();
  }, [status, load]);
  return { keys, loaded: status === 'ready' };
}

function KeyPicker({ error }: { error?: string }) {
  const keyId = usePlaygroundStore((state) => state.keyId);
  const update = usePlaygroundStore((state) => state.update);
  const navigate = useRouteStore((state) => state.navigate);
  const { keys, loaded } = useVirtualKeys();
  const chosen = keys.find((key) => key.id === keyId);
  // The first key is picked for a person who has not chosen one yet: one click less to a first run.
  useEffect(() => {
    if (loaded && !keyId && keys.length) update({ keyId: keys[0].id });
  }, [loaded, keyId, keys, update]);
  if (loaded && !keys.length) {
    return (
      <p className="muted small key-picker-empty">
        No virtual keys yet.{' '}
        <button type="button" className="link-button" onClick={() => navigate('keys')}>
          Make one on the Keys page
        </button>
        , then pick it here by name.
      </p>
    );
  }
  const missing = loaded && keyId && !chosen ? 'That key is revoked or gone: choose another' : undefined;
  return (
    <Field label="Key" hint="Runs as this virtual key: its provider, credentials and host. The key and its secret stay in Gatehouse." error={error ?? missing}>
      <select className="input" value={chosen ? keyId : ''} onChange={(event) => update({ keyId: event.target.value })}>
        {!chosen && <option value="">{loaded ? 'Choose a key…' : 'Loading keys…'}</option>}
        <VirtualKeyOptions keys={keys} />
      </select>
    </Field>
  );
}

function GatewayOptions({ errors }: { errors: Partial<Record<keyof GatewayOptionValues, string>> }) {
  const options = usePlaygroundStore((state) => state.gatewayOptions);
  const updateGatewayOptions = usePlaygroundStore((state) => state.updateGatewayOptions);
  const hasError = Object.keys(errors).length > 0;
  const isSet = Object.values(options).some((value) => value.trim());
  return (
    <details className="disclosure" open={hasError || isSet || undefined}>
      <summary>Gateway options</summary>
      <div className="disclosure-body">
        <div className="form-grid form-grid-2">
        <Field label="Trace id" hint="x-gateway-trace-id: find this run in the Logs by it.">
          <input className="input input-mono" spellCheck={false} value={options.traceId} onChange={(event) => updateGatewayOptions({ traceId: event.target.value })} />
        </Field>
        <Field label="Metadata" hint='x-gateway-metadata, e.g. {"team": "search"}' error={errors.metadata}>
          <input className="input input-mono" spellCheck={false} value={options.metadata} onChange={(event) => updateGatewayOptions({ metadata: event.target.value })} />
        </Field>
        <Field label="Retries" hint={`x-gateway-retry-count, ${RETRY_COUNT_BOUND.min} to ${RETRY_COUNT_BOUND.max}, on 429, 5xx or connection errors.`} error={errors.retryCount}>
          <input className="input" type="number" min={RETRY_COUNT_BOUND.min} max={RETRY_COUNT_BOUND.max} step={1} placeholder="0" value={options.retryCount} onChange={(event) => updateGatewayOptions({ retryCount: event.target.value })} />
        </Field>
        <Field label="Timeout (ms)" hint="x-gateway-request-timeout: the gateway answers 504 past it." error={errors.requestTimeoutMs}>
          <input className="input" type="number" min={REQUEST_TIMEOUT_BOUND.min} max={REQUEST_TIMEOUT_BOUND.max} step={1000} placeholder="600000" value={options.requestTimeoutMs} onChange={(event) => updateGatewayOptions({ requestTimeoutMs: event.target.value })} />
        </Field>
        </div>
      </div>
    </details>
  );
}

export function ConnectionCard({ errors }: { errors: Partial<Record<string, string>> }) {
  const gatewayOptions = usePlaygroundStore((state) => state.gatewayOptions);
  const authKind = usePlaygroundStore((state) => state.authKind);
  const virtualKey = usePlaygroundStore((state) => state.virtualKey);
  const provider = usePlaygroundStore((state) => state.provider);
  const providerToken = usePlaygroundStore((state) => state.providerToken);
  const customHost = usePlaygroundStore((state) => state.customHost);
  const gatewayApiKey = usePlaygroundStore((state) => state.gatewayApiKey);
  const update = usePlaygroundStore((state) => state.update);
  const providers = useKeysStore((state) => state.providers);
  const loadProviders = useKeysStore((state) => state.loadProviders);

  useEffect(() => {
    void loadProviders();
  }, [loadProviders]);

  // The gateway's own list; until it arrives, the provider already chosen is the one option.
  const providerOptions = providers.length ? providers.map((item) => ({ slug: item.slug, name: item.name })) : [{ slug: provider, name: provider }];
  const defaultBaseUrl = providers.find((item) => item.slug === provider)?.defaultBaseUrl;
  // Servers found running on this machine come first; the fixed presets cover the usual ports otherwise.
  const found = useLocalServers().filter((server) => server.online);
  const presets = LOCAL_SERVER_PRESETS.filter((preset) => !found.some((server) => sameBaseUrl(server.connection.customHost, preset.baseUrl)));

  return (
    <section className="card" aria-labelledby="connection-heading">
      <div className="card-header">
        <h2 id="connection-heading" className="card-title">
          Connection
        </h2>
        <SegmentedControl<AuthKind>
          label="Authenticate with"
          value={authKind}
          onChange={(next) => update({ authKind: next })}
          options={[
            { value: 'key-by-name', label: 'Key by name' },
            { value: 'virtual-key', label: 'Paste a key' },
            { value: 'provider', label: 'Provider + token' },
          ]}
        />
      </div>
      {authKind === 'key-by-name' ? (
        <KeyPicker error={errors.keyId} />
      ) : authKind === 'virtual-key' ? (
        <Field label="Virtual key" hint="A gh-vk- key from the Keys page. It fixes the provider, its credentials and its host." error={errors.virtualKey}>
          <input
            className="input input-mono"
            type="password"
            autoComplete="off"
            spellCheck={false}
            placeholder="gh-vk-…"
            value={virtualKey}
            onChange={(event) => update({ virtualKey: event.target.value })}
          />
        </Field>
      ) : (
        <div className="form-grid form-grid-2">
          <Field label="Provider" error={errors.provider} hint={provider ? undefined : 'The model name picks a route (Routes page); the route holds the keys.'}>
            <select className="input" value={provider} onChange={(event) => update({ provider: event.target.value })}>
              <option value="">None: a route picks it</option>
              {providerOptions.map((option) => (
                <option key={option.slug} value={option.slug}>
                  {option.name}
                </option>
              ))}
            </select>
          </Field>
          <Field label="Custom host" hint={!provider ? 'Not used: each route target’s key has its own host.' : defaultBaseUrl ? `Empty uses ${defaultBaseUrl}` : 'Empty uses the provider’s own address'}>
            <input
              disabled={!provider}
              className="input input-mono"
              type="url"
              spellCheck={false}
              placeholder={defaultBaseUrl ?? 'http://localhost:11434/v1'}
              value={customHost}
              onChange={(event) => update({ customHost: event.target.value })}
            />
          </Field>
          <Field label="Gateway API key" hint="Required when no virtual key is sent." error={errors.gatewayApiKey}>
            <input className="input input-mono" type="password" autoComplete="off" spellCheck={false} value={gatewayApiKey} onChange={(event) => update({ gatewayApiKey: event.target.value })} />
          </Field>
          <Field label="Provider token" hint={provider ? 'Sent as Authorization: Bearer. Local servers usually need none.' : 'Not used: the route’s keys hold the credentials.'}>
            <input disabled={!provider} className="input input-mono" type="password" autoComplete="off" spellCheck={false} value={providerToken} onChange={(event) => update({ providerToken: event.target.value })} />
          </Field>
          <div className="preset-row full-width" role="group" aria-label="Local server presets">
            <span className="preset-label">Local servers</span>
            {found.map((server) => {
              const active = sameBaseUrl(customHost, server.connection.customHost);
              return (
                <button
                  key={server.url}
                  type="button"
                  className={`chip${active ? ' chip-active' : ''}`}
                  aria-pressed={active}
                  title={`Found running at ${server.url}`}
                  onClick={() => update({ provider: server.connection.provider, customHost: server.connection.customHost })}
                >
                  {`${KIND_NAMES[server.kind]} :${server.port}`}
                </button>
              );
            })}
            {presets.map((preset) => (
              <button
                key={preset.label}
                type="button"
                className={`chip${customHost === preset.baseUrl ? ' chip-active' : ''}`}
                aria-pressed={customHost === preset.baseUrl}
                onClick={() => update({ provider: preset.provider, customHost: preset.baseUrl })}
              >
                {preset.label}
              </button>
            ))}
          </div>
        </div>
      )}
      <GatewayOptions errors={buildGatewayOptionHeaders(gatewayOptions).errors} />
    </section>
  );
}
