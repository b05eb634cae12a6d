// Stopping storage: each closer awaited in turn (a store that waits for PostgreSQL waits off the serving
// thread), whatever an earlier one threw, since the log's close (its flush, its spill) must still run.

export type Closer = () => void | Promise<void>;

/** Runs each closer in turn, awaited; an error is told to `failed` and the next closer runs. */
export async function closeAll(closers: readonly Closer[], failed: (error: Error) => void): Promise<void> {
  for (const close of closers) {
    try {
      await close();
    } catch (error) {
      failed(error as Error);
    }
  }
}
