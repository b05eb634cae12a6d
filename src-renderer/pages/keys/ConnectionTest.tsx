// Test connection for a virtual key: runs once when shown (a key just made, a host just changed) and on
// "Test again". It never holds anything up: the key is saved already, and the server bounds the check.
import { useEffect } from 'react';
import { Icon } from '../../components/Icon';
import { useKeyModelsStore } from '../../stores/key-models-store';
import './connection-test.css';

/** Ids shown inline; the full list is in the set-ups' Model picker. */
const SHOWN_MODELS = 6;

export function ConnectionTest({ keyId }: { keyId: string }) {
  const test = useKeyModelsStore((state) => state.tests[keyId]);
  const testConnection = useKeyModelsStore((state) => state.testConnection);
  useEffect(() => {
    void testConnection(keyId);
  }, [keyId, testConnection]);

  const again = (
    <button type="button" className="button button-ghost button-small" disabled={!test || test.status === 'testing'} onClick={() => void testConnection(keyId)}>
      <Icon name="refresh" />
      Test again
    </button>
  );
  let body;
  if (!test || test.status === 'testing') {
    body = (
      <p className="muted small connection-test-line">
        <Icon name="refresh" className="spin" size={14} /> Testing the connection: asking the key’s host for its models…
      </p>
    );
  } else if (test.status === 'error' || !test.check) {
    body = <p className="field-error connection-test-line">Could not test the connection: {test.error}</p>;
  } else if (test.check.ok) {
    const { modelIds, models } = test.check;
    body = (
      <div className="connection-test-line">
        <p className="connection-test-ok small">
          <Icon name="check" size={14} /> {test.check.message}
        </p>
        {modelIds.length > 0 && (
          <ul className="connection-test-models" aria-label="Models the host listed">
            {modelIds.slice(0, SHOWN_MODELS).map((id) => (
              <li key={id}>
                <code>{id}</code>
              </li>
            ))}
            {models > SHOWN_MODELS && <li className="muted small">and {models - SHOWN_MODELS} more</li>}
          </ul>
        )}
      </div>
    );
  } else {
    body = (
      <div className="notice notice-warning connection-test-line" data-reason={test.check.reason ?? undefined}>
        <Icon name="alert" size={18} />
        <div className="notice-body">
          <strong>Nothing answered with a model list.</strong>
          <span>{test.check.message}</span>
        </div>
      </div>
    );
  }
  return (
    <section className="connection-test stack-small" aria-label="Test connection" aria-live="polite" aria-busy={!test || test.status === 'testing'}>
      <div className="connection-test-header">
        <h3 className="subheading">Test connection</h3>
        {again}
      </div>
      {body}
      {test?.check?.warnings.map((warning) => (
        <p key={warning} className="muted small">
          {warning}
        </p>
      ))}
    </section>
  );
}
