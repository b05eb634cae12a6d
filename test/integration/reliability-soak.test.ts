// A short run of the soak script (`npm run soak`), so the script itself keeps working and a gross leak,
// an orphan provider call, a wrong answer or a missing log row under mixed load fails `npm test` too.
import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';

describe('npm run soak, briefly', () => {
  it('passes a 25-second run of mixed traffic and prints its figures', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/soak/run.ts', '--minutes', '0.42', '--warmup-minutes', '0.15', '--concurrency', '8'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(output).toMatch(/Requests: \d+ in \d+ s/);
    expect(output).toMatch(/Open fds: start \d+, quiet after warm-up \d+, half way \d+, quiet at end \d+/);
    expect(output).toMatch(/V8 heap after GC: after warm-up [\d.]+ MB/);
    expect(output).toMatch(/log rows for \d+ proxied requests/);
    expect(output, output).toContain('PASSED');
    expect(code).toBe(0);
  }, 90_000);
});
