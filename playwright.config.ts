// Browser tests of the UI served by a real `gatehouse serve`, in Debian's Chromium (the machines
// here cannot download Playwright's own browser builds).
import { defineConfig } from '@playwright/test';

const CHROMIUM_PATH = process.env.GATEHOUSE_CHROMIUM ?? '/usr/bin/chromium';

export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '*.spec.ts',
  globalSetup: './test/e2e/global-setup.ts',
  outputDir: 'test-results',
  timeout: 60_000,
  expect: { timeout: 10_000 },
  workers: 2,
  fullyParallel: true,
  forbidOnly: Boolean(process.env.CI),
  reporter: process.env.CI ? 'line' : 'list',
  use: {
    browserName: 'chromium',
    viewport: { width: 1440, height: 900 },
    launchOptions: {
      executablePath: CHROMIUM_PATH,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    },
    screenshot: 'only-on-failure',
    trace: 'retain-on-failure',
  },
});
