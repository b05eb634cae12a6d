// How to use a key: for a virtual key, the same ready set-ups as the Connect a tool page (Claude Code,
// Codex, OpenCode, the SDKs, curl) with the key written in when it is known and a model the key serves
// (picked among them when there are several); for a gateway API key, code that sends it with the
// provider's own headers.
import { useState } from 'react';
import { CodeBlock } from '../../components/CodeBlock';
import { CopyButton } from '../../components/CopyButton';
import { Tabs } from '../../components/Tabs';
import { toolSetups } from '../../connect/tool-setups';
import { exampleModelFor } from '../../keys/provider-form';
import { codeSnippet, ENV_GATEWAY_KEY, ENV_VIRTUAL_KEY, type SnippetAuth } from '../../playground/code-snippets';
import { ToolSetupTabs } from '../connect/ToolSetupView';
import { useGatewayOrigin } from '../../stores/session-store';
import { KeyModelPicker, useKeyModel } from './KeyModelPicker';

type UsageTab = 'python' | 'javascript' | 'curl' | 'tools';

interface KeyUsageProps {
  kind: 'virtual' | 'gateway';
  /** The key's id: a virtual key's set-ups name one of the models it serves. */
  keyId: string;
  provider: string | null;
  /** The full key, only right after creation; otherwise the set-ups say where it goes. */
  keyValue?: string;
}

function BaseUrlAndKey({ kind, keyValue }: { kind: KeyUsageProps['kind']; keyValue?: string }) {
  const baseUrl = `${useGatewayOrigin()}/v1`;
  const envName = kind === 'virtual' ? ENV_VIRTUAL_KEY : ENV_GATEWAY_KEY;
  return (
    <div className="stack-small">
      <p className="muted small">
        {kind === 'virtual'
          ? 'For tools that only ask for a base URL and an API key (editors, chat apps, agents): the virtual key works as the API key. Anthropic-style tools take the address without /v1.'
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
}

function GatewayKeyUsage({ provider }: { provider: string | null }) {
  const origin = useGatewayOrigin();
  const [tab, setTab] = useState<UsageTab>('python');
  const auth: SnippetAuth = { kind: 'provider', provider: 'openai', customHost: '', hasGatewayApiKey: true, hasProviderToken: true };
  const body = { model: exampleModelFor(provider), messages: [{ role: 'user', content: 'Hello!' }] };
  let content;
  if (tab === 'tools') content = <BaseUrlAndKey kind="gateway" />;
  else {
    const language = tab;
    const code = codeSnippet(language, { origin, endpoint: '/v1/chat/completions', auth, body });
    const labels = { python: 'Python (OpenAI SDK)', javascript: 'JavaScript (OpenAI SDK)', curl: 'curl' } as const;
    content = (
      <div className="stack-small">
        <p className="muted small">
          Set <code>{ENV_GATEWAY_KEY}</code> and PROVIDER_API_KEY in your environment first.
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

export function KeyUsage({ kind, keyId, provider, keyValue }: KeyUsageProps) {
  if (kind === 'gateway') return <GatewayKeyUsage provider={provider} />;
  return <VirtualKeyUsage keyId={keyId} keyValue={keyValue} />;
}

function VirtualKeyUsage({ keyId, keyValue }: { keyId: string; keyValue?: string }) {
  const origin = useGatewayOrigin();
  const { model, setModel } = useKeyModel(keyId);
  const setups = toolSetups({ origin, key: keyValue ?? null, model });
  return (
    <div className="stack-small">
      <KeyModelPicker keyId={keyId} value={model} onChange={setModel} />
      {!keyValue && (
        <p className="muted small">
          The key was shown once, when it was created: put it where the set-ups say <code>YOUR_GATEHOUSE_KEY</code>.
        </p>
      )}
      <ToolSetupTabs label="Usage examples" setups={setups} maxHeight={300} extra={{ id: 'base-url', label: 'Base URL + key', content: <BaseUrlAndKey kind="virtual" keyValue={keyValue} /> }} />
    </div>
  );
}
