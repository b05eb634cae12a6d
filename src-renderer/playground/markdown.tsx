// A model's reply as Markdown: paragraphs, headings, lists, quotes, inline code, bold and italics, and
// fenced code blocks with a copy button. Built as React elements from the text, never as HTML, so
// nothing a model writes (or a provider sends) can become markup, a script or a link that navigates the
// app. Linear in the reply's length: every search for a closing mark starts where the last one ended,
// and a mark with no closing one is remembered as such instead of being searched for again.
import type { ReactNode } from 'react';
import { CopyButton } from '../components/CopyButton';

export type MarkdownBlock =
  | { kind: 'paragraph'; text: string }
  | { kind: 'heading'; level: number; text: string }
  | { kind: 'quote'; text: string }
  | { kind: 'list'; ordered: boolean; start: number; items: string[] }
  | { kind: 'code'; language: string; code: string; closed: boolean };

const FENCE = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)/;
const HEADING = /^ {0,3}(#{1,6})\s+(.*)$/;
const BULLET = /^\s*[-*+]\s+(.*)$/;
const NUMBERED = /^\s*(\d{1,9})[.)]\s+(.*)$/;
const QUOTE = /^ {0,3}>\s?(.*)$/;

/** Splits a reply into blocks. An unclosed fence (a reply still streaming) is code up to the end. */
export function parseMarkdown(text: string): MarkdownBlock[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: MarkdownBlock[] = [];
  let paragraph: string[] = [];
  const flush = () => {
    if (paragraph.length) blocks.push({ kind: 'paragraph', text: paragraph.join('\n') });
    paragraph = [];
  };
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index];
    const fence = FENCE.exec(line);
    if (fence) {
      flush();
      const marker = fence[1];
      const code: string[] = [];
      let closed = false;
      for (index += 1; index < lines.length; index += 1) {
        if (lines[index].trim().startsWith(marker) && lines[index].trim().replace(/[`~]/g, '') === '') {
          closed = true;
          break;
        }
        code.push(lines[index]);
      }
      blocks.push({ kind: 'code', language: fence[2], code: code.join('\n'), closed });
      continue;
    }
    if (!line.trim()) {
      flush();
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      flush();
      blocks.push({ kind: 'heading', level: heading[1].length, text: heading[2].replace(/\s#+\s*$/, '') });
      continue;
    }
    const quote = QUOTE.exec(line);
    if (quote) {
      flush();
      const previous = blocks.at(-1);
      if (previous?.kind === 'quote' && lines[index - 1]?.trim()) previous.text += `\n${quote[1]}`;
      else blocks.push({ kind: 'quote', text: quote[1] });
      continue;
    }
    const bullet = BULLET.exec(line);
    const numbered = bullet ? null : NUMBERED.exec(line);
    if (bullet || numbered) {
      flush();
      const ordered = Boolean(numbered);
      const item = bullet ? bullet[1] : numbered![2];
      const previous = blocks.at(-1);
      // Items of one list may be separated by blank lines; a paragraph in between ends the list.
      if (previous?.kind === 'list' && previous.ordered === ordered) previous.items.push(item);
      else blocks.push({ kind: 'list', ordered, start: numbered ? Number(numbered[1]) : 1, items: [item] });
      continue;
    }
    const previous = blocks.at(-1);
    // An indented line right under a list item continues it.
    if (!paragraph.length && previous?.kind === 'list' && /^\s{2,}\S/.test(line) && lines[index - 1]?.trim()) {
      previous.items[previous.items.length - 1] += `\n${line.trim()}`;
      continue;
    }
    paragraph.push(line);
  }
  flush();
  return blocks;
}

/** Inline marks: `code`, **bold**, *italics* / _italics_. Anything else is text as written. */
export function renderInline(text: string): ReactNode[] {
  const nodes: ReactNode[] = [];
  let plain = '';
  // Marks known to have no closing partner further on: not searched for again.
  const unmatched = new Set<string>();
  const push = (node: ReactNode) => {
    if (plain) nodes.push(plain);
    plain = '';
    nodes.push(node);
  };
  let index = 0;
  while (index < text.length) {
    const char = text[index];
    if (char === '`' && !unmatched.has('`')) {
      const end = text.indexOf('`', index + 1);
      if (end < 0) unmatched.add('`');
      else {
        push(<code key={nodes.length}>{text.slice(index + 1, end)}</code>);
        index = end + 1;
        continue;
      }
    } else if ((char === '*' || char === '_') && text[index + 1] === char && !unmatched.has(char + char)) {
      const mark = char + char;
      const end = text.indexOf(mark, index + 2);
      if (end < 0) unmatched.add(mark);
      else if (end > index + 2) {
        push(<strong key={nodes.length}>{text.slice(index + 2, end)}</strong>);
        index = end + 2;
        continue;
      }
      plain += mark;
      index += 2;
      continue;
    } else if ((char === '*' || char === '_') && !unmatched.has(char) && text[index + 1] && !/\s/.test(text[index + 1]) && (char === '*' || !/\w/.test(text[index - 1] ?? ''))) {
      const end = text.indexOf(char, index + 1);
      if (end < 0) unmatched.add(char);
      else if (!/\s/.test(text[end - 1]) && (char === '*' || !/\w/.test(text[end + 1] ?? ''))) {
        push(<em key={nodes.length}>{text.slice(index + 1, end)}</em>);
        index = end + 1;
        continue;
      }
    }
    plain += char;
    index += 1;
  }
  if (plain) nodes.push(plain);
  return nodes;
}

function CodeBlockView({ language, code }: { language: string; code: string }) {
  return (
    <div className="md-code">
      <div className="md-code-bar">
        <span className="md-code-language">{language || 'code'}</span>
        <CopyButton text={code} what="code" variant="ghost" />
      </div>
      <pre>
        <code>{code}</code>
      </pre>
    </div>
  );
}

export function Markdown({ text }: { text: string }) {
  return (
    <div className="markdown">
      {parseMarkdown(text).map((block, index) => {
        switch (block.kind) {
          case 'code':
            return <CodeBlockView key={index} language={block.language} code={block.code} />;
          case 'heading':
            return (
              <p key={index} className={`md-heading md-heading-${Math.min(block.level, 3)}`} role="heading" aria-level={Math.min(block.level + 2, 6)}>
                {renderInline(block.text)}
              </p>
            );
          case 'quote':
            return <blockquote key={index}>{renderInline(block.text)}</blockquote>;
          case 'list': {
            const items = block.items.map((item, position) => <li key={position}>{renderInline(item)}</li>);
            return block.ordered ? (
              <ol key={index} start={block.start}>
                {items}
              </ol>
            ) : (
              <ul key={index}>{items}</ul>
            );
          }
          default:
            return <p key={index}>{renderInline(block.text)}</p>;
        }
      })}
    </div>
  );
}
