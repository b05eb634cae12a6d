// A modal built on the native <dialog>: it traps focus, closes on Escape and restores focus to
// whatever opened it, without a focus-management library.
import { useEffect, useId, useRef, type ReactNode } from 'react';
import { Icon } from './Icon';

interface DialogProps {
  title: string;
  description?: ReactNode;
  onClose(): void;
  children: ReactNode;
  size?: 'small' | 'medium' | 'large';
}

export function Dialog({ title, description, onClose, children, size = 'medium' }: DialogProps) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  const onCloseRef = useRef(onClose);
  onCloseRef.current = onClose;
  // One id per dialog: a dialog opened from another (a key's panel, then its limits) is named by its own title.
  const titleId = useId();

  useEffect(() => {
    const dialog = dialogRef.current;
    if (!dialog) return;
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    if (!dialog.open) dialog.showModal();
    const onCancel = (event: Event) => {
      event.preventDefault();
      onCloseRef.current();
    };
    dialog.addEventListener('cancel', onCancel);
    return () => {
      dialog.removeEventListener('cancel', onCancel);
      if (dialog.open) dialog.close();
      opener?.focus();
    };
  }, []);

  return (
    <dialog ref={dialogRef} className={`dialog dialog-${size}`} aria-labelledby={titleId}>
      <header className="dialog-header">
        <div>
          <h2 id={titleId}>{title}</h2>
          {description && <p className="dialog-description">{description}</p>}
        </div>
        <button type="button" className="button button-ghost button-icon" aria-label="Close" onClick={onClose}>
          <Icon name="close" />
        </button>
      </header>
      <div className="dialog-body">{children}</div>
    </dialog>
  );
}

/**
 * Cancel and the one action of a confirmation, which says what it is doing while it runs. Cancel has the
 * focus: Enter on an open confirmation must not do the irreversible thing.
 */
export function ConfirmActions({ onCancel, onConfirm, submitting, label, busyLabel, tone }: { onCancel(): void; onConfirm(): void; submitting: boolean; label: string; busyLabel: string; tone: 'danger' | 'primary' }) {
  return (
    <div className="dialog-actions">
      <button type="button" className="button button-secondary" onClick={onCancel} autoFocus>
        Cancel
      </button>
      <button type="button" className={`button button-${tone}`} onClick={onConfirm} disabled={submitting}>
        {submitting ? busyLabel : label}
      </button>
    </div>
  );
}
