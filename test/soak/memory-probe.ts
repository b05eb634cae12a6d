// Loaded into the gateway process by the soak only (with --expose-gc): on SIGUSR2 it collects garbage
// and prints the memory figures, so the soak can tell retained objects from memory the allocator keeps.
process.on('SIGUSR2', () => {
  (globalThis as { gc?: () => void }).gc?.();
  const { heapUsed, external, arrayBuffers, rss } = process.memoryUsage();
  process.stderr.write(`soak-memory ${JSON.stringify({ heapUsed, external, arrayBuffers, rss })}\n`);
});
