// Preformatted text with a copy button: code snippets, JSON bodies, raw events.
import { CopyButton } from './CopyButton';

interface CodeBlockProps {
  code: string;
  label: string;
  maxHeight?: number;
  copyable?: boolean;
}

export function CodeBlock({ code, label, maxHeight, copyable = true }: CodeBlockProps) {
  return (
    <div className="code-block">
      {copyable && (
        <div className="code-block-actions">
          <CopyButton text={code} what={label} variant="ghost" compact />
        </div>
      )}
      <pre aria-label={label} tabIndex={0} style={maxHeight ? { maxHeight } : undefined}>
        <code>{code}</code>
      </pre>
    </div>
  );
}
