// Clean-up on Ctrl-C (or SIGTERM/SIGHUP): the benchmark starts servers that would outlive it — a PostgreSQL
// cluster that pg_ctl puts in a session of its own, Gatehouse processes when only the runner is signalled —
// and temp dirs. Each registers how it is undone; a signal runs them newest first, then exits.
const cleanups: (() => Promise<void> | void)[] = [];
let installed = false;

async function runCleanups(signal: NodeJS.Signals): Promise<void> {
  process.stderr.write(`\n${signal}: stopping what the benchmark started…\n`);
  for (const cleanup of cleanups.splice(0).reverse()) {
    try {
      await cleanup();
    } catch (error) {
      process.stderr.write(`  clean-up failed: ${(error as Error).message}\n`);
    }
  }
  process.exit(130);
}

/** Registers a clean-up for an interrupted run; returns the function that forgets it (once done normally). */
export function onInterrupt(cleanup: () => Promise<void> | void): () => void {
  if (!installed) {
    installed = true;
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => void runCleanups(signal));
  }
  cleanups.push(cleanup);
  return () => {
    const index = cleanups.indexOf(cleanup);
    if (index !== -1) cleanups.splice(index, 1);
  };
}
