// Renders only the rows in view (plus a few either side), so a list of 100,000 log entries
// scrolls as smoothly as one of 100. Rows have one fixed height, which keeps the math exact.
import {
  useCallback,
  useEffect,
  useImperativeHandle,
  useLayoutEffect,
  useRef,
  useState,
  type CSSProperties,
  type HTMLAttributes,
  type ReactNode,
  type Ref,
} from 'react';

export interface VisibleRange {
  start: number;
  /** One past the last rendered index. */
  end: number;
}

export function visibleRange(scrollTop: number, viewportHeight: number, rowHeight: number, count: number, overscan: number): VisibleRange {
  if (count === 0 || rowHeight <= 0) return { start: 0, end: 0 };
  const first = Math.floor(Math.max(0, scrollTop) / rowHeight);
  const visibleCount = Math.ceil(Math.max(0, viewportHeight) / rowHeight) + 1;
  const start = Math.max(0, first - overscan);
  const end = Math.min(count, first + visibleCount + overscan);
  return { start: Math.min(start, end), end };
}

/** The scrollTop that brings `index` fully into view, or null when it already is. */
export function scrollTopToReveal(index: number, scrollTop: number, viewportHeight: number, rowHeight: number): number | null {
  const rowTop = index * rowHeight;
  const rowBottom = rowTop + rowHeight;
  if (rowTop < scrollTop) return rowTop;
  if (rowBottom > scrollTop + viewportHeight) return rowBottom - viewportHeight;
  return null;
}

export interface VirtualListHandle {
  scrollToIndex(index: number): void;
  element(): HTMLDivElement | null;
}

interface VirtualListProps<T> extends Omit<HTMLAttributes<HTMLDivElement>, 'children'> {
  items: readonly T[];
  rowHeight: number;
  overscan?: number;
  itemKey(item: T): string;
  renderRow(item: T, index: number, style: CSSProperties): ReactNode;
  /** Called when the last rows come into view, to fetch the next page. */
  onNearEnd?(): void;
  ref?: Ref<VirtualListHandle>;
}

export function VirtualList<T>({ items, rowHeight, overscan = 8, itemKey, renderRow, onNearEnd, className, ref, ...rest }: VirtualListProps<T>) {
  const scrollerRef = useRef<HTMLDivElement>(null);
  const [scrollTop, setScrollTop] = useState(0);
  const [viewportHeight, setViewportHeight] = useState(600);
  const previousFirstKey = useRef<string | null>(null);

  useLayoutEffect(() => {
    const scroller = scrollerRef.current;
    if (!scroller) return;
    setViewportHeight(scroller.clientHeight);
    const observer = new ResizeObserver(() => setViewportHeight(scroller.clientHeight));
    observer.observe(scroller);
    return () => observer.disconnect();
  }, []);

  // When rows arrive at the top while the person is reading further down, keep their rows still.
  useLayoutEffect(() => {
    const scroller = scrollerRef.current;
    const firstKey = items.length ? itemKey(items[0]) : null;
    const previous = previousFirstKey.current;
    previousFirstKey.current = firstKey;
    if (!scroller || !previous || previous === firstKey || scroller.scrollTop === 0) return;
    const searchLimit = Math.min(items.length, 10_000);
    for (let index = 1; index < searchLimit; index++) {
      if (itemKey(items[index]) === previous) {
        scroller.scrollTop += index * rowHeight;
        setScrollTop(scroller.scrollTop);
        return;
      }
    }
  }, [items, itemKey, rowHeight]);

  const range = visibleRange(scrollTop, viewportHeight, rowHeight, items.length, overscan);

  useEffect(() => {
    if (onNearEnd && items.length && range.end >= items.length - overscan) onNearEnd();
  }, [range.end, items.length, onNearEnd, overscan]);

  const scrollToIndex = useCallback(
    (index: number) => {
      const scroller = scrollerRef.current;
      if (!scroller) return;
      const target = scrollTopToReveal(index, scroller.scrollTop, scroller.clientHeight, rowHeight);
      if (target !== null) {
        scroller.scrollTop = target;
        setScrollTop(target);
      }
    },
    [rowHeight],
  );
  useImperativeHandle(ref, () => ({ scrollToIndex, element: () => scrollerRef.current }), [scrollToIndex]);

  const rows: ReactNode[] = [];
  for (let index = range.start; index < range.end; index++) {
    rows.push(renderRow(items[index], index, { position: 'absolute', top: 0, left: 0, right: 0, height: rowHeight, transform: `translateY(${index * rowHeight}px)` }));
  }

  return (
    <div
      ref={scrollerRef}
      className={`virtual-list${className ? ` ${className}` : ''}`}
      onScroll={(event) => setScrollTop(event.currentTarget.scrollTop)}
      {...rest}
    >
      <div className="virtual-list-sizer" style={{ height: items.length * rowHeight, position: 'relative' }}>
        {rows}
      </div>
    </div>
  );
}
