import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Playwright's *.spec.ts files under test/e2e are run by `playwright test`, not by Vitest.
    include: ['test/unit/**/*.test.ts', 'test/unit/**/*.test.tsx', 'test/integration/**/*.test.ts'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
