// The tray icon: shows that the gateway runs and where, and is how the app is reopened or quit
// after its window is closed.
import { Menu, Tray, clipboard, nativeImage, type MenuItemConstructorOptions, type NativeImage } from 'electron';
import { baseUrlOf, buildTrayMenu, trayTooltip, type TrayAction, type TrayMenuEntry, type TrayState } from './tray-menu';
import { trayIconPng } from './tray-icon';

export interface TrayHandlers {
  openWindow(): void;
  setStartAtLogin(enabled: boolean): void;
  quit(): void;
}

export interface TrayController {
  update(change: Partial<TrayState>): void;
  destroy(): void;
}

function createIcon(running: boolean): NativeImage {
  const template = process.platform === 'darwin';
  const image = nativeImage.createEmpty();
  // 1x and 2x so the icon stays sharp on high-density displays.
  for (const scaleFactor of [1, 2]) {
    const size = 16 * scaleFactor;
    image.addRepresentation({ scaleFactor, width: size, height: size, buffer: trayIconPng(size, { template, running }) });
  }
  if (template) image.setTemplateImage(true);
  return image;
}

export function createTray(initial: TrayState, handlers: TrayHandlers): TrayController {
  let state = initial;
  const tray = new Tray(createIcon(state.url !== null));

  const run = (action: TrayAction): void => {
    switch (action) {
      case 'open-window':
        handlers.openWindow();
        break;
      case 'copy-base-url':
        if (state.url) clipboard.writeText(baseUrlOf(state.url));
        break;
      case 'toggle-start-at-login':
        handlers.setStartAtLogin(!state.startAtLogin);
        break;
      case 'quit':
        handlers.quit();
        break;
    }
  };

  const toMenuItem = (entry: TrayMenuEntry): MenuItemConstructorOptions => {
    switch (entry.kind) {
      case 'status':
        return { label: entry.label, enabled: false };
      case 'separator':
        return { type: 'separator' };
      case 'action':
        return { label: entry.label, click: () => run(entry.action) };
      case 'checkbox':
        return { label: entry.label, type: 'checkbox', checked: entry.checked, click: () => run(entry.action) };
    }
  };

  const render = (): void => {
    tray.setToolTip(trayTooltip(state));
    tray.setContextMenu(Menu.buildFromTemplate(buildTrayMenu(state).map(toMenuItem)));
  };

  // Windows and macOS send clicks on the icon itself; Linux indicators only open the menu.
  tray.on('click', () => handlers.openWindow());
  render();

  return {
    update(change) {
      const wasRunning = state.url !== null;
      state = { ...state, ...change };
      if (wasRunning !== (state.url !== null)) tray.setImage(createIcon(state.url !== null));
      render();
    },
    destroy() {
      tray.destroy();
    },
  };
}
