// Settings → Team gateway: the address and admin token of a team deployment this app can manage. They are
// kept by this computer's gateway (the token sealed, never shown again), which relays the pages' calls to
// the team; this card always speaks to this computer's admin API, whichever gateway the pages manage.
import { useEffect, useState, type FormEvent } from 'react';
import { ApiError, describeError } from '../../api/api-error';
import { Field } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { switchManagedGateway } from '../../stores/managed-gateway';
import { requireLocalAdminClient, teamHost, useSessionStore } from '../../stores/session-store';
import { useToastStore } from '../../stores/toast-store';

const STORAGE_NAMES: Record<string, string> = { sqlite: 'SQLite', postgresql: 'PostgreSQL' };

export function TeamGatewayCard() {
  const team = useSessionStore((state) => state.teamGateway);
  const managing = useSessionStore((state) => state.managing);
  const setTeamGateway = useSessionStore((state) => state.setTeamGateway);
  const loadTeamGateway = useSessionStore((state) => state.loadTeamGateway);
  const showToast = useToastStore((state) => state.show);
  const [address, setAddress] = useState(team?.address ?? '');
  const [token, setToken] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; param: string | null } | null>(null);

  useEffect(() => {
    void loadTeamGateway();
  }, [loadTeamGateway]);
  useEffect(() => {
    if (team?.address) setAddress(team.address);
  }, [team?.address]);

  if (team && !team.available) return null;

  const onConnect = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const saved = await requireLocalAdminClient().saveTeamGateway(address.trim(), token.trim());
      setTeamGateway(saved);
      setToken('');
      showToast(`Connected to the team gateway at ${teamHost(saved.address ?? '')}`);
    } catch (failure) {
      const param = failure instanceof ApiError ? (failure.code === 'team_token_refused' ? 'token' : failure.param) : null;
      setError({ message: describeError(failure), param });
    } finally {
      setBusy(false);
    }
  };

  const onDisconnect = async () => {
    setBusy(true);
    setError(null);
    try {
      if (managing === 'team') switchManagedGateway('local');
      await requireLocalAdminClient().forgetTeamGateway();
      setTeamGateway({ available: true, address: null, tokenSet: false });
      setAddress('');
      setToken('');
      showToast('Team gateway removed: this app manages this computer only');
    } catch (failure) {
      setError({ message: describeError(failure), param: null });
    } finally {
      setBusy(false);
    }
  };

  const saved = team?.address ? team : null;
  const remote = saved?.remote;
  const sameAddress = saved !== null && address.trim().replace(/\/+$/, '') === saved.address;
  return (
    <section className="card team-gateway-card" aria-labelledby="team-gateway-heading">
      <h2 id="team-gateway-heading" className="card-title">
        Team gateway
      </h2>
      <p className="muted small">
        Manage a team’s Gatehouse from this app: its keys, routes, log and usage. This computer’s gateway keeps serving as it is; the token stays here, sealed like your provider secrets.
      </p>
      <form className="stack" onSubmit={onConnect} noValidate>
        <div className="form-grid">
          <Field label="Address" error={error?.param === 'address' ? error.message : null} hint="https://, or http:// for this machine only (127.0.0.1, localhost).">
            <input className="input input-mono" value={address} spellCheck={false} autoComplete="off" placeholder="https://gatehouse.example.com" onChange={(event) => setAddress(event.target.value)} />
          </Field>
          <Field
            label="Admin token"
            error={error?.param === 'token' ? error.message : null}
            hint={saved && sameAddress ? 'Saved. Type a new one to replace it.' : 'The team’s GATEHOUSE_ADMIN_TOKEN.'}
          >
            <input
              className="input input-mono"
              type="password"
              value={token}
              spellCheck={false}
              autoComplete="off"
              placeholder={saved && sameAddress ? '••••••••' : 'Admin token'}
              onChange={(event) => setToken(event.target.value)}
            />
          </Field>
        </div>
        {saved && (
          <div className={`team-gateway-status ${saved.connected ? 'team-gateway-ok' : 'team-gateway-down'}`} role="status">
            <Icon name={saved.connected ? 'check' : 'alert'} size={16} />
            {saved.connected ? (
              <span>
                Connected to <strong>{teamHost(saved.address ?? '')}</strong>
                {remote?.version ? ` · Gatehouse v${remote.version}` : ''}
                {remote?.storage ? ` · ${STORAGE_NAMES[remote.storage] ?? remote.storage}` : ''}
                {remote?.instance ? (
                  <>
                    {' · instance '}
                    <strong title={`Instance id ${remote.instance}; its name is set with --instance-name (GATEHOUSE_INSTANCE_NAME)`}>{remote.instanceName ?? remote.instance}</strong>
                  </>
                ) : (
                  ''
                )}
              </span>
            ) : (
              <span>{saved.error?.message ?? `The team gateway at ${saved.address} does not answer`}</span>
            )}
          </div>
        )}
        {error && error.param !== 'address' && error.param !== 'token' && (
          <div className="notice notice-danger" role="alert">
            <Icon name="alert" size={18} />
            <div className="notice-body">
              <span>{error.message}</span>
            </div>
          </div>
        )}
        <div className="form-footer">
          {saved && (
            <button type="button" className="button button-secondary" disabled={busy} onClick={() => void onDisconnect()}>
              Disconnect
            </button>
          )}
          {saved?.connected && managing === 'local' && (
            <button type="button" className="button button-secondary" disabled={busy} onClick={() => switchManagedGateway('team')}>
              Manage the team
            </button>
          )}
          <button type="submit" className="button button-primary" disabled={busy || !address.trim() || (!token.trim() && !(saved && sameAddress))}>
            {busy ? 'Checking…' : saved && sameAddress ? 'Check again' : 'Connect'}
          </button>
        </div>
      </form>
    </section>
  );
}
