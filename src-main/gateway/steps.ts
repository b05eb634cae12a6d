// A call as a chain of steps, composed once when the server starts: each step takes the call's value and
// returns the next (a new value that keeps the previous one's fields), never writing another step's fields.
// The chain runs the steps in turn and says how far it got, so the record and the error answer are made
// of what the call reached (the shape of Hono's compose.ts, without middleware's `next`).

/** One step: the call's value in, the next value out (a promise only when the step waits for something). */
export type Step<In, Out> = (value: In) => Out | Promise<Out>;

/** How a chain ended: its last value, or the value it had reached when a step threw, and why. */
export type Ended<In, Out> = { ok: true; value: Out } | { ok: false; value: In & Partial<Out>; failure: unknown };

export type Chain<In, Out> = (value: In) => Promise<Ended<In, Out>>;

export function chain<A, B>(s1: Step<A, B>): Chain<A, B>;
export function chain<A, B, C>(s1: Step<A, B>, s2: Step<B, C>): Chain<A, C>;
export function chain<A, B, C, D>(s1: Step<A, B>, s2: Step<B, C>, s3: Step<C, D>): Chain<A, D>;
export function chain<A, B, C, D, E>(s1: Step<A, B>, s2: Step<B, C>, s3: Step<C, D>, s4: Step<D, E>): Chain<A, E>;
export function chain<A, B, C, D, E, F>(s1: Step<A, B>, s2: Step<B, C>, s3: Step<C, D>, s4: Step<D, E>, s5: Step<E, F>): Chain<A, F>;
export function chain<A, B, C, D, E, F, G>(s1: Step<A, B>, s2: Step<B, C>, s3: Step<C, D>, s4: Step<D, E>, s5: Step<E, F>, s6: Step<F, G>): Chain<A, G>;
export function chain(...steps: Step<unknown, unknown>[]): Chain<unknown, unknown> {
  return async (input) => {
    let value = input;
    for (const step of steps) {
      try {
        const next = step(value);
        // A synchronous step's value is taken on this turn: no microtask for steps that wait for nothing.
        value = next instanceof Promise ? await next : next;
      } catch (failure) {
        return { ok: false, value: value as Partial<unknown>, failure };
      }
    }
    return { ok: true, value };
  };
}
