/**
 * Just enough of the `vscode` module to run the real extension and the real
 * vscode-languageclient in node. Anything not modelled here is a no-op proxy.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

type Listener<T> = (e: T) => unknown;

export class EventEmitter<T> {
  private listeners: Listener<T>[] = [];
  event = (listener: Listener<T>): { dispose(): void } => {
    this.listeners.push(listener);
    return {
      dispose: () => {
        this.listeners = this.listeners.filter((l) => l !== listener);
      },
    };
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) {
      l(e);
    }
  }
  dispose(): void {
    this.listeners = [];
  }
}

export class Disposable {
  constructor(private readonly fn: () => void = () => undefined) {}
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => {
      for (const i of items) {
        i.dispose();
      }
    });
  }
  dispose(): void {
    this.fn();
  }
}

export class Uri {
  constructor(
    readonly scheme: string,
    readonly path: string,
    private readonly text: string,
  ) {}
  get fsPath(): string {
    return this.path;
  }
  get authority(): string {
    return '';
  }
  static parse(text: string): Uri {
    const m = /^([a-z][a-z0-9+.-]*):(?:\/\/[^/]*)?(.*)$/i.exec(text);
    return new Uri(m?.[1] ?? 'file', decodeURIComponent(m?.[2] ?? text), text);
  }
  static file(p: string): Uri {
    return new Uri('file', p, `file://${p}`);
  }
  toString(): string {
    return this.text;
  }
  toJSON(): unknown {
    return { scheme: this.scheme, path: this.path };
  }
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export class CancellationTokenSource {
  private readonly emitter = new EventEmitter<void>();
  token = { isCancellationRequested: false, onCancellationRequested: this.emitter.event };
  cancel(): void {
    this.token.isCancellationRequested = true;
    this.emitter.fire();
  }
  dispose(): void {
    this.emitter.dispose();
  }
}

export class CancellationError extends Error {}

const noop = (): Disposable => new Disposable();

/** A callable, constructible, indexable stand-in for every API not modelled. */
function anything(name: string): unknown {
  const target = function () {
    return undefined;
  };
  return new Proxy(target, {
    get: (_t, prop) => {
      if (prop === 'then') {
        return undefined;
      }
      if (prop === Symbol.toPrimitive) {
        return () => name;
      }
      return anything(`${name}.${String(prop)}`);
    },
    apply: () => new Disposable(),
    construct: () => ({}),
  });
}

export interface FakeState {
  settings: Record<string, unknown>;
  commands: Map<string, (...args: unknown[]) => unknown>;
  messages: { level: string; text: string; items: string[] }[];
  answers: (string | undefined)[];
  quickPickChoice: (items: unknown[]) => unknown;
  opened: string[];
  clipboard: string[];
  statusItems: { text: string; tooltip: unknown; command: unknown; visible: boolean }[];
  output: string[];
  configListeners: EventEmitter<{ affectsConfiguration(section: string): boolean }>;
  activeEditor: { document: { uri: Uri; languageId: string } } | undefined;
}

export function createFakeVscode(packageRoot: string): { api: Record<string, unknown>; state: FakeState } {
  const pkg = JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { default?: unknown }> } };
  };
  const defaults = Object.fromEntries(Object.entries(pkg.contributes.configuration.properties).map(([k, v]) => [k, v.default]));

  const state: FakeState = {
    settings: {},
    commands: new Map(),
    messages: [],
    answers: [],
    quickPickChoice: (items) => items[0],
    opened: [],
    clipboard: [],
    statusItems: [],
    output: [],
    configListeners: new EventEmitter(),
    activeEditor: undefined,
  };

  const message =
    (level: string) =>
    (text: string, ...items: unknown[]): Promise<string | undefined> => {
      state.messages.push({ level, text, items: items.filter((i): i is string => typeof i === 'string') });
      return Promise.resolve(state.answers.shift());
    };

  const outputChannel = () => ({
    name: 'Prism',
    append: (s: string) => state.output.push(s),
    appendLine: (s: string) => state.output.push(s),
    replace: () => undefined,
    clear: () => undefined,
    show: () => undefined,
    hide: () => undefined,
    dispose: () => undefined,
  });

  const configuration = (section?: string) => ({
    get: (key: string, fallback?: unknown): unknown => {
      const full = section ? `${section}.${key}` : key;
      if (full in state.settings) {
        return state.settings[full];
      }
      if (full in defaults) {
        return defaults[full];
      }
      return fallback;
    },
    has: () => false,
    inspect: () => undefined,
    update: () => Promise.resolve(),
  });

  const watcher = () => ({
    onDidCreate: noop,
    onDidChange: noop,
    onDidDelete: noop,
    dispose: () => undefined,
    ignoreCreateEvents: false,
    ignoreChangeEvents: false,
    ignoreDeleteEvents: false,
  });

  const api: Record<string, unknown> = {
    version: '1.82.0',
    EventEmitter,
    Disposable,
    Uri,
    ThemeColor,
    CancellationTokenSource,
    CancellationError,
    StatusBarAlignment: { Left: 1, Right: 2 },
    ViewColumn: { Active: -1, Beside: -2, One: 1 },
    FileType: { Unknown: 0, File: 1, Directory: 2, SymbolicLink: 64 },
    ProgressLocation: { SourceControl: 1, Window: 10, Notification: 15 },
    env: {
      language: 'en',
      appName: 'fake',
      machineId: 'fake',
      clipboard: {
        writeText: (s: string) => {
          state.clipboard.push(s);
          return Promise.resolve();
        },
      },
      openExternal: () => Promise.resolve(true),
    },
    commands: {
      registerCommand: (id: string, fn: (...args: unknown[]) => unknown) => {
        if (state.commands.has(id)) {
          throw new Error(`command '${id}' already exists`);
        }
        state.commands.set(id, fn);
        return new Disposable(() => state.commands.delete(id));
      },
      executeCommand: (id: string, ...args: unknown[]) => {
        const fn = state.commands.get(id);
        return Promise.resolve(fn ? fn(...args) : undefined);
      },
    },
    extensions: { getExtension: () => undefined, all: [] },
    window: {
      get activeTextEditor() {
        return state.activeEditor;
      },
      visibleTextEditors: [],
      tabGroups: { all: [], onDidChangeTabs: noop, onDidChangeTabGroups: noop },
      onDidChangeActiveTextEditor: noop,
      onDidChangeVisibleTextEditors: noop,
      createOutputChannel: outputChannel,
      createStatusBarItem: () => {
        const item = {
          text: '',
          tooltip: undefined as unknown,
          command: undefined as unknown,
          visible: false,
          name: '',
          backgroundColor: undefined as unknown,
          show() {
            item.visible = true;
          },
          hide() {
            item.visible = false;
          },
          dispose() {
            item.visible = false;
          },
        };
        state.statusItems.push(item);
        return item;
      },
      showErrorMessage: message('error'),
      showWarningMessage: message('warning'),
      showInformationMessage: message('information'),
      showQuickPick: (items: unknown[]) => Promise.resolve(state.quickPickChoice(items)),
      showTextDocument: () => Promise.resolve(undefined),
      withProgress: (_o: unknown, task: (p: unknown, t: unknown) => unknown) =>
        Promise.resolve(task({ report: () => undefined }, new CancellationTokenSource().token)),
    },
    workspace: {
      workspaceFolders: undefined,
      textDocuments: [],
      getConfiguration: configuration,
      getWorkspaceFolder: () => undefined,
      onDidChangeConfiguration: state.configListeners.event,
      onDidOpenTextDocument: noop,
      onDidCloseTextDocument: noop,
      onDidChangeTextDocument: noop,
      onDidSaveTextDocument: noop,
      onWillSaveTextDocument: noop,
      onDidChangeWorkspaceFolders: noop,
      onDidCreateFiles: noop,
      onDidRenameFiles: noop,
      onDidDeleteFiles: noop,
      onWillCreateFiles: noop,
      onWillRenameFiles: noop,
      onWillDeleteFiles: noop,
      onDidOpenNotebookDocument: noop,
      onDidChangeNotebookDocument: noop,
      onDidSaveNotebookDocument: noop,
      onDidCloseNotebookDocument: noop,
      notebookDocuments: [],
      createFileSystemWatcher: watcher,
      fs: { stat: () => Promise.resolve({ type: 1 }) },
      openTextDocument: (uri: Uri) => {
        state.opened.push(uri.toString());
        return Promise.resolve({ uri });
      },
      applyEdit: () => Promise.resolve(true),
    },
    languages: new Proxy(
      { match: () => 0, createDiagnosticCollection: () => anything('diagnostics') },
      { get: (t, p: string) => (p in t ? (t as Record<string, unknown>)[p] : noop) },
    ),
  };

  return {
    api: new Proxy(api, { get: (t, p) => (typeof p === 'string' && !(p in t) ? anything(p) : t[p as string]) }),
    state,
  };
}
