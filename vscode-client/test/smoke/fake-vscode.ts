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

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(a: Position | number, b: Position | number, c?: number, d?: number) {
    if (typeof a === 'number' && typeof b === 'number') {
      this.start = new Position(a, b);
      this.end = new Position(c ?? a, d ?? b);
    } else {
      this.start = a as Position;
      this.end = b as Position;
    }
  }
}

export class Location {
  readonly range: Range;
  /** Like VS Code's: a position stands for the empty range at it. */
  constructor(
    readonly uri: Uri,
    where: Range | Position,
  ) {
    this.range = where instanceof Position ? new Range(where, where) : where;
  }
}

export class DiagnosticRelatedInformation {
  constructor(
    readonly location: Location,
    readonly message: string,
  ) {}
}

export const DiagnosticSeverity = { Error: 0, Warning: 1, Information: 2, Hint: 3 } as const;
export const DiagnosticTag = { Unnecessary: 1, Deprecated: 2 } as const;

export class Diagnostic {
  code: string | number | { value: string | number; target: Uri } | undefined;
  source: string | undefined;
  relatedInformation: DiagnosticRelatedInformation[] | undefined;
  tags: number[] | undefined;
  constructor(
    readonly range: Range,
    readonly message: string,
    readonly severity: number = DiagnosticSeverity.Error,
  ) {}
}

/** A text document as the language client reads it (uri, languageId, version, getText). */
export interface FakeTextDocument {
  uri: Uri;
  fileName: string;
  languageId: string;
  version: number;
  isClosed: boolean;
  isDirty: boolean;
  isUntitled: boolean;
  lineCount: number;
  getText(): string;
}

interface DocumentFilter {
  language?: string;
  scheme?: string;
  pattern?: unknown;
  notebookType?: string;
}

/** `vscode.languages.match` for the selectors the extension uses: language and scheme (patterns unsupported). */
function matchSelector(selector: unknown, doc: FakeTextDocument): number {
  const filters: unknown[] = Array.isArray(selector) ? selector : [selector];
  let best = 0;
  for (const f of filters) {
    if (typeof f === 'string') {
      best = Math.max(best, f === doc.languageId ? 10 : f === '*' ? 5 : 0);
      continue;
    }
    const filter = f as DocumentFilter;
    if (filter.pattern !== undefined || filter.notebookType !== undefined) {
      continue;
    }
    if (filter.language !== undefined && filter.language !== '*' && filter.language !== doc.languageId) {
      continue;
    }
    if (filter.scheme !== undefined && filter.scheme !== '*' && filter.scheme !== doc.uri.scheme) {
      continue;
    }
    best = Math.max(best, filter.language !== undefined && filter.language !== '*' ? 10 : 5);
  }
  return best;
}

/** The Testing API, as far as the extension uses it: items, run profiles, runs and their results. */
export class MarkdownString {
  value = '';
  isTrusted: unknown;
  appendText(text: string): this {
    this.value += text;
    return this;
  }
  appendMarkdown(text: string): this {
    this.value += text;
    return this;
  }
}

export class TestMessage {
  location: Location | undefined;
  expectedOutput: string | undefined;
  actualOutput: string | undefined;
  constructor(readonly message: string | MarkdownString) {}
  static diff(message: string | MarkdownString, expected: string, actual: string): TestMessage {
    const m = new TestMessage(message);
    m.expectedOutput = expected;
    m.actualOutput = actual;
    return m;
  }
}

export class TestRunRequest {
  constructor(readonly include?: FakeTestItem[]) {}
}

export class FakeTestItems {
  private readonly map = new Map<string, FakeTestItem>();
  constructor(private readonly owner?: FakeTestItem) {}
  get size(): number {
    return this.map.size;
  }
  get(id: string): FakeTestItem | undefined {
    return this.map.get(id);
  }
  add(item: FakeTestItem): void {
    item.parent = this.owner;
    this.map.set(item.id, item);
  }
  replace(items: FakeTestItem[]): void {
    this.map.clear();
    for (const item of items) {
      this.add(item);
    }
  }
  forEach(fn: (item: FakeTestItem) => void): void {
    [...this.map.values()].forEach(fn);
  }
}

export class FakeTestItem {
  parent: FakeTestItem | undefined;
  sortText: string | undefined;
  range: unknown;
  readonly children: FakeTestItems = new FakeTestItems(this);
  constructor(
    readonly id: string,
    readonly label: string,
    readonly uri: Uri | undefined,
  ) {}
}

/** One finished (or running) test run: what each item was told, in order. */
export interface FakeTestRun {
  name: string | undefined;
  persist: boolean;
  results: { id: string; result: 'started' | 'passed' | 'failed' | 'errored' | 'skipped'; message?: TestMessage }[];
  ended: boolean;
}

export class TreeItem {
  description: string | undefined;
  tooltip: string | undefined;
  iconPath: unknown;
  command: { title: string; command: string; arguments?: unknown[] } | undefined;
  constructor(readonly label: string) {}
}

export class ThemeIcon {
  constructor(readonly id: string) {}
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

export interface FakeStatusItem {
  text: string;
  tooltip: unknown;
  command: unknown;
  visible: boolean;
  /** Every text the item was given, in order. */
  texts: string[];
}

export interface FakeState {
  /** User (global) settings, flat (`prism.runOn`). */
  settings: Record<string, unknown>;
  /** The folder's own settings (`.vscode/settings.json`), over `settings`. */
  folderSettings: Record<string, unknown>;
  /** `workspace.isTrusted`; `grantTrust` fires `onDidGrantWorkspaceTrust`. */
  trusted: boolean;
  trustGranted: EventEmitter<void>;
  commands: Map<string, (...args: unknown[]) => unknown>;
  messages: { level: string; text: string; items: string[] }[];
  answers: (string | undefined)[];
  quickPickChoice: (items: unknown[]) => unknown;
  opened: string[];
  clipboard: string[];
  statusItems: FakeStatusItem[];
  output: string[];
  configListeners: EventEmitter<{ affectsConfiguration(section: string): boolean }>;
  activeEditor: { document: { uri: Uri; languageId: string } } | undefined;
  workspaceFolders: { uri: Uri; name: string; index: number }[] | undefined;
  /** Open documents (`workspace.textDocuments`); add with `openDocument`. */
  documents: FakeTextDocument[];
  /** The language client's diagnostics, by document uri (last `set` wins). */
  diagnostics: Map<string, Diagnostic[]>;
  /** Fires (with what changed) on diagnostics, status bar text and messages: wait on this, do not sleep. */
  changes: EventEmitter<string>;
  treeProviders: Map<string, unknown>;
  /** `workspace.registerTextDocumentContentProvider`, by scheme. */
  contentProviders: Map<string, { provideTextDocumentContent(uri: Uri): unknown }>;
  /** Every `vscode.diff` asked for: [left, right, title]. */
  diffs: [string, string, string][];
  /** The test controllers' root items and runs, and the run profiles' handlers. */
  testItems: FakeTestItems;
  testRuns: FakeTestRun[];
  runProfiles: ((request: TestRunRequest, token: unknown) => unknown)[];
}

/**
 * Resolves with `probe()`'s first value that is not undefined/false, checked now and on
 * every `state.changes` event; rejects after `ms` with `what` and `describe()` (the state seen).
 */
export function waitFor<T>(
  state: FakeState,
  what: string,
  probe: () => T | undefined | false,
  ms: number,
  describe: () => string = () => '',
): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const check = (): boolean => {
      let value: T | undefined | false;
      try {
        value = probe();
      } catch (err) {
        finish();
        reject(err instanceof Error ? err : new Error(String(err)));
        return true;
      }
      if (value !== undefined && value !== false) {
        finish();
        resolve(value);
        return true;
      }
      return false;
    };
    const timer = setTimeout(() => {
      finish();
      const seen = describe();
      reject(new Error(`timed out after ${ms} ms waiting for ${what}${seen ? `; seen: ${seen}` : ''}`));
    }, ms);
    const subscription = state.changes.event(() => {
      check();
    });
    function finish(): void {
      clearTimeout(timer);
      subscription.dispose();
    }
    check();
  });
}

export interface FakeVscode {
  api: Record<string, unknown>;
  state: FakeState;
  openDocument(fsPath: string, text: string, languageId?: string): FakeTextDocument;
}

export function createFakeVscode(packageRoot: string): FakeVscode {
  const pkg = JSON.parse(fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as {
    contributes: { configuration: { properties: Record<string, { default?: unknown }> } };
  };
  const defaults = Object.fromEntries(Object.entries(pkg.contributes.configuration.properties).map(([k, v]) => [k, v.default]));

  const state: FakeState = {
    settings: {},
    folderSettings: {},
    trusted: true,
    trustGranted: new EventEmitter(),
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
    workspaceFolders: undefined,
    documents: [],
    diagnostics: new Map(),
    changes: new EventEmitter(),
    treeProviders: new Map(),
    contentProviders: new Map(),
    diffs: [],
    testItems: new FakeTestItems(),
    testRuns: [],
    runProfiles: [],
  };

  function createTestController(): unknown {
    return {
      items: state.testItems,
      createTestItem: (id: string, label: string, uri?: Uri) => new FakeTestItem(id, label, uri),
      createRunProfile: (_label: string, _kind: number, handler: (request: TestRunRequest, token: unknown) => unknown) => {
        state.runProfiles.push(handler);
        return { dispose: () => undefined };
      },
      createTestRun: (_request: TestRunRequest, name?: string, persist = true) => {
        const record: FakeTestRun = { name, persist, results: [], ended: false };
        state.testRuns.push(record);
        const tell = (result: FakeTestRun['results'][number]['result']) => (item: FakeTestItem, message?: TestMessage) => {
          record.results.push({ id: item.id, result, message });
        };
        return {
          started: tell('started'),
          passed: tell('passed'),
          failed: tell('failed'),
          errored: tell('errored'),
          skipped: tell('skipped'),
          end: () => {
            record.ended = true;
            state.changes.fire('test run');
          },
        };
      },
      dispose: () => undefined,
    };
  }
  const documentOpened = new EventEmitter<FakeTextDocument>();
  const activeEditorChanged = new EventEmitter<unknown>();

  /** Opens a document in the fake workspace (the language client sends didOpen for it) and makes it active. */
  function openDocument(fsPath: string, text: string, languageId = 'python'): FakeTextDocument {
    const doc: FakeTextDocument = {
      uri: Uri.file(fsPath),
      fileName: fsPath,
      languageId,
      version: 1,
      isClosed: false,
      isDirty: false,
      isUntitled: false,
      lineCount: text.split('\n').length,
      getText: () => text,
    };
    state.documents.push(doc);
    documentOpened.fire(doc);
    state.activeEditor = { document: doc };
    activeEditorChanged.fire(state.activeEditor);
    return doc;
  }

  const diagnosticCollection = (name?: string) => {
    const set = (uri: Uri, diagnostics: readonly Diagnostic[] | undefined): void => {
      if (diagnostics === undefined) {
        state.diagnostics.delete(uri.toString());
      } else {
        state.diagnostics.set(uri.toString(), [...diagnostics]);
      }
    };
    return {
      name: name ?? 'fake',
      set: (first: Uri | [Uri, Diagnostic[] | undefined][], diagnostics?: readonly Diagnostic[]) => {
        if (Array.isArray(first)) {
          for (const [uri, diags] of first) {
            set(uri, diags);
          }
        } else {
          set(first, diagnostics);
        }
        state.changes.fire('diagnostics');
      },
      delete: (uri: Uri) => {
        state.diagnostics.delete(uri.toString());
        state.changes.fire('diagnostics');
      },
      clear: () => {
        state.diagnostics.clear();
        state.changes.fire('diagnostics');
      },
      get: (uri: Uri) => state.diagnostics.get(uri.toString()),
      has: (uri: Uri) => state.diagnostics.has(uri.toString()),
      forEach: (fn: (uri: Uri, diags: Diagnostic[]) => void) => {
        for (const [uri, diags] of state.diagnostics) {
          fn(Uri.parse(uri), diags);
        }
      },
      dispose: () => undefined,
    };
  };

  const message =
    (level: string) =>
    (text: string, ...items: unknown[]): Promise<string | undefined> => {
      state.messages.push({ level, text, items: items.filter((i): i is string => typeof i === 'string') });
      state.changes.fire('message');
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
      if (full in state.folderSettings) {
        return state.folderSettings[full];
      }
      if (full in state.settings) {
        return state.settings[full];
      }
      if (full in defaults) {
        return defaults[full];
      }
      return fallback;
    },
    has: () => false,
    inspect: (key: string) => {
      const full = section ? `${section}.${key}` : key;
      return { key: full, defaultValue: defaults[full], globalValue: state.settings[full], workspaceValue: state.folderSettings[full] };
    },
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
    Position,
    Range,
    Location,
    Diagnostic,
    DiagnosticSeverity,
    DiagnosticTag,
    DiagnosticRelatedInformation,
    ThemeColor,
    TreeItem,
    ThemeIcon,
    TestMessage,
    MarkdownString,
    TestRunRequest,
    TestRunProfileKind: { Run: 1, Debug: 2, Coverage: 3 },
    tests: { createTestController },
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
        if (id === 'vscode.diff') {
          const [left, right, title] = args as [Uri, Uri, string];
          state.diffs.push([left.toString(), right.toString(), title]);
          state.changes.fire('diff');
          return Promise.resolve(undefined);
        }
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
      onDidChangeActiveTextEditor: activeEditorChanged.event,
      onDidChangeVisibleTextEditors: noop,
      createOutputChannel: outputChannel,
      registerTreeDataProvider: (id: string, provider: unknown) => {
        state.treeProviders.set(id, provider);
        return { dispose: () => undefined };
      },
      createStatusBarItem: () => {
        let text = '';
        const item = {
          get text() {
            return text;
          },
          set text(value: string) {
            text = value;
            item.texts.push(value);
            state.changes.fire('status');
          },
          texts: [] as string[],
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
      get workspaceFolders() {
        return state.workspaceFolders;
      },
      get textDocuments() {
        return state.documents;
      },
      getConfiguration: configuration,
      get isTrusted() {
        return state.trusted;
      },
      onDidGrantWorkspaceTrust: state.trustGranted.event,
      getWorkspaceFolder: () => undefined,
      onDidChangeConfiguration: state.configListeners.event,
      onDidOpenTextDocument: documentOpened.event,
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
      registerTextDocumentContentProvider: (scheme: string, provider: { provideTextDocumentContent(uri: Uri): unknown }) => {
        state.contentProviders.set(scheme, provider);
        return new Disposable(() => state.contentProviders.delete(scheme));
      },
    },
    languages: new Proxy(
      { match: matchSelector, createDiagnosticCollection: diagnosticCollection },
      { get: (t, p: string) => (p in t ? (t as Record<string, unknown>)[p] : noop) },
    ),
  };

  return {
    api: new Proxy(api, { get: (t, p) => (typeof p === 'string' && !(p in t) ? anything(p) : t[p as string]) }),
    state,
    openDocument,
  };
}
