/**
 * The extension's one piece of mutable state, created by `activate` and handed to every
 * module that needs it (nothing else in the extension holds state at module level).
 */
import * as vscode from 'vscode';
import { LanguageClient } from 'vscode-languageclient/node';

import { CrashBudget, DebouncedRunner } from './core/debounce';
import { ResolvedInterpreter } from './core/interpreter';
import { StatusStore } from './core/status';

export interface PrismState {
  readonly context: vscode.ExtensionContext;
  readonly output: vscode.OutputChannel;
  readonly statusItem: vscode.StatusBarItem;
  /** Per-document `prism/status`, keyed by normalized uri. */
  readonly statuses: StatusStore;
  readonly crashBudget: CrashBudget;
  /** Settings problems already shown (each once). */
  readonly reportedProblems: Set<string>;
  client: LanguageClient | undefined;
  /** The interpreter of the running (or failed) server. */
  running: ResolvedInterpreter | undefined;
  /** The last interpreter a server started with: never silently given up for an implicit choice. */
  lastWorking: ResolvedInterpreter | undefined;
  /** Why the server is not running, when it is not. */
  serverProblem: string | undefined;
  restarter: DebouncedRunner | undefined;
  /** The next restart happens even when the interpreter did not change (first start, the command). */
  forceRestart: boolean;
  /** Whether the server has been started once (the first start is not a "restart"). */
  started: boolean;
  pythonEnvSubscribed: boolean;
  /** Called with a document uri whenever a run of it finished with results (the Test Explorer listens). */
  readonly resultListeners: ((uri: string) => void)[];
  /** Called whenever the status bar is redrawn (the sidebar view redraws with it). */
  readonly viewListeners: (() => void)[];
}

function normalizeUri(uri: string): string {
  try {
    return vscode.Uri.parse(uri, true).toString();
  } catch {
    return uri;
  }
}

export function createState(context: vscode.ExtensionContext): PrismState {
  const statusItem = vscode.window.createStatusBarItem('prism.status', vscode.StatusBarAlignment.Left, 50);
  statusItem.name = 'Prism';
  return {
    context,
    output: vscode.window.createOutputChannel('Prism'),
    statusItem,
    statuses: new StatusStore(normalizeUri),
    crashBudget: new CrashBudget(),
    reportedProblems: new Set<string>(),
    client: undefined,
    running: undefined,
    lastWorking: undefined,
    serverProblem: undefined,
    restarter: undefined,
    forceRestart: true,
    started: false,
    pythonEnvSubscribed: false,
    resultListeners: [],
    viewListeners: [],
  };
}

export function log(state: PrismState, line: string): void {
  state.output.appendLine(`[client ${new Date().toISOString()}] ${line}`);
}

export function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

export function serverRunning(state: PrismState): boolean {
  return state.client?.isRunning() === true;
}
