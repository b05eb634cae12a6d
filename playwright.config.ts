// Browser tests of the UI served by a real `gatehouse serve`, in Debian's Chromium (the machines
// here cannot download Playwright's own browser builds).
import { defineConfig } from '@playwright/test';

const CHROMIUM_PATH = process.env.GATEHOUSE_CHROMIUM ?? '/usr/bin/chromium';

export default defineConfig({
  testDir: 'test/e2e',
  testMatch: '*.spec.ts',
  globalSetup: './test/e2e/global-setup.ts',
  outputDir: 'test-results',
  // Screenshot baselines (visual.spec.ts) in one committed folder, with no platform or browser in the
  // path: the suite has one browser, Debian's Chromium, and the baselines are made with it.
  snapshotPathTemplate: '{testDir}/__screenshots__/{testFilePath}/{arg}{ext}',
  timeout: 60_000,
  expect: {
    timeout: 10_000,
    // A tolerance for anti-aliasing (0.5% of the pixels), not for a change of colour or layout: at 2% a stale
    // baseline missing a sidebar entry and two columns still passed here. No caret, no animation mid-way.
    toHaveScreenshot: { maxDiffPixelRatio: 0.005, animations: 'disabled', caret: 'hide' },
  },
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
