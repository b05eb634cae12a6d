// What the Electron preload exposes to the page; absent when the UI is opened in a browser.
interface GatehouseBridge {
  adminToken: string;
  platform: string;
}

interface Window {
  gatehouse?: GatehouseBridge;
}
