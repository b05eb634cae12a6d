// Which route a requested model name goes to: exact names compared as strings, globs through picomatch
// with `*` matching any characters (slashes too: `meta-llama/*`). Routes are checked in the user's
// order; the first match wins.
import picomatch from 'picomatch';

/** Any character picomatch reads as a glob. A name without them is matched exactly. */
export function isGlob(pattern: string): boolean {
  return picomatch.scan(pattern).isGlob;
}

/** `bash: true` makes a single `*` cross `/`, as model names with an organisation prefix need. */
export function compileMatcher(pattern: string): (model: string) => boolean {
  if (!isGlob(pattern)) return (model) => model === pattern;
  return picomatch(pattern, { bash: true, dot: true, nocase: false });
}

/** Globs made only of literal characters and `*`: the only ones whose overlap is worked out exactly. */
function isStarOnly(pattern: string): boolean {
  return /^[^?[\]{}()!+@\\]*$/.test(pattern);
}

/**
 * Whether every name `inner` matches is also matched by `outer` (so a route with `inner` after a route
 * with `outer` could never be reached). Exact for names and star-only globs: `outer`'s `*` may absorb
 * any run of `inner`'s characters, its own `*`s included; a literal must meet the same literal. For
 * other glob syntax, only an exact `inner` is checked.
 */
export function covers(outer: string, inner: string): boolean {
  if (!isGlob(inner)) return compileMatcher(outer)(inner);
  if (!isStarOnly(outer) || !isStarOnly(inner)) return outer === inner;
  const memo = new Map<string, boolean>();
  const walk = (o: number, i: number): boolean => {
    const key = `${o},${i}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    let result: boolean;
    if (o === outer.length) result = i === inner.length;
    else if (outer[o] === '*') result = walk(o + 1, i) || (i < inner.length && walk(o, i + 1));
    else result = i < inner.length && inner[i] !== '*' && inner[i] === outer[o] && walk(o + 1, i + 1);
    memo.set(key, result);
    return result;
  };
  return walk(0, 0);
}
