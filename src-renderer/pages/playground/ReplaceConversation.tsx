// Whatever replaces the Playground's draft from elsewhere (a log row, a saved prompt) asks first when
// a conversation is in progress there: its turns, a prompt being written or a run still streaming
// would otherwise be gone without a word.
import { useState, type ReactNode } from 'react';
import { ConfirmActions, Dialog } from '../../components/Dialog';
import { usePlaygroundStore } from '../../stores/playground-store';

/** What would be lost: the turns written or answered, a prompt typed, a run in progress. */
export function conversationInProgress(): { turns: number; prompt: boolean; running: boolean } | null {
  const state = usePlaygroundStore.getState();
  const turns = state.messages.filter((message) => message.role !== 'system' && message.content.trim()).length;
  const prompt = Boolean(state.prompt.trim());
  const running = state.phase === 'running';
  return turns || prompt || running ? { turns, prompt, running } : null;
}

/** `replace(action)` runs the action at once, or after the person confirms it; render `dialog`. */
export function useReplaceConversation(what: string): { replace(action: () => void): void; dialog: ReactNode } {
  const [pending, setPending] = useState<{ action(): void; turns: number; prompt: boolean; running: boolean } | null>(null);
  const replace = (action: () => void) => {
    const progress = conversationInProgress();
    if (progress) setPending({ action, ...progress });
    else action();
  };
  const parts = pending
    ? [pending.turns ? `${pending.turns} turn${pending.turns === 1 ? '' : 's'}` : '', pending.prompt ? 'a prompt being written' : '', pending.running ? 'a reply still streaming' : ''].filter(Boolean)
    : [];
  const dialog = pending ? (
    <Dialog title="Replace the conversation?" description={`The Playground has a conversation in progress (${parts.join(', ')}). Opening ${what} replaces it.`} onClose={() => setPending(null)} size="small">
      <ConfirmActions
        onCancel={() => setPending(null)}
        onConfirm={() => {
          const { action } = pending;
          setPending(null);
          action();
        }}
        submitting={false}
        label="Replace it"
        busyLabel="Replacing…"
        tone="danger"
      />
    </Dialog>
  ) : null;
  return { replace, dialog };
}
