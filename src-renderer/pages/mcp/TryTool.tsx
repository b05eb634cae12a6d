// "Try a tool": pick one of a server's tools, give its arguments as JSON (checked here before anything is
// sent), run it through Gatehouse and read the result: its text, an error when the tool reported one
// (isError), the raw result folded away, and how long the call took.
import { useEffect, useState, type FormEvent } from 'react';
import { describeError } from '../../api/api-error';
import type { McpTool, McpToolCall } from '../../api/types';
import { CodeBlock } from '../../components/CodeBlock';
import { Field } from '../../components/Field';
import { formatDuration } from '../../components/format';
import { Icon } from '../../components/Icon';
import { ErrorNotice } from '../../components/StatusViews';
import { argumentsTemplate, parseToolArguments, resultText } from '../../mcp/tool-call';
import { requireAdminClient } from '../../stores/session-store';

type Outcome = { kind: 'result'; call: McpToolCall; tool: string } | { kind: 'failed'; message: string } | null;

export function TryTool({ server, tools }: { server: string; tools: McpTool[] }) {
  const usable = tools.filter((tool) => tool.enabled);
  const [toolName, setToolName] = useState(usable[0]?.name ?? '');
  const tool = usable.find((item) => item.name === toolName);
  const [argumentsText, setArgumentsText] = useState(() => argumentsTemplate(tool));
  const [problem, setProblem] = useState<string | null>(null);
  const [running, setRunning] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>(null);

  // A tool switched off (or the list re-read) may take the chosen one away: fall back to the first.
  useEffect(() => {
    if (!usable.some((item) => item.name === toolName)) {
      setToolName(usable[0]?.name ?? '');
      setArgumentsText(argumentsTemplate(usable[0]));
    }
  }, [usable, toolName]);

  if (!usable.length) return <p className="muted small">No tool is switched on: switch one on above to try it.</p>;

  const onSubmit = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = parseToolArguments(argumentsText, tool);
    if ('problem' in parsed) {
      setProblem(parsed.problem);
      return;
    }
    setProblem(null);
    setRunning(true);
    setOutcome(null);
    try {
      setOutcome({ kind: 'result', call: await requireAdminClient().callMcpTool(server, toolName, parsed.args), tool: toolName });
    } catch (error) {
      setOutcome({ kind: 'failed', message: describeError(error) });
    } finally {
      setRunning(false);
    }
  };

  return (
    <form className="stack try-tool" onSubmit={onSubmit} aria-label={`Try a tool of ${server}`} noValidate>
      <Field label="Tool" hint={tool?.description}>
        <select
          className="input"
          value={toolName}
          onChange={(event) => {
            setToolName(event.target.value);
            setArgumentsText(argumentsTemplate(usable.find((item) => item.name === event.target.value)));
            setProblem(null);
            setOutcome(null);
          }}
        >
          {usable.map((item) => (
            <option key={item.name} value={item.name}>
              {item.name}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Arguments (JSON)" error={problem}>
        <textarea className="input input-mono try-tool-arguments" rows={Math.min(10, Math.max(3, argumentsText.split('\n').length))} spellCheck={false} value={argumentsText} onChange={(event) => setArgumentsText(event.target.value)} />
      </Field>
      <div>
        <button type="submit" className="button button-primary" disabled={running}>
          <Icon name="play" />
          {running ? 'Running…' : 'Run'}
        </button>
      </div>
      {outcome?.kind === 'failed' && <ErrorNotice title="The call failed" message={outcome.message} />}
      {outcome?.kind === 'result' && <ToolResult call={outcome.call} tool={outcome.tool} />}
    </form>
  );
}

function ToolResult({ call, tool }: { call: McpToolCall; tool: string }) {
  const text = resultText(call.result);
  const isError = call.result.isError === true;
  return (
    <section className={`tool-result${isError ? ' tool-result-error' : ''}`} aria-label="Tool result">
      <header className="tool-result-header">
        <span className={`badge badge-${isError ? 'danger' : 'success'}`}>{isError ? 'Tool error' : 'OK'}</span>
        <span className="mono small">{tool}</span>
        <span className="muted small timing">{formatDuration(call.durationMs)}</span>
      </header>
      {isError && <p className="field-error">The tool reported an error (isError): its message is below.</p>}
      {text ? <pre className="tool-result-text">{text}</pre> : <p className="muted small">The result has no text.</p>}
      <details className="disclosure">
        <summary>Raw result (JSON)</summary>
        <div className="disclosure-body">
          <CodeBlock code={JSON.stringify(call.result, null, 2)} label={`Raw result of ${tool}`} maxHeight={320} />
        </div>
      </details>
    </section>
  );
}
