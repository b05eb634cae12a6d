// A stand-in for the parts of Electron the main process uses, so main.ts can run under Vitest on
// machines without an Electron binary. It records what the app asked for; tests drive its events.
import { EventEmitter } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface FakeEvent {
  defaultPrevented: boolean;
  preventDefault(): void;
}

export function fakeEvent<T extends object>(fields: T): FakeEvent & T {
  return {
    defaultPrevented: false,
    preventDefault() {
      this.defaultPrevented = true;
    },
    ...fields,
  };
}

type Listener = (...args: never[]) => unknown;

export interface FakeMenuItem {
  label?: string;
  type?: string;
  enabled?: boolean;
  checked?: boolean;
  role?: string;
  click?: () => void;
}

export function createFakeElectron(options: { userData: string; messageBoxResponse?: () => number; storageBackend?: string }) {
  const paths = new Map<string, string>([['userData', options.userData]]);
  const record = {
    exitCode: null as number | null,
    quitCompleted: false,
    errorBoxes: [] as { title: string; message: string }[],
    messageBoxes: [] as { message: string; detail?: string; buttons: string[] }[],
    notifications: [] as { title: string; body: string }[],
    clipboard: [] as string[],
    openedExternally: [] as string[],
    windows: [] as FakeBrowserWindow[],
    trays: [] as FakeTray[],
    applicationMenu: null as FakeMenuItem[] | null,
    headersListener: null as null | ((details: { url: string; responseHeaders?: Record<string, string[]> }, callback: (response: { responseHeaders?: Record<string, string[]> }) => void) => void),
    permissionRequestHandler: null as null | ((contents: unknown, permission: string, callback: (granted: boolean) => void, details: { requestingUrl: string }) => void),
    permissionCheckHandler: null as null | ((contents: unknown, permission: string, origin: string) => boolean),
    name: '',
    sandboxEnabled: false,
  };

  class FakeApp extends EventEmitter {
    isPackaged = false;
    setName(name: string) {
      record.name = name;
    }
    enableSandbox() {
      record.sandboxEnabled = true;
    }
    getPath(name: string) {
      const path = paths.get(name);
      if (!path) throw new Error(`fake app.getPath(${name})`);
      return path;
    }
    setPath(name: string, path: string) {
      paths.set(name, path);
    }
    requestSingleInstanceLock() {
      return true;
    }
    whenReady() {
      return Promise.resolve();
    }
    quit() {
      const event = fakeEvent({});
      this.emit('before-quit', event);
      if (!event.defaultPrevented) record.quitCompleted = true;
    }
    exit(code: number) {
      record.exitCode = code;
    }
    getLoginItemSettings() {
      return { openAtLogin: false, wasOpenedAtLogin: false };
    }
    setLoginItemSettings() {}
  }

  class FakeWebContents extends EventEmitter {
    windowOpenHandler: ((details: { url: string }) => { action: string }) | null = null;
    setWindowOpenHandler(handler: (details: { url: string }) => { action: string }) {
      this.windowOpenHandler = handler;
    }
  }

  class FakeBrowserWindow extends EventEmitter {
    loadedUrl: string | null = null;
    visible = false;
    destroyed = false;
    readonly webContents = new FakeWebContents();
    constructor(readonly options: { webPreferences: Record<string, unknown>; show?: boolean; title?: string }) {
      super();
      record.windows.push(this);
      app.emit('web-contents-created', fakeEvent({}), this.webContents);
    }
    loadURL(url: string) {
      this.loadedUrl = url;
      return Promise.resolve();
    }
    show() {
      this.visible = true;
    }
    hide() {
      this.visible = false;
    }
    focus() {}
    restore() {}
    isMinimized() {
      return false;
    }
    isDestroyed() {
      return this.destroyed;
    }
    /** What a click on the window's close button does. */
    close() {
      const event = fakeEvent({});
      this.emit('close', event);
      if (!event.defaultPrevented) this.destroyed = true;
    }
  }

  class FakeTray {
    tooltip = '';
    menu: FakeMenuItem[] = [];
    destroyed = false;
    private readonly handlers = new Map<string, Listener>();
    constructor(readonly image: unknown) {
      record.trays.push(this);
    }
    setToolTip(text: string) {
      this.tooltip = text;
    }
    setContextMenu(menu: { items: FakeMenuItem[] }) {
      this.menu = menu.items;
    }
    setImage() {}
    on(event: string, handler: Listener) {
      this.handlers.set(event, handler);
    }
    destroy() {
      this.destroyed = true;
    }
  }

  class FakeNotification {
    static isSupported() {
      return true;
    }
    constructor(private readonly content: { title: string; body: string }) {}
    show() {
      record.notifications.push(this.content);
    }
  }

  const app = new FakeApp();
  const ipcMain = new EventEmitter();
  const backend = options.storageBackend ?? 'gnome_libsecret';

  const electron = {
    app,
    ipcMain,
    BrowserWindow: FakeBrowserWindow,
    Tray: FakeTray,
    Notification: FakeNotification,
    Menu: {
      buildFromTemplate: (items: FakeMenuItem[]) => ({ items }),
      setApplicationMenu: (menu: { items: FakeMenuItem[] } | null) => {
        record.applicationMenu = menu?.items ?? null;
      },
    },
    nativeImage: {
      createEmpty: () => ({ addRepresentation() {}, setTemplateImage() {} }),
    },
    clipboard: { writeText: (text: string) => record.clipboard.push(text) },
    shell: {
      openExternal: async (url: string) => {
        record.openedExternally.push(url);
      },
    },
    dialog: {
      showErrorBox: (title: string, message: string) => record.errorBoxes.push({ title, message }),
      showMessageBox: async (box: { message: string; detail?: string; buttons: string[] }) => {
        record.messageBoxes.push(box);
        return { response: options.messageBoxResponse?.() ?? 0, checkboxChecked: false };
      },
    },
    session: {
      defaultSession: {
        webRequest: {
          onHeadersReceived: (listener: NonNullable<typeof record.headersListener>) => {
            record.headersListener = listener;
          },
        },
        setPermissionRequestHandler: (handler: NonNullable<typeof record.permissionRequestHandler>) => {
          record.permissionRequestHandler = handler;
        },
        setPermissionCheckHandler: (handler: NonNullable<typeof record.permissionCheckHandler>) => {
          record.permissionCheckHandler = handler;
        },
      },
    },
    safeStorage: {
      isAsyncEncryptionAvailable: async () => true,
      isEncryptionAvailable: () => true,
      getSelectedStorageBackend: () => backend,
      encryptStringAsync: async (text: string) => Buffer.from(`sealed:${Buffer.from(text).toString('hex')}`),
      decryptStringAsync: async (sealed: Buffer) => ({ result: Buffer.from(sealed.toString().slice('sealed:'.length), 'hex').toString(), shouldReEncrypt: false }),
      encryptString: () => {
        throw new Error('the deprecated sync API was used');
      },
      decryptString: () => {
        throw new Error('the deprecated sync API was used');
      },
    },
  };
  return { electron, record, app, ipcMain };
}

export type FakeElectron = ReturnType<typeof createFakeElectron>;

/**
 * The body of a test file's `vi.mock('electron', ...)`: a fake with its own userData folder, kept in
 * `state` (made with vi.hoisted) for the test to inspect.
 */
export function mockElectronModule(state: { fake: FakeElectron | null }, options: { messageBoxResponse?: () => number } = {}): FakeElectron['electron'] {
  state.fake = createFakeElectron({ userData: mkdtempSync(join(tmpdir(), 'gatehouse-fake-userdata-')), ...options });
  return state.fake.electron;
}
