// The conversation of the Chat, Messages, Responses and Gemini modes as a transcript: the system message
// to edit, then the turns so far with the reply of the run in progress streaming in under them. Replies
// read as Markdown; any user turn can be edited and sent again, any reply regenerated, and a turn can be
// removed or added by hand.
import { useState } from 'react';
import { Icon } from '../../components/Icon';
import { CopyButton } from '../../components/CopyButton';
import { ErrorNotice } from '../../components/StatusViews';
import { Markdown } from '../../playground/markdown';
import { usePlaygroundStore, type ChatMessage, type ChatRole } from '../../stores/playground-store';
import { RunFacts, TokenChip, useFindInLogs } from './OutputPanel';

const ROLE_LABELS: Record<ChatRole, string> = { system: 'System', user: 'You', assistant: 'Assistant' };

/** The last run's reply: the transcript's "Output", streaming while the run lasts. */
function ReplyBody({ text, running }: { text: string; running: boolean }) {
  const outputs = usePlaygroundStore((state) => state.outputs);
  const tokenLogprobs = usePlaygroundStore((state) => state.tokenLogprobs);
  const [showTokens, setShowTokens] = useState(false);
  const tokens = tokenLogprobs[0];
  // More than one choice (n > 1): the first continues the conversation, the others are shown under it.
  const others = outputs.slice(1);
  return (
    <div role="region" aria-label="Output" aria-busy={running} className="reply">
      {text ? showTokens && tokens?.length ? <pre className="output-text">{tokens.map((token, position) => <TokenChip key={position} token={token} />)}</pre> : <Markdown text={text} /> : <p className="output-placeholder">{running ? 'Waiting for the first token…' : 'No reply.'}</p>}
      {running && text && <span className="caret" aria-hidden="true" />}
      {others.map((other, index) => (
        <div key={index} className="output-choice">
          <div className="output-choice-label">{`Choice ${index + 2}`}</div>
          <Markdown text={other} />
        </div>
      ))}
      {tokens?.length ? (
        <label className="checkbox checkbox-small">
          <input type="checkbox" checked={showTokens} onChange={(event) => setShowTokens(event.target.checked)} />
          <span>Token probabilities</span>
        </label>
      ) : null}
    </div>
  );
}

interface TurnProps {
  message: ChatMessage;
  index: number;
  editing: boolean;
  onEdit(editing: boolean): void;
  isReply: boolean;
  busy: boolean;
}

function Turn({ message, index, editing, onEdit, isReply, busy }: TurnProps) {
  const updateMessage = usePlaygroundStore((state) => state.updateMessage);
  const removeMessage = usePlaygroundStore((state) => state.removeMessage);
  const resendFrom = usePlaygroundStore((state) => state.resendFrom);
  // What an edit of a sent turn would become: kept aside until Send (or Save), so Cancel leaves the turn as it was.
  const [draft, setDraft] = useState(message.content);
  const label = `Message ${index + 1} (${message.role})`;
  // The system message and a message just added by hand are edited in place; turns read as text until Edit.
  const inPlace = message.role === 'system' || !message.content;
  const startEditing = () => {
    setDraft(message.content);
    onEdit(true);
  };
  return (
    <li className={`message message-${message.role}`} aria-label={label}>
      <div className="message-header">
        {inPlace && message.role !== 'system' ? (
          <select className="input input-compact" aria-label={`Role of message ${index + 1}`} value={message.role} onChange={(event) => updateMessage(message.id, { role: event.target.value as ChatRole })}>
            <option value="system">System</option>
            <option value="user">User</option>
            <option value="assistant">Assistant</option>
          </select>
        ) : (
          <span className="message-role">
            {ROLE_LABELS[message.role]}
            {message.stopped && <span className="badge badge-neutral">stopped</span>}
          </span>
        )}
        <span className="message-actions">
          {message.role === 'assistant' && message.content && !editing && <CopyButton text={message.content} what={`message ${index + 1}`} variant="ghost" compact />}
          {message.role !== 'system' && message.content && !editing && (
            <button type="button" className="button button-ghost button-small" disabled={busy} onClick={startEditing} aria-label={`Edit message ${index + 1}`}>
              Edit
            </button>
          )}
          {message.role === 'assistant' && message.content && !editing && (
            <button type="button" className="button button-ghost button-small" disabled={busy} onClick={() => void resendFrom(message.id)} aria-label={`Regenerate message ${index + 1}`}>
              <Icon name="refresh" />
              Regenerate
            </button>
          )}
          <button type="button" className="button button-ghost button-icon" disabled={busy} aria-label={`Remove message ${index + 1}`} onClick={() => removeMessage(message.id)}>
            <Icon name="trash" />
          </button>
        </span>
      </div>
      {inPlace ? (
        <textarea className="input message-text" rows={message.role === 'system' ? 1 : 2} aria-label={label} value={message.content} onChange={(event) => updateMessage(message.id, { content: event.target.value })} />
      ) : editing ? (
        <div className="message-edit">
          <textarea className="input message-text message-text-editing" rows={Math.min(12, Math.max(2, draft.split('\n').length))} aria-label={label} value={draft} onChange={(event) => setDraft(event.target.value)} autoFocus />
          <div className="message-edit-actions">
            <button type="button" className="button button-secondary button-small" onClick={() => onEdit(false)}>
              Cancel
            </button>
            {message.role === 'user' ? (
              <button
                type="button"
                className="button button-primary button-small"
                disabled={!draft.trim() || busy}
                onClick={() => {
                  updateMessage(message.id, { content: draft });
                  onEdit(false);
                  void resendFrom(message.id);
                }}
              >
                <Icon name="play" />
                Send
              </button>
            ) : (
              <button
                type="button"
                className="button button-primary button-small"
                disabled={!draft.trim()}
                onClick={() => {
                  updateMessage(message.id, { content: draft, stopped: false });
                  onEdit(false);
                }}
              >
                Save
              </button>
            )}
          </div>
        </div>
      ) : message.role === 'assistant' ? (
        isReply ? <ReplyBody text={message.content} running={false} /> : <Markdown text={message.content} />
      ) : (
        <p className="message-body">{message.content}</p>
      )}
    </li>
  );
}

export function ChatTranscript({ showRun }: { showRun: boolean }) {
  const messages = usePlaygroundStore((state) => state.messages);
  const addMessage = usePlaygroundStore((state) => state.addMessage);
  const phase = usePlaygroundStore((state) => state.phase);
  const replyId = usePlaygroundStore((state) => state.replyId);
  const live = usePlaygroundStore((state) => state.outputs[0] ?? '');
  const stats = usePlaygroundStore((state) => state.stats);
  const error = usePlaygroundStore((state) => state.error);
  const findInLogs = useFindInLogs();
  const [editingId, setEditingId] = useState<number | null>(null);
  const turns = messages.filter((message) => message.role !== 'system').length;
  const running = phase === 'running';
  // The reply still streaming (or one that failed part-way) shows under the turns until it joins them.
  const replyPending = showRun && replyId !== null && !messages.some((message) => message.id === replyId) && (running || live !== '');
  return (
    <div className="conversation">
      <ol className="transcript" aria-label="Conversation">
        {messages.map((message, index) => (
          <Turn
            key={message.id}
            message={message}
            index={index}
            editing={editingId === message.id}
            onEdit={(editing) => setEditingId(editing ? message.id : null)}
            isReply={showRun && message.id === replyId}
            busy={running}
          />
        ))}
        {replyPending && (
          <li key={replyId} className="message message-assistant message-live" aria-label={`Message ${messages.length + 1} (assistant)`}>
            <div className="message-header">
              <span className="message-role">{ROLE_LABELS.assistant}</span>
            </div>
            <ReplyBody text={live} running={running} />
          </li>
        )}
      </ol>
      {turns === 0 && !replyPending && <p className="muted small">No turns yet: write below and Run. Your message and the reply join the conversation, and the next Run continues from them.</p>}
      <div className="conversation-actions">
        <button type="button" className="button button-ghost button-small" disabled={running} onClick={() => addMessage(messages.at(-1)?.role === 'user' ? 'assistant' : 'user')}>
          <Icon name="plus" />
          Add message
        </button>
      </div>
      {showRun && stats && (
        <div className="run-facts">
          <RunFacts phase={phase} stats={stats} error={error} onFindInLogs={findInLogs} />
        </div>
      )}
      {showRun && !stats && error && <ErrorNotice title={error.status ? `Request failed (${error.status})` : 'Cannot run yet'} message={error.message} />}
    </div>
  );
}
