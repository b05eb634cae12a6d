// The in-place states every page shares: loading, empty, and errors shown where they happened.
import { useEffect, useRef, type ReactNode } from 'react';
import { Icon, type IconName } from './Icon';
import { useSessionStore } from '../stores/session-store';

/** Calls `retry` each time the gateway answers again after it was unreachable (not on mount). */
function useRetryWhenGatewayReturns(retry: (() => void) | undefined) {
  const reconnects = useSessionStore((state) => state.reconnects);
  const seen = useRef(reconnects);
  const latestRetry = useRef(retry);
  latestRetry.current = retry;
  useEffect(() => {
    if (reconnects === seen.current) return;
    seen.current = reconnects;
    latestRetry.current?.();
  }, [reconnects]);
}

export function Spinner({ label = 'Loading' }: { label?: string }) {
  return <span className="spinner" role="status" aria-label={label} />;
}

export function LoadingState({ label }: { label: string }) {
  return (
    <div className="state state-loading">
      <Spinner label={label} />
      <span>{label}…</span>
    </div>
  );
}

export function EmptyState({ icon, title, children, action }: { icon: IconName; title: string; children?: ReactNode; action?: ReactNode }) {
  return (
    <div className="state state-empty">
      <div className="state-icon">
        <Icon name={icon} size={22} />
      </div>
      <h3>{title}</h3>
      {children && <p>{children}</p>}
      {action}
    </div>
  );
}

export function ErrorNotice({ title, message, onRetry }: { title?: string; message: string; onRetry?: () => void }) {
  // What failed while the gateway was down loads again by itself when it returns; Retry stays for other failures.
  useRetryWhenGatewayReturns(onRetry);
  return (
    <div className="notice notice-danger" role="alert">
      <Icon name="alert" size={18} />
      <div className="notice-body">
        {title && <strong>{title}</strong>}
        <span>{message}</span>
      </div>
      {onRetry && (
        <button type="button" className="button button-secondary button-small" onClick={onRetry}>
          <Icon name="refresh" />
          Retry
        </button>
      )}
    </div>
  );
}
