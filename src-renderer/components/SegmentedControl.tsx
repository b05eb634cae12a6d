// A small set of mutually exclusive choices, as an ARIA radio group: arrow keys move the choice,
// and only the chosen option is in the tab order.
import { useRef, type KeyboardEvent } from 'react';

interface SegmentedControlProps<T extends string> {
  label: string;
  options: Array<{ value: T; label: string }>;
  value: T;
  onChange(value: T): void;
  size?: 'normal' | 'large';
}

export function SegmentedControl<T extends string>({ label, options, value, onChange, size = 'normal' }: SegmentedControlProps<T>) {
  const groupRef = useRef<HTMLDivElement>(null);
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    const step = event.key === 'ArrowRight' || event.key === 'ArrowDown' ? 1 : event.key === 'ArrowLeft' || event.key === 'ArrowUp' ? -1 : 0;
    if (!step) return;
    event.preventDefault();
    // Move on from the focused option, which follows each key at once, rather than from `value`,
    // which is a render behind when keys come faster than React re-renders.
    const buttons = [...(groupRef.current?.querySelectorAll<HTMLButtonElement>('[role="radio"]') ?? [])];
    const focused = buttons.indexOf(event.target as HTMLButtonElement);
    const index = focused >= 0 ? focused : options.findIndex((option) => option.value === value);
    const next = (index + step + options.length) % options.length;
    onChange(options[next].value);
    buttons[next]?.focus();
  };
  return (
    <div ref={groupRef} className={`segmented${size === 'large' ? ' segmented-large' : ''}`} role="radiogroup" aria-label={label} onKeyDown={onKeyDown}>
      {options.map((option) => (
        <button
          key={option.value}
          type="button"
          role="radio"
          aria-checked={option.value === value}
          tabIndex={option.value === value ? 0 : -1}
          className="segment"
          onClick={() => onChange(option.value)}
        >
          {option.label}
        </button>
      ))}
    </div>
  );
}
