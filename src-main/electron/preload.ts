// Runs sandboxed before the page: only contextBridge and ipcRenderer exist here (the bundler
// inlines ./bridge). It asks the main process for the admin token once and exposes it read-only
// as `window.gatehouse`.
import { contextBridge, ipcRenderer } from 'electron';
import { BOOTSTRAP_CHANNEL, type BootstrapReply, type GatehouseBridge } from './bridge';

const reply = ipcRenderer.sendSync(BOOTSTRAP_CHANNEL) as BootstrapReply;
if (reply) {
  const bridge: GatehouseBridge = { adminToken: reply.adminToken, platform: reply.platform };
  contextBridge.exposeInMainWorld('gatehouse', bridge);
}
