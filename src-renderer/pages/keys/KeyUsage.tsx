// How to use a key from code and from tools that only take a base URL and an API key.
import { useState } from 'react';
import { CodeBlock } from '../../components/CodeBlock';
import { CopyButton } from '../../components/CopyButton';
import { Tabs } from '../../components/Tabs';
import { exampleModelFor } from '../../keys/provider-form';
import { codeSnippet, ENV_GATEWAY_KEY, ENV_VIRTUAL_KEY, type SnippetAuth } from '../../playground/code-snippets';

type UsageTab = 'python' | 'javascript' | 'curl' | 'tools';

interface KeyUsageProps {
  kind: 'virtual' | 'gateway';
  provider: string | null;
  /** The full key, only right after creation; otherwise snippets read it from the environment. */
  keyValue?: string;
}

export function KeyUsage({ kind, provider, keyValue }: KeyUsageProps) {
  const [tab, setTab] = useState<UsageTab>('python');
  const baseUrl = `${window.location.origin}/v1`;
  const auth: SnippetAuth = kind === 'virtual' ? { kind: 'virtual-key' } : { kind: 'provider', provider: 'openai', customHost: '', hasGatewayApiKey: true, hasProviderToken: true };
  const body = { model: exampleModelFor(provider), messages: [{ role: 'user', content: 'Hello!' }] };
  const envName = kind === 'virtual' ? ENV_VIRTUAL_KEY : ENV_GATEWAY_KEY;
  let content;
  if (tab === 'tools') {
    content = (
      <div className="stack-small">
        <p className="muted small">
          {kind === 'virtual'
            ? 'For tools that only ask for a base URL and an API key (editors, chat apps, agents): the virtual key works as the API key.'
            : 'Tools send this key in the x-gateway-api-key header, with the provider and its token in their own headers.'}
        </p>
        <div className="kv-copy">
          <span className="kv-copy-label">Base URL</span>
          <code>{baseUrl}</code>
          <CopyButton text={baseUrl} what="base URL" compact variant="ghost" />
        </div>
        <div className="kv-copy">
          <span className="kv-copy-label">API key</span>
          <code>{keyValue ?? `$${envName}`}</code>
          {keyValue && <CopyButton text={keyValue} what="API key" compact variant="ghost" />}
        </div>
      </div>
    );
  } else {
    const language = tab;
    const code = codeSnippet(language, { origin: window.location.origin, endpoint: '/v1/chat/completions', auth, body });
    const labels = { python: 'Python (OpenAI SDK)', javascript: 'JavaScript (OpenAI SDK)', curl: 'curl' } as const;
    content = (
      <div className="stack-small">
        <p className="muted small">
          Set <code>{envName}</code>
          {kind === 'gateway' ? ' and PROVIDER_API_KEY' : ''} in your environment first.
        </p>
        <CodeBlock code={code} label={`${labels[language]} example`} maxHeight={300} />
      </div>
    );
  }
  return (
    <Tabs<UsageTab>
      label="Usage examples"
      variant="pill"
      active={tab}
      onChange={setTab}
      tabs={[
        { id: 'python', label: 'Python' },
        { id: 'javascript', label: 'JavaScript' },
        { id: 'curl', label: 'curl' },
        { id: 'tools', label: 'Base URL + key' },
      ]}
    >
      {content}
    </Tabs>
  );
}
