// Try a prompt through the gateway exactly as a client would, and see what went over the wire.
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
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
import { draftRequest, endpointFor, isConversationMode, runPathFor, usePlaygroundStore, type PlaygroundView } from '../stores/playground-store';
import { useCompareStore } from '../stores/compare-store';

/** The desktop bridge says which OS; in a browser, the user agent does. */
const isMac = (typeof window !== 'undefined' && window.gatehouse?.platform === 'darwin') || (typeof navigator !== 'undefined' && /Mac/.test(navigator.userAgent));
const RUN_MODIFIER = isMac ? '⌘' : 'Ctrl';

/** How close (px) to the chat's end the window must be scrolled to count as following it. */
const FOLLOW_SLACK_PX = 48;

/**
 * Keeps the chat's end (the newest turn, the reply streaming in, the composer) in view as the transcript
 * grows, unless the person scrolled up from it: then the view stays where they put it, until they
 * scroll back down or send the next turn. The document is the page's one scroller.
 */
function useFollowNewest() {
  const end = useRef<HTMLDivElement>(null);
  const following = useRef(false);
  const messages = usePlaygroundStore((state) => state.messages);
  const live = usePlaygroundStore((state) => state.outputs[0]?.length ?? 0);
  const phase = usePlaygroundStore((state) => state.phase);
  useEffect(() => {
    const onScroll = () => {
      const box = end.current?.getBoundingClientRect();
      if (!box) return;
      following.current = box.bottom <= window.innerHeight + FOLLOW_SLACK_PX;
      if (following.current) followedAt.current = window.scrollY;
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, []);
  const lastPhase = useRef(phase);
  /** Where the window was left the last time the view followed the chat. */
  const followedAt = useRef(0);
  useLayoutEffect(() => {
    const started = phase === 'running' && lastPhase.current !== 'running';
    lastPhase.current = phase;
    // Sending a turn means wanting to see its answer; a scroll up since the view last followed (its
    // scroll event may not have come yet) means reading something else: the view stays put.
    if (started) following.current = true;
    else if (following.current && window.scrollY < followedAt.current - FOLLOW_SLACK_PX) following.current = false;
    if (!following.current) return;
    end.current?.scrollIntoView({ block: 'end' });
    followedAt.current = window.scrollY;
  }, [messages, live, phase]);
  return end;
}

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
  const conversation = isConversationMode(mode);
  const turns = messages.filter((message) => message.role !== 'system').length;
  const newConversation = usePlaygroundStore((state) => state.newConversation);
  const chatEnd = useFollowNewest();

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

          <section className={`card chat-card${conversation ? '' : ' chat-card-single'}`} aria-labelledby="chat-heading">
            <div className="card-header">
              <h2 id="chat-heading" className="card-title">
                {conversation ? 'Chat' : 'Request'}
              </h2>
              {conversation && turns > 0 && (
                <button type="button" className="button button-secondary button-small" onClick={newConversation} title="Starts over with the same key, model, parameters and system message">
                  <Icon name="plus" />
                  New chat
                </button>
              )}
            </div>
            {conversation && (
              <>
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
                <ChatTranscript showRun={!isCompare} />
              </>
            )}
            <div className={conversation ? 'composer' : undefined}>
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
                    {conversation ? 'Sent as the next user message; the reply joins the conversation. ' : ''}
                    <kbd>{RUN_MODIFIER}</kbd> + <kbd>Enter</kbd> runs.
                  </>
                }
                error={errors.prompt ?? errors.messages}
              >
                <textarea
                  className={`input prompt-input${promptIsJson && mode === 'completion' ? ' input-mono' : ''}${conversation ? ' prompt-input-chat' : ''}`}
                  rows={conversation ? 2 : 6}
                  value={prompt}
                  placeholder={conversation ? 'Ask something…' : promptIsJson ? '["First prompt", "Second prompt"]  or  [1212, 318, 257]' : 'Once upon a time'}
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
                <span className="muted small run-target">
                  {`POST ${mode === 'gemini' && model.trim() ? runPathFor(mode, model, parameters.stream) : endpointFor(mode)}`}
                  {!isCompare && authKind === 'key-by-name' ? ' as the chosen key' : ''}
                  {isCompare ? ' · to both sides' : ''}
                  {parameters.stream ? ' · streaming' : ''}
                </span>
              </div>
            </div>
            {/* The end of the chat: kept in view while the reply streams, unless the person scrolled up. */}
            <div ref={chatEnd} className="chat-end" aria-hidden="true" />
          </section>

          {isCompare ? (
            <CompareResults />
          ) : (
            <>
              {!conversation && <OutputPanel />}
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
