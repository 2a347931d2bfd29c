/**
 * Which Python runs the server: `prism.interpreter`, else the Python extension's active
 * interpreter (watched, so a change restarts the server), else `python3` on PATH.
 */
import * as os from 'os';
import * as vscode from 'vscode';

import { ResolvedInterpreter, interpreterFromPythonApi, resolveInterpreter, withTimeout } from './core/interpreter';
import { isTrusted, prismConfig } from './config';
import { PrismState, describe, log } from './state';

const PYTHON_EXTENSION_ID = 'ms-python.python';
const PYTHON_API_TIMEOUT_MS = 10_000;

/** The folder (or file) whose settings apply: the active file's workspace folder, else the first folder. */
export function activeResource(): vscode.Uri | undefined {
  const doc = vscode.window.activeTextEditor?.document;
  if (doc && doc.uri.scheme === 'file') {
    return vscode.workspace.getWorkspaceFolder(doc.uri)?.uri ?? doc.uri;
  }
  return vscode.workspace.workspaceFolders?.[0]?.uri;
}

export function expandContext(): { workspaceFolder: string | undefined; home: string } {
  return { workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath, home: os.homedir() };
}

async function pythonExtensionInterpreter(state: PrismState): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension(PYTHON_EXTENSION_ID);
  if (!ext) {
    return undefined;
  }
  const api: unknown = ext.isActive ? ext.exports : await ext.activate();
  subscribeToPythonEnvironment(state, api);
  return withTimeout(interpreterFromPythonApi(api, activeResource()), PYTHON_API_TIMEOUT_MS, undefined);
}

function subscribeToPythonEnvironment(state: PrismState, api: unknown): void {
  if (state.pythonEnvSubscribed || typeof api !== 'object' || api === null) {
    return;
  }
  const environments = (api as { environments?: { onDidChangeActiveEnvironmentPath?: unknown } }).environments;
  const event = environments?.onDidChangeActiveEnvironmentPath;
  if (typeof event !== 'function') {
    return;
  }
  try {
    const disposable = (event as vscode.Event<unknown>)(() => {
      log(state, 'The Python extension changed the active interpreter.');
      state.restarter?.trigger();
    });
    state.pythonEnvSubscribed = true;
    state.context.subscriptions.push(disposable);
  } catch (err) {
    log(state, `Could not watch the Python extension's interpreter: ${describe(err)}`);
  }
}

export function resolve(state: PrismState): Promise<ResolvedInterpreter> {
  const folder = activeResource();
  return resolveInterpreter({
    setting: () => prismConfig(folder).get('interpreter'),
    // Not trusted: the Python extension's choice can come from the folder's own settings.
    pythonExtension: () => (isTrusted() ? pythonExtensionInterpreter(state) : Promise.resolve(undefined)),
    fallback: process.platform === 'win32' ? 'python' : 'python3',
    expand: expandContext(),
    log: (line) => {
      log(state, line);
    },
  });
}
