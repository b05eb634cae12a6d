// One build for the three parts of the app. The main bundle also carries the CLI entry
// (`gatehouse serve`), so the desktop app and the headless server run the same gateway code.
import { resolve } from 'node:path';
import { defineConfig, externalizeDepsPlugin } from 'electron-vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  main: {
    plugins: [externalizeDepsPlugin()],
    build: {
      rollupOptions: {
        input: {
          index: resolve(__dirname, 'src-main/electron/main.ts'),
          cli: resolve(__dirname, 'src-main/cli.ts'),
          // The preparing threads' entry (gateway/prepare/prepare-pool.ts starts it by this name).
          'prepare-worker': resolve(__dirname, 'src-main/gateway/prepare/prepare-worker.ts'),
        },
      },
    },
  },
  preload: {
    plugins: [externalizeDepsPlugin()],
    build: {
      rollupOptions: {
        input: { index: resolve(__dirname, 'src-main/electron/preload.ts') },
        output: { format: 'cjs', entryFileNames: '[name].cjs' },
      },
    },
  },
  renderer: {
    root: resolve(__dirname, 'src-renderer'),
    plugins: [react()],
    build: {
      // electron-vite leaves minification off; the UI is also served to browsers by `gatehouse serve`.
      minify: true,
      rollupOptions: { input: resolve(__dirname, 'src-renderer/index.html') },
    },
  },
});
