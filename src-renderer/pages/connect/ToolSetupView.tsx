// One tool's set-up (from connect/tool-setups.ts) as copyable code, and a tabbed chooser over several:
// the Connect a tool page and the Keys page's "Use it" panel show the same set-ups through these.
import { useState, type ReactNode } from 'react';
import { CodeBlock } from '../../components/CodeBlock';
import { Tabs } from '../../components/Tabs';
import { stepNeedsLabel, type ToolSetup } from '../../connect/tool-setups';
import { dialectDescription, dialectLabel } from '../../logs/dialects';

export function DialectTag({ dialect }: { dialect: string }) {
  return (
    <span className="tag tag-dialect" data-dialect={dialect} title={`Speaks ${dialectDescription(dialect)}`}>
      {dialectLabel(dialect)}
    </span>
  );
}

export function ToolSetupView({ setup, maxHeight = 360 }: { setup: ToolSetup; maxHeight?: number }) {
  return (
    <div className="stack-small tool-setup" data-tool={setup.id}>
      <p className="muted small">
        {setup.summary}
        <DialectTag dialect={setup.dialect} />
      </p>
      {setup.steps.map((step) => (
        <div key={step.label} className="stack-small">
          {stepNeedsLabel(setup, step) ? <h4 className="tool-step-label">{step.label}</h4> : null}
          <CodeBlock code={step.code} label={`${setup.title}: ${step.label}`} maxHeight={maxHeight} />
        </div>
      ))}
    </div>
  );
}

interface ToolSetupTabsProps {
  label: string;
  setups: ToolSetup[];
  /** Extra tabs after the set-ups (the panel's "Base URL + key"). */
  extra?: { id: string; label: string; content: ReactNode };
  maxHeight?: number;
}

export function ToolSetupTabs({ label, setups, extra, maxHeight }: ToolSetupTabsProps) {
  const [active, setActive] = useState<string>(setups[0]?.id ?? extra?.id ?? '');
  const current = setups.find((setup) => setup.id === active);
  const tabs = setups.map((setup) => ({ id: setup.id as string, label: setup.short }));
  if (extra) tabs.push({ id: extra.id, label: extra.label });
  return (
    <Tabs<string> label={label} variant="pill" active={active} onChange={setActive} tabs={tabs}>
      {current ? <ToolSetupView setup={current} maxHeight={maxHeight} /> : extra?.content}
    </Tabs>
  );
}
