// Where the toasts of the toast store appear, announced politely to screen readers.
import { useToastStore } from '../stores/toast-store';
import { Icon } from './Icon';

export function Toaster() {
  const toasts = useToastStore((state) => state.toasts);
  return (
    <div className="toaster" role="status" aria-live="polite">
      {toasts.map((toast) => (
        <div key={toast.id} className={`toast toast-${toast.tone}`}>
          <Icon name={toast.tone === 'success' ? 'check' : 'alert'} />
          {toast.message}
        </div>
      ))}
    </div>
  );
}
