// The raw request and response, and the same request as curl, Python or JavaScript.
import { useState } from 'react';
import { CodeBlock } from '../../components/CodeBlock';
import { Tabs } from '../../components/Tabs';
import { codeSnippet, snippetAuthOf, type SnippetLanguage } from '../../playground/code-snippets';
import { buildGatewayOptionHeaders } from '../../playground/gateway-options';
import { prettyJsonText } from '../../playground/json-text';
import { authOf, draftRequest, endpointFor, usePlaygroundStore, type RawExchange } from '../../stores/playground-store';
import { useGatewayOrigin } from '../../stores/session-store';

type InspectorTab = 'request' | 'response' | SnippetLanguage;

const SNIPPET_LABELS: Record<SnippetLanguage, string> = { curl: 'curl', python: 'Python', javascript: 'JavaScript' };

function headerLines(headers: Record<string, string>): string {
  return Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}`)
    .join('\n');
}

function RawRequest({ raw }: { raw: RawExchange | null }) {
  if (!raw) return <p className="muted small">Nothing sent yet. The request appears here when you run it; secrets are masked.</p>;
  return (
    <div className="stack-small">
      <p className="mono small">
        <strong>{raw.request.method}</strong> {raw.request.url}
      </p>
      <CodeBlock code={headerLines(raw.request.headers)} label="request headers" />
      <CodeBlock code={raw.request.body} label="request body" maxHeight={320} />
    </div>
  );
}

function RawResponse({ raw }: { raw: RawExchange | null }) {
  if (!raw || raw.response.status === null) return <p className="muted small">No response yet.</p>;
  const isStream = (raw.response.headers['content-type'] ?? '').includes('text/event-stream');
  return (
    <div className="stack-small">
      <p className="mono small">
        <strong>HTTP {raw.response.status}</strong> {isStream ? '· event stream' : ''}
      </p>
      <CodeBlock code={headerLines(raw.response.headers)} label="response headers" />
      <CodeBlock code={isStream ? raw.response.body : prettyJsonText(raw.response.body)} label={isStream ? 'response events' : 'response body'} maxHeight={360} />
    </div>
  );
}

export function InspectorPanel() {
  const [tab, setTab] = useState<InspectorTab>('request');
  const state = usePlaygroundStore();
  const origin = useGatewayOrigin();
  const raw = state.raw;
  let content;
  if (tab === 'request') content = <RawRequest raw={raw} />;
  else if (tab === 'response') content = <RawResponse raw={raw} />;
  else {
    // After a run, exactly the request that ran (taken as it was sent: the reply that joined the
    // conversation since is not in it); before one, what Run would send.
    const ran = state.lastRun;
    const code = codeSnippet(tab, {
      origin,
      ...(ran ?? {
        endpoint: endpointFor(state.mode),
        auth: snippetAuthOf(authOf(state)),
        body: draftRequest(state).body,
        extraHeaders: buildGatewayOptionHeaders(state.gatewayOptions).headers,
        model: state.model,
        stream: state.parameters.stream,
      }),
    });
    content = (
      <div className="stack-small">
        <p className="muted small">
          {ran ? 'The request that ran last. ' : 'The request Run will send. '}
          Secrets are read from environment variables, never written into the snippet.
        </p>
        <CodeBlock code={code} label={`${SNIPPET_LABELS[tab]} snippet`} maxHeight={360} />
      </div>
    );
  }
  return (
    <section className="card" aria-label="Request inspector">
      <Tabs<InspectorTab>
        label="Inspector"
        active={tab}
        onChange={setTab}
        tabs={[
          { id: 'request', label: 'Request' },
          { id: 'response', label: 'Response' },
          { id: 'curl', label: 'curl' },
          { id: 'python', label: 'Python' },
          { id: 'javascript', label: 'JavaScript' },
        ]}
      >
        {content}
      </Tabs>
    </section>
  );
}
