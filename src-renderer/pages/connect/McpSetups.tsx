// The Connect page's MCP card: each agent's set-up for Gatehouse's /mcp endpoint (or one server's
// /mcp/{server}) with the address and the key written in.
import { useEffect, useMemo, useState } from 'react';
import { CodeBlock } from '../../components/CodeBlock';
import { Field } from '../../components/Field';
import { Tabs } from '../../components/Tabs';
import { mcpEndpoint, mcpSetups, type McpSetup, type McpToolId } from '../../connect/mcp-setups';
import { useMcpServersStore } from '../../stores/mcp-servers-store';

function McpSetupView({ setup }: { setup: McpSetup }) {
  return (
    <div className="stack-small tool-setup" data-tool={`mcp-${setup.id}`}>
      <p className="muted small">{setup.summary}</p>
      {setup.steps.map((step) => (
        <div key={step.label} className="stack-small">
          <h4 className="tool-step-label">{step.label}</h4>
          <CodeBlock code={step.code} label={`${setup.title} MCP: ${step.label}`} maxHeight={360} />
        </div>
      ))}
    </div>
  );
}

export function McpSetups({ origin, keyText }: { origin: string; keyText: string }) {
  const servers = useMcpServersStore((state) => state.servers);
  const load = useMcpServersStore((state) => state.load);
  const [server, setServer] = useState('');
  const [active, setActive] = useState<McpToolId>('claude-code');
  const setups = useMemo(() => mcpSetups({ origin, key: keyText.trim() || null, server: server || null }), [origin, keyText, server]);
  const current = setups.find((setup) => setup.id === active) ?? setups[0];
  // The server list is read when the card shows, not only once the MCP page has been visited.
  useEffect(() => {
    void load();
  }, [load]);

  return (
    <section className="card" aria-label="MCP servers (tools)">
      <h2 className="card-title">MCP servers (tools)</h2>
      <p className="muted small">
        One address for every tool server you added in MCP servers, with the key above (a virtual or a gateway key): the agent sees only the servers that key may use, tool names prefixed with the server’s.
      </p>
      <Field label="Servers" hint={<code>{mcpEndpoint(origin, server || null)}</code>}>
        {/* The server list is read when the person goes to choose, not on every visit of the page. */}
        <select className="input connect-mcp-server" value={server} onFocus={() => void load()} onChange={(event) => setServer(event.target.value)}>
          <option value="">All the key may use (/mcp)</option>
          {servers.map((item) => (
            <option key={item.name} value={item.name}>
              Only {item.name} (/mcp/{item.name})
            </option>
          ))}
        </select>
      </Field>
      <Tabs<McpToolId> label="MCP set-ups" variant="pill" active={current.id} onChange={setActive} tabs={setups.map((setup) => ({ id: setup.id, label: setup.short }))}>
        <McpSetupView setup={current} />
      </Tabs>
    </section>
  );
}
