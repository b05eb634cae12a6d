// The conversation of the Chat, Messages and Responses modes as a transcript: the system message to
// edit, then the turns so far (each Run adds its prompt and the reply), any of them editable or
// removable, and a way to start over.
import { useState } from 'react';
import { Icon } from '../../components/Icon';
import { usePlaygroundStore, type ChatMessage, type ChatRole } from '../../stores/playground-store';

const ROLE_LABELS: Record<ChatRole, string> = { system: 'System', user: 'You', assistant: 'Assistant' };

function Turn({ message, index, editing, onEdit }: { message: ChatMessage; index: number; editing: boolean; onEdit(editing: boolean): void }) {
  const updateMessage = usePlaygroundStore((state) => state.updateMessage);
  const removeMessage = usePlaygroundStore((state) => state.removeMessage);
  // The system message and a message just added by hand are edited in place; turns read as text until Edit.
  const editable = editing || message.role === 'system' || !message.content;
  return (
    <li className={`message message-${message.role}`} aria-label={`Message ${index + 1} (${message.role})`}>
      <div className="message-header">
        {editable && message.role !== 'system' ? (
          <select
            className="input input-compact"
            aria-label={`Role of message ${index + 1}`}
            value={message.role}
            onChange={(event) => updateMessage(message.id, { role: event.target.value as ChatRole })}
          >
            <option value="system">System</option>
            <option value="user">User</option>
            <option value="assistant">Assistant</option>
          </select>
        ) : (
          <span className="message-role">{ROLE_LABELS[message.role]}</span>
        )}
        <span className="message-actions">
          {message.role !== 'system' && message.content && (
            <button type="button" className="button button-ghost button-small" aria-pressed={editing} onClick={() => onEdit(!editing)}>
              {editing ? 'Done' : 'Edit'}
            </button>
          )}
          <button type="button" className="button button-ghost button-icon" aria-label={`Remove message ${index + 1}`} onClick={() => removeMessage(message.id)}>
            <Icon name="trash" />
          </button>
        </span>
      </div>
      {editable ? (
        <textarea
          className="input message-text"
          rows={message.role === 'system' ? 1 : 2}
          aria-label={`Message ${index + 1} (${message.role})`}
          value={message.content}
          onChange={(event) => updateMessage(message.id, { content: event.target.value })}
        />
      ) : (
        <p className="message-body">{message.content}</p>
      )}
    </li>
  );
}

export function ChatTranscript() {
  const messages = usePlaygroundStore((state) => state.messages);
  const addMessage = usePlaygroundStore((state) => state.addMessage);
  const newConversation = usePlaygroundStore((state) => state.newConversation);
  const [editingId, setEditingId] = useState<number | null>(null);
  const turns = messages.filter((message) => message.role !== 'system').length;
  return (
    <div className="conversation">
      <ol className="transcript" aria-label="Conversation">
        {messages.map((message, index) => (
          <Turn key={message.id} message={message} index={index} editing={editingId === message.id} onEdit={(editing) => setEditingId(editing ? message.id : null)} />
        ))}
      </ol>
      {turns === 0 && <p className="muted small">No turns yet: write a prompt and Run. Each Run adds your prompt and the reply here, and the next one continues from them.</p>}
      <div className="conversation-actions">
        <button type="button" className="button button-ghost button-small" onClick={() => addMessage(messages.length % 2 === 1 ? 'user' : 'assistant')}>
          <Icon name="plus" />
          Add message
        </button>
        {turns > 0 && (
          <button type="button" className="button button-secondary button-small" onClick={newConversation}>
            <Icon name="refresh" />
            New conversation
          </button>
        )}
      </div>
    </div>
  );
}
