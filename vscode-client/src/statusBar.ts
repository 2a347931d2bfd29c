/** The status bar item: the active document's `prism/status`, or why the server is not running. */
import * as vscode from 'vscode';

import { CLIENT_COMMANDS } from './core/commands';
import { PrismState } from './state';
import { isTrusted } from './config';
import { formatStatus, tooSmall } from './core/status';
import { MANAGE_TRUST, UNTRUSTED_STATUS } from './core/trust';

export function updateStatusBar(state: PrismState): void {
  for (const listener of state.viewListeners) {
    listener();
  }
  const item = state.statusItem;
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    item.hide();
    return;
  }
  const uri = editor.document.uri.toString();
  const status = state.statuses.get(uri);
  if (!isTrusted() && editor.document.languageId === 'python' && !state.serverProblem) {
    item.text = UNTRUSTED_STATUS.text;
    item.tooltip = UNTRUSTED_STATUS.tooltip;
    item.backgroundColor = undefined;
    item.command = { title: MANAGE_TRUST.title, command: MANAGE_TRUST.command };
    item.show();
    return;
  }
  if (status) {
    const view = formatStatus(status);
    item.text = view.text;
    item.tooltip = view.tooltip;
    item.backgroundColor = status.state === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    item.command =
      status.state === 'no-task'
        ? undefined
        : tooSmall(status)
          ? { title: 'Build Panel', command: CLIENT_COMMANDS.buildPanel, arguments: [uri] }
          : { title: 'Run Panel', command: CLIENT_COMMANDS.runPanel, arguments: [uri] };
    item.show();
    return;
  }
  if (state.serverProblem && editor.document.languageId === 'python') {
    item.text = '$(warning) Prism: server not running';
    item.tooltip = state.serverProblem;
    item.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    item.command = { title: 'Show Output', command: CLIENT_COMMANDS.showOutput };
    item.show();
    return;
  }
  item.hide();
}
