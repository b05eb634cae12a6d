// Preformatted text with a copy button: code snippets, JSON bodies, raw events.
import { CopyButton } from './CopyButton';

interface CodeBlockProps {
  code: string;
  label: string;
  maxHeight?: number;
}

export function CodeBlock({ code, label, maxHeight }: CodeBlockProps) {
  return (
    <div className="code-block">
      <div className="code-block-actions">
        <CopyButton text={code} what={label} variant="ghost" compact />
      </div>
      <pre aria-label={label} tabIndex={0} style={maxHeight ? { maxHeight } : undefined}>
        <code>{code}</code>
      </pre>
    </div>
  );
}
