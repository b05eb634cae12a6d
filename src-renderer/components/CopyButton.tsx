// Copies text and says so. The label names what is copied, for screen readers and tests.
import { useState } from 'react';
import { useToastStore } from '../stores/toast-store';
import { Icon } from './Icon';

export async function copyText(text: string): Promise<void> {
  if (navigator.clipboard && window.isSecureContext) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Plain http on a LAN name is not a secure context: fall back to the selection API.
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.appendChild(area);
  area.select();
  document.execCommand('copy');
  area.remove();
}

interface CopyButtonProps {
  text: string;
  label?: string;
  what?: string;
  variant?: 'ghost' | 'secondary' | 'primary';
  compact?: boolean;
}

export function CopyButton({ text, label = 'Copy', what, variant = 'secondary', compact = false }: CopyButtonProps) {
  const [copied, setCopied] = useState(false);
  const showToast = useToastStore((state) => state.show);
  const onCopy = async () => {
    try {
      await copyText(text);
      setCopied(true);
      showToast(what ? `${what} copied` : 'Copied');
      setTimeout(() => setCopied(false), 1600);
    } catch {
      showToast('Copy failed: select the text and copy it by hand', 'error');
    }
  };
  return (
    <button type="button" className={`button button-${variant}${compact ? ' button-compact' : ''}`} onClick={onCopy} aria-label={what ? `${label} ${what}` : label}>
      <Icon name={copied ? 'check' : 'copy'} />
      {!compact && <span>{copied ? 'Copied' : label}</span>}
    </button>
  );
}
