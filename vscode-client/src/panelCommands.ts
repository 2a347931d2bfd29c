/** Registers "Prism: Build Panel" and "Prism: Check Panel": they run `prism panel build|check` on the open file's task. */
import * as cp from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';

import { CLIENT_COMMANDS } from './core/commands';
import { isTrusted } from './config';
import { MANAGE_TRUST, UNTRUSTED_REASON } from './core/trust';
import { PANEL_COLUMNS, PanelAction, panelCommandLine, panelOutcome, taskRootOf } from './core/panel';

export function registerPanelCommands(
  context: vscode.ExtensionContext,
  python: () => string | undefined,
  output: () => vscode.OutputChannel,
): void {
  const run = (action: PanelAction) => async (): Promise<number | null | undefined> => {
    if (!isTrusted()) {
      // Building or checking a panel runs the task's programs: not in a folder that is not trusted.
      const choice = await vscode.window.showInformationMessage(UNTRUSTED_REASON, MANAGE_TRUST.title);
      if (choice === MANAGE_TRUST.title) {
        await vscode.commands.executeCommand(MANAGE_TRUST.command);
      }
      return undefined;
    }
    const doc = vscode.window.activeTextEditor?.document;
    const root = doc && doc.uri.scheme === 'file' ? taskRootOf(doc.uri.fsPath, (d) => fs.existsSync(path.join(d, 'prism.toml'))) : undefined;
    if (!root) {
      void vscode.window.showInformationMessage('Prism: open a file of a task (a folder with a prism.toml) first.');
      return undefined;
    }
    const interpreter = python();
    if (!interpreter) {
      void vscode.window.showWarningMessage('Prism: the server is not running, so its Python is not known; restart it first.');
      return undefined;
    }
    const line = panelCommandLine(interpreter, action, root);
    const channel = output();
    channel.show(true);
    channel.appendLine(`[prism panel ${action}] ${root}`);
    const code = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Prism: panel ${action}…` },
      () =>
        new Promise<number | null>((resolve) => {
          let last = '';
          let all = '';
          const child = cp.spawn(line.command, line.args, { cwd: root, env: { ...process.env, COLUMNS: PANEL_COLUMNS } });
          const take = (chunk: Buffer) => {
            const text = chunk.toString();
            all += text;
            channel.append(text);
            last = text.trim().split('\n').pop() ?? last;
          };
          child.stdout.on('data', take);
          child.stderr.on('data', take);
          child.on('error', (err) => {
            last = err.message;
            resolve(2);
          });
          child.on('close', (status) => {
            const outcome = panelOutcome(action, status, last, all);
            const show = { info: vscode.window.showInformationMessage, warning: vscode.window.showWarningMessage, error: vscode.window.showErrorMessage }[outcome.level];
            void show(outcome.message);
            resolve(status);
          });
        }),
    );
    return code;
  };
  context.subscriptions.push(
    vscode.commands.registerCommand(CLIENT_COMMANDS.buildPanel, run('build')),
    vscode.commands.registerCommand(CLIENT_COMMANDS.checkPanel, run('check')),
  );
}
