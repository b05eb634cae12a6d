// Shown when the page was opened without an admin token, or with one the server no longer accepts.
import { useState, type FormEvent } from 'react';
import { Field } from '../components/Field';
import { Icon } from '../components/Icon';
import { ErrorNotice } from '../components/StatusViews';
import { useSessionStore } from '../stores/session-store';

export function SignInPage() {
  const connection = useSessionStore((state) => state.connection);
  const connectionError = useSessionStore((state) => state.connectionError);
  const signIn = useSessionStore((state) => state.signIn);
  const [token, setToken] = useState('');
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    if (token.trim()) signIn(token.trim());
  };
  return (
    <main className="sign-in">
      <form className="sign-in-card" onSubmit={onSubmit}>
        <div className="sign-in-mark" aria-hidden="true">
          <Icon name="lock" size={22} />
        </div>
        <h1>Open Gatehouse</h1>
        <p className="muted">
          Use the link <code>gatehouse serve</code> printed (it ends in <code>#token=…</code>), or paste the admin token from the
          <code>admin-token</code> file in the data folder.
        </p>
        {connection === 'unauthorized' && (
          <ErrorNotice title="That token was not accepted" message={connectionError ?? 'The server refused the admin token.'} />
        )}
        <Field label="Admin token">
          <input className="input" type="password" autoComplete="off" value={token} onChange={(event) => setToken(event.target.value)} autoFocus />
        </Field>
        <button type="submit" className="button button-primary button-block" disabled={!token.trim()}>
          Continue
        </button>
      </form>
    </main>
  );
}
