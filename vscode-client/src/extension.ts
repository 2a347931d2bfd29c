/**
 * Prism for VS Code: starts `prism-lsp` (`<python> -m prism_lsp`, stdio) and wires settings,
 * commands and the status bar to it. All intelligence is in the server. The pieces live in
 * modules of their own around one state object (`state.ts`): the client's lifecycle and
 * middleware (`client.ts`), the status bar (`statusBar.ts`), the candidate picker
 * (`candidatePicker.ts`), install advice (`installFlow.ts`) and the Python extension bridge
 * (`pythonBridge.ts`); everything testable without VS Code is in the vscode-free modules.
 */
import * as vscode from 'vscode';
import { ExecuteCommandRequest } from 'vscode-languageclient/node';

import { reactToConfigChange } from './core/settingEffects';
import { openCandidateDiff, redirectPlainCandidates, registerCandidateDocuments } from './candidateDocuments';
import { pickCandidate } from './candidatePicker';
import { showKillMatrix } from './killMatrix';
import { currentSettings, restartIfNeeded, restartServerNow, runPanelWithFeedback, stopClient } from './client';
import { CLIENT_COMMANDS, SERVER_DOWN_ACTIONS, planRunPanel } from './core/commands';
import { DebouncedRunner } from './core/debounce';
import { registerPanelCommands } from './panelCommands';
import { PrismState, createState, describe, log, serverRunning } from './state';
import { updateStatusBar } from './statusBar';
import { PrismSidebar, SIDEBAR_VIEW } from './sidebarView';
import { OPEN_CANDIDATE_COMMAND, TestExplorer } from './testExplorer';
import { isTrusted, prismConfig } from './config';
import { MANAGE_TRUST, untrustedNotice } from './core/trust';

const RESTART_DEBOUNCE_MS = 500;

let state: PrismState | undefined; // set by `activate`, for `deactivate` only

/** Says the server is down (and why, when known); offers to restart it. */
async function offerRestart(s: PrismState, message: string): Promise<void> {
  const choice = await vscode.window.showWarningMessage(message, SERVER_DOWN_ACTIONS.restart, SERVER_DOWN_ACTIONS.output);
  if (choice === SERVER_DOWN_ACTIONS.restart) {
    await restartServerNow(s);
  } else if (choice === SERVER_DOWN_ACTIONS.output) {
    s.output.show(true);
  }
}

/** `Prism: Run Panel`: always registered; forwards to the server's `prism.runPanel` when it runs. */
async function runPanel(s: PrismState, args: unknown[]): Promise<unknown> {
  const plan = planRunPanel(serverRunning(s), s.serverProblem, args, vscode.window.activeTextEditor?.document.uri.toString());
  switch (plan.kind) {
    case 'server-down':
      await offerRestart(s, plan.message);
      return undefined;
    case 'no-document':
      void vscode.window.showInformationMessage(plan.message);
      return undefined;
    case 'forward':
      if (!s.client) {
        return undefined;
      }
      try {
        const client = s.client;
        return await runPanelWithFeedback(() =>
          client.sendRequest(ExecuteCommandRequest.type, { command: plan.command, arguments: plan.arguments }),
        );
      } catch (err) {
        void vscode.window.showErrorMessage(`Prism: Run Panel failed: ${describe(err)}`);
        return undefined;
      }
  }
}

function onConfigurationChange(s: PrismState, e: vscode.ConfigurationChangeEvent): void {
  const reaction = reactToConfigChange((section) => e.affectsConfiguration(section), serverRunning(s));
  if (reaction === 'restart' || reaction === 'retry') {
    log(s, reaction === 'restart' ? 'A setting that needs a new server process changed.' : 'Retrying the server start after a settings change.');
    s.restarter?.trigger();
  } else if (reaction === 'live') {
    // Sent to the running server by the language client (didChangeConfiguration middleware),
    // which applies `prism.trace.server` itself: no restart, the server keeps its warm runners.
    s.reportedProblems.clear();
    currentSettings(s);
  }
}

/** Restricted Mode: say once that only static hints are shown, and why (else Prism looks broken). */
async function tellUntrusted(s: PrismState): Promise<void> {
  const notice = untrustedNotice(prismConfig().ignored);
  log(s, notice);
  const choice = await vscode.window.showInformationMessage(notice, MANAGE_TRUST.title);
  if (choice === MANAGE_TRUST.title) {
    await vscode.commands.executeCommand(MANAGE_TRUST.command);
  }
}

/** The folder became trusted: a new server, with the folder's own interpreter and settings, that runs the panel. */
async function onTrustGranted(s: PrismState): Promise<void> {
  log(s, 'The folder is now trusted: restarting the server so that it runs the panel.');
  updateStatusBar(s);
  await restartServerNow(s);
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  const s = createState(context);
  state = s;
  s.restarter = new DebouncedRunner(() => restartIfNeeded(s), RESTART_DEBOUNCE_MS, undefined, (err) => {
    log(s, `Restart failed: ${describe(err)}`);
  });
  const sidebar = new PrismSidebar(s);
  s.viewListeners.push(() => {
    sidebar.refresh();
  });
  context.subscriptions.push(
    vscode.window.registerTreeDataProvider(SIDEBAR_VIEW, sidebar),
    s.output,
    s.statusItem,
    {
      dispose: () => {
        s.restarter?.dispose();
      },
    },
    registerCandidateDocuments(s),
    redirectPlainCandidates(s),
    new TestExplorer(s),
    vscode.commands.registerCommand(CLIENT_COMMANDS.runPanel, (...args: unknown[]) => runPanel(s, args)),
    vscode.commands.registerCommand(CLIENT_COMMANDS.pickCandidate, () => pickCandidate(s, (message) => offerRestart(s, message))),
    vscode.commands.registerCommand(CLIENT_COMMANDS.showKillMatrix, () => showKillMatrix(s)),
    vscode.commands.registerCommand(OPEN_CANDIDATE_COMMAND, (suite: unknown, id: unknown) =>
      typeof suite === 'string' && typeof id === 'string' ? openCandidateDiff(s, suite, id) : undefined,
    ),
    vscode.commands.registerCommand(CLIENT_COMMANDS.restartServer, () => restartServerNow(s)),
    vscode.commands.registerCommand(CLIENT_COMMANDS.showOutput, () => {
      s.output.show(true);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      onConfigurationChange(s, e);
    }),
    vscode.window.onDidChangeActiveTextEditor(() => {
      updateStatusBar(s);
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => {
      void onTrustGranted(s);
    }),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      s.statuses.delete(doc.uri.toString());
      updateStatusBar(s);
    }),
  );
  registerPanelCommands(context, () => s.running?.command, () => s.output);
  if (!isTrusted()) {
    void tellUntrusted(s);
  }
  await restartServerNow(s);
}

export async function deactivate(): Promise<void> {
  if (state) {
    state.restarter?.dispose();
    await stopClient(state);
  }
}
