/**
 * When the interpreter cannot import the server: run the probes (`install.ts` decides what
 * they mean) and show the notification with the fix, acting on the button chosen.
 */
import * as cp from 'child_process';
import * as vscode from 'vscode';

import { FailedCheck, INSTALL_ACTIONS, InstallSettings, ProcessResult, installAdvice, probeEnvironment } from './core/install';
import { expandPath, settingsEditorFor } from './core/interpreter';
import { activeResource, expandContext } from './pythonBridge';
import { prismConfig } from './config';
import { SECTION } from './core/settings';
import { PrismState, log } from './state';

const IMPORT_CHECK_TIMEOUT_MS = 20_000;

/** The folder the server runs in: the first workspace folder on disk. */
export function serverCwd(): string | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder?.uri.scheme === 'file' ? folder.uri.fsPath : undefined;
}

export function runProcess(command: string, args: string[]): Promise<ProcessResult> {
  return new Promise((done) => {
    cp.execFile(command, args, { timeout: IMPORT_CHECK_TIMEOUT_MS, windowsHide: true, cwd: serverCwd() }, (error, stdout, stderr) => {
      if (!error) {
        done({ code: 0, stdout, stderr });
        return;
      }
      const e = error as NodeJS.ErrnoException & { killed?: boolean; code?: string | number };
      if (typeof e.code === 'string') {
        done({ code: null, stdout, stderr, spawnError: e.code });
      } else if (e.killed) {
        done({ code: null, stdout, stderr, timedOut: true });
      } else {
        done({ code: typeof e.code === 'number' ? e.code : 1, stdout, stderr });
      }
    });
  });
}

/** `prism.serverPackage`, expanded like `prism.interpreter`; '' when unset. */
function installSettings(): InstallSettings {
  const raw = prismConfig(activeResource()).get('serverPackage');
  const value = typeof raw === 'string' ? raw.trim() : '';
  return { serverPackage: value === '' ? '' : expandPath(value, expandContext()) };
}

/** Opens the settings editor of the scope where the setting lives (see `settingsEditorFor`). */
function openSetting(key: string): Thenable<unknown> {
  const scopes = vscode.workspace.getConfiguration(SECTION, activeResource()).inspect(key);
  const editor = settingsEditorFor(`${SECTION}.${key}`, scopes, vscode.env.remoteName);
  return vscode.commands.executeCommand(editor.command, ...editor.args);
}

/** The notification for an interpreter that cannot import the server (see `installAdvice`). */
async function offerInstall(
  state: PrismState,
  interpreter: string,
  message: string,
  command: string | undefined,
  actions: string[],
  retry: () => Promise<void>,
): Promise<void> {
  log(state, message);
  const choice = await vscode.window.showErrorMessage(message, ...actions);
  switch (choice) {
    case INSTALL_ACTIONS.copy:
      if (command !== undefined) {
        await vscode.env.clipboard.writeText(command);
        void vscode.window.showInformationMessage(`Prism: copied "${command}". Run it in a terminal, then "Prism: Restart Server".`);
      }
      break;
    case INSTALL_ACTIONS.setInterpreter:
      log(state, `Opening the setting prism.interpreter (now resolved to ${interpreter}).`);
      await openSetting('interpreter');
      break;
    case INSTALL_ACTIONS.setServerPackage:
      await openSetting('serverPackage');
      break;
    case INSTALL_ACTIONS.retry:
      await retry();
      break;
    case INSTALL_ACTIONS.output:
      state.output.show(true);
      break;
    default:
      break;
  }
}

/** Shows the advice for a failed import check (without waiting for the user); returns its message. */
export async function adviseInstall(state: PrismState, interpreter: string, check: FailedCheck, retry: () => Promise<void>): Promise<string> {
  // Whether pip may install into this Python (PEP 668) decides whether a command is offered.
  const environment = check.reason === 'module-missing' || check.reason === 'import-failed' ? await probeEnvironment(interpreter, runProcess) : undefined;
  const advice = installAdvice(interpreter, installSettings(), process.platform, check, environment);
  void offerInstall(state, interpreter, advice.message, advice.command, advice.actions, retry);
  return advice.message;
}
