// What the Electron preload exposes to the page; absent when the UI is opened in a browser.
import type { GatehouseBridge } from '../src-main/electron/bridge';

declare global {
  interface Window {
    gatehouse?: GatehouseBridge;
  }
}

export {};
