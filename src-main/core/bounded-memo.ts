// Per-request work that depends only on a string seen again and again (provider URLs): computed once.

/**
 * Remembers up to `max` results of a pure function of a string, and forgets them all when full: a session
 * uses a handful of distinct keys, and a caller that varies them must not grow the memory without end.
 */
export function boundedMemo<T>(max: number, compute: (key: string) => T): (key: string) => T {
  const known = new Map<string, T>();
  return (key) => {
    const hit = known.get(key);
    if (hit !== undefined) return hit;
    const value = compute(key);
    if (known.size >= max) known.clear();
    known.set(key, value);
    return value;
  };
}
