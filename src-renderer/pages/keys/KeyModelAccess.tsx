// Which models a key may call, on the Keys page: every model (the default) or a list of names, globs
// (`claude-*`) and routes (`route:fast`). The gateway refuses any other model with a 403 before a provider
// is called. Summed up in the key's panel, edited in a small dialog like its MCP servers.
import { useEffect, useState, type FormEvent } from 'react';
import { Dialog } from '../../components/Dialog';
import { SegmentedControl } from '../../components/SegmentedControl';
import { ErrorNotice } from '../../components/StatusViews';
import { toFormError, useSubmission } from '../../components/use-submission';
import { useKeysStore } from '../../stores/keys-store';
import { useRoutesStore } from '../../stores/routes-store';
import { useToastStore } from '../../stores/toast-store';

interface KeyRef {
  id: string;
  name: string;
}

export function describeModelAccess(allowed: string[] | undefined): string {
  if (!allowed) return 'All models';
  return `Only ${allowed.join(', ')}`;
}

/** The textarea's lines as a list: one entry a line, blank lines and repeats dropped. */
export function entriesFromText(text: string): string[] {
  return [...new Set(text.split('\n').map((line) => line.trim()).filter(Boolean))];
}

type Mode = 'all' | 'chosen';

export function KeyModelAccessDialog({ keyRef, current, onClose }: { keyRef: KeyRef; current: string[] | null; onClose(): void }) {
  const setAllowedModels = useKeysStore((state) => state.setAllowedModels);
  const routes = useRoutesStore((state) => state.routes);
  const loadRoutes = useRoutesStore((state) => state.load);
  const showToast = useToastStore((state) => state.show);
  const [mode, setMode] = useState<Mode>(current === null ? 'all' : 'chosen');
  const [text, setText] = useState((current ?? []).join('\n'));
  const { submitting, error, submit } = useSubmission(toFormError);

  useEffect(() => {
    void loadRoutes();
  }, [loadRoutes]);

  const entries = entriesFromText(text);
  const addRoute = (name: string) => {
    const entry = `route:${name}`;
    if (!entries.includes(entry)) setText([...entries, entry].join('\n'));
  };

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const list = mode === 'all' ? null : entries;
    await submit(async () => {
      await setAllowedModels(keyRef.id, list);
      showToast(`${keyRef.name}: ${list ? `may call only ${list.join(', ')}` : 'may call every model'}`);
      onClose();
    });
  };

  return (
    <Dialog title={`Models “${keyRef.name}” may call`} description="Any other model is refused with a 403 before a provider is called." onClose={onClose} size="small">
      <form className="stack" onSubmit={onSubmit}>
        <SegmentedControl<Mode>
          label="Allowed models"
          options={[
            { value: 'all', label: 'Every model' },
            { value: 'chosen', label: 'Only these' },
          ]}
          value={mode}
          onChange={setMode}
        />
        {mode === 'all' ? (
          <p className="muted small">Every model, through any route.</p>
        ) : (
          <div className="field">
            <label htmlFor="allowed-models">Models, one a line</label>
            <textarea
              id="allowed-models"
              className="input input-mono"
              rows={5}
              spellCheck={false}
              placeholder={'gpt-4o-mini\nclaude-*\nroute:fast'}
              value={text}
              onChange={(event) => setText(event.target.value)}
              aria-invalid={error?.param === 'allowedModels' || undefined}
            />
            <p className="field-hint">A model's name as clients send it, a glob (claude-*), or route:NAME for whatever a route serves.</p>
            {routes.length > 0 && (
              <div className="key-model-routes">
                <span className="muted small">Add a route:</span>
                {routes.map((route) => (
                  <button key={route.id} type="button" className="button button-ghost button-small" onClick={() => addRoute(route.name)}>
                    route:{route.name}
                  </button>
                ))}
              </div>
            )}
            {entries.length === 0 && <p className="field-hint">Name at least one model, or choose Every model.</p>}
          </div>
        )}
        {error && <ErrorNotice message={error.message} />}
        <div className="dialog-actions">
          <button type="button" className="button button-secondary" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="button button-primary" disabled={submitting || (mode === 'chosen' && entries.length === 0)}>
            {submitting ? 'Saving…' : 'Save'}
          </button>
        </div>
      </form>
    </Dialog>
  );
}
