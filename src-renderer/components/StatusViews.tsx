// The in-place states every page shares: loading, empty, and errors shown where they happened.
import type { ReactNode } from 'react';
import { Icon, type IconName } from './Icon';

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
