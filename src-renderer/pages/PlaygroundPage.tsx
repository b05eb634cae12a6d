// Try a prompt through the gateway exactly as a client would, and see what went over the wire.
import { useMemo, useState, type KeyboardEvent } from 'react';
import { Field } from '../components/Field';
import { Icon } from '../components/Icon';
import { SegmentedControl } from '../components/SegmentedControl';
import type { PlaygroundMode } from '../playground/parameters';
import { ConnectionCard } from './playground/ConnectionCard';
import { InspectorPanel } from './playground/InspectorPanel';
import { OutputPanel } from './playground/OutputPanel';
import { ParametersPanel } from './playground/ParametersPanel';
import { CompareResults, CompareTargets } from './playground/ComparePanel';
import { SavedPromptsCard, SavePromptDialog } from './playground/SavedPrompts';
import { ChatTranscript } from './playground/ChatTranscript';
import { draftRequest, endpointFor, runPathFor, usePlaygroundStore, type ChatRole, type PlaygroundView } from '../stores/playground-store';
import { useCompareStore } from '../stores/compare-store';

/** The desktop bridge says which OS; in a browser, the user agent does. */
const isMac = (typeof window !== 'undefined' && window.gatehouse?.platform === 'darwin') || (typeof navigator !== 'undefined' && /Mac/.test(navigator.userAgent));
const RUN_MODIFIER = isMac ? '⌘' : 'Ctrl';

export function PlaygroundPage() {
  const mode = usePlaygroundStore((state) => state.mode);
  const prompt = usePlaygroundStore((state) => state.prompt);
  const phase = usePlaygroundStore((state) => state.phase);
  const error = usePlaygroundStore((state) => state.error);
  const update = usePlaygroundStore((state) => state.update);
  const runSingle = usePlaygroundStore((state) => state.run);
  const stopSingle = usePlaygroundStore((state) => state.stop);
  const view = usePlaygroundStore((state) => state.view);
  const authKind = usePlaygroundStore((state) => state.authKind);
  const runCompare = useCompareStore((state) => state.run);
  const stopCompare = useCompareStore((state) => state.stop);
  const comparing = useCompareStore((state) => state.sides.some((side) => side.phase === 'running'));
  const firstSide = useCompareStore((state) => state.sides[0]);
  const [saving, setSaving] = useState(false);
  const isCompare = view === 'compare';
  const run = isCompare ? runCompare : runSingle;
  const stop = isCompare ? stopCompare : stopSingle;
  const model = usePlaygroundStore((state) => state.model);
  const messages = usePlaygroundStore((state) => state.messages);
  const parameters = usePlaygroundStore((state) => state.parameters);
  const promptIsJson = usePlaygroundStore((state) => state.promptIsJson);
  const isRunning = isCompare ? comparing : phase === 'running';

  // Field errors shown as the person types; the server's own error is mapped onto its `param`.
  const errors = useMemo(() => {
    const { errors: draftErrors } = draftRequest({ mode, model, prompt, promptIsJson, messages, parameters });
    const shown: Partial<Record<string, string>> = { ...draftErrors };
    // An empty field is not an error until the person tries to run.
    if (!model.trim() && phase !== 'error') delete shown.model;
    // In the compare view each side names its model and shows its own errors.
    if (view === 'compare') delete shown.model;
    if (!prompt.trim() && phase !== 'error') delete shown.prompt;
    if (error?.param) shown[error.param] = error.message;
    return shown;
  }, [mode, model, prompt, promptIsJson, messages, parameters, error, phase, view]);

  const onPromptKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (event.key === 'Enter' && (event.metaKey || event.ctrlKey)) {
      event.preventDefault();
      void run();
    }
  };

  return (
    <div className="page">
      <header className="page-header">
        <div>
          <h1>Playground</h1>
          <p className="page-subtitle">Send a request through the gateway and watch it stream back.</p>
        </div>
        <div className="page-header-controls">
          <SegmentedControl<PlaygroundView>
            label="View"
            value={view}
            onChange={(next) => update({ view: next })}
            options={[
              { value: 'single', label: 'Single' },
              { value: 'compare', label: 'Compare' },
            ]}
          />
          <SegmentedControl<PlaygroundMode>
            label="Mode"
            size="large"
            value={mode}
            onChange={(next) => update({ mode: next })}
            options={[
              { value: 'chat', label: 'Chat' },
              { value: 'completion', label: 'Completion' },
              { value: 'messages', label: 'Messages' },
              { value: 'responses', label: 'Responses' },
              { value: 'gemini', label: 'Gemini' },
            ]}
          />
        </div>
      </header>

      <div className="playground-grid">
        <div className="playground-main">
          {isCompare ? <CompareTargets /> : <ConnectionCard errors={errors} />}

          <section className="card">
            {mode !== 'completion' && (
              <>
                <h2 className="card-title">Conversation</h2>
                {mode === 'messages' && (
                  <p className="muted small">
                    An Anthropic Messages request, as Claude Code sends it: system messages go in <code>system</code>, the key in <code>x-api-key</code>.
                  </p>
                )}
                {mode === 'responses' && (
                  <p className="muted small">
                    An OpenAI Responses request, as Codex sends it: system messages go in <code>instructions</code>, the conversation in <code>input</code>, whole each run (<code>store: false</code>).
                  </p>
                )}
                {mode === 'gemini' && (
                  <p className="muted small">
                    A Gemini API request, as Gemini CLI sends it: the model is in the path, system messages go in <code>systemInstruction</code>, the key in <code>x-goog-api-key</code>.
                  </p>
                )}
                <ChatTranscript />
              </>
            )}
            <Field
              label="Prompt"
              trailing={
                mode === 'completion' && (
                  <label className="checkbox checkbox-small">
                    <input type="checkbox" checked={promptIsJson} onChange={(event) => update({ promptIsJson: event.target.checked })} />
                    <span>JSON (arrays of strings or tokens)</span>
                  </label>
                )
              }
              hint={
                <>
                  {mode !== 'completion' ? 'Sent as the next user message; the reply joins the conversation. ' : ''}
                  <kbd>{RUN_MODIFIER}</kbd> + <kbd>Enter</kbd> runs.
                </>
              } error={errors.prompt ?? errors.messages}>
              <textarea
                className={`input prompt-input${promptIsJson && mode === 'completion' ? ' input-mono' : ''}`}
                rows={mode !== 'completion' ? 3 : 6}
                value={prompt}
                placeholder={mode !== 'completion' ? 'Ask something…' : promptIsJson ? '["First prompt", "Second prompt"]  or  [1212, 318, 257]' : 'Once upon a time'}
                onChange={(event) => update({ prompt: event.target.value })}
                onKeyDown={onPromptKeyDown}
              />
            </Field>
            <div className="run-row">
              {isRunning ? (
                <button type="button" className="button button-danger" onClick={stop}>
                  <Icon name="stop" />
                  Stop
                </button>
              ) : (
                <button type="button" className="button button-primary" onClick={() => void run()}>
                  <Icon name="play" />
                  Run
                </button>
              )}
              <button type="button" className="button button-secondary" onClick={() => setSaving(true)}>
                <Icon name="folder" />
                Save prompt
              </button>
              <span className="muted small">
                {`POST ${mode === 'gemini' && model.trim() ? runPathFor(mode, model, parameters.stream) : endpointFor(mode)}`}
                {!isCompare && authKind === 'key-by-name' ? ' as the chosen key' : ''}
                {isCompare ? ' · to both sides' : ''}
                {parameters.stream ? ' · streaming' : ''}
              </span>
            </div>
          </section>

          {isCompare ? (
            <CompareResults />
          ) : (
            <>
              <OutputPanel />
              <InspectorPanel />
            </>
          )}
          <SavedPromptsCard />
          {saving && <SavePromptDialog onClose={() => setSaving(false)} as={isCompare ? { keyId: firstSide.keyId, model: firstSide.model } : undefined} />}
        </div>
        <ParametersPanel errors={errors} />
      </div>
    </div>
  );
}
