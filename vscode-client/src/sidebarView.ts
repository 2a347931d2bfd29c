/** The Prism view (Explorer sidebar): `core/sidebar.ts`'s rows for the active suite, redrawn with the status bar. */
import * as vscode from 'vscode';

import { SidebarRow, sidebarRows } from './core/sidebar';
import { isTrusted } from './config';
import { PrismState } from './state';

export const SIDEBAR_VIEW = 'prism.panel';

export class PrismSidebar implements vscode.TreeDataProvider<SidebarRow> {
  private readonly changed = new vscode.EventEmitter<undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  constructor(private readonly state: PrismState) {}

  refresh(): void {
    this.changed.fire(undefined);
  }

  getTreeItem(row: SidebarRow): vscode.TreeItem {
    const item = new vscode.TreeItem(row.label);
    item.description = row.detail;
    item.tooltip = row.detail ? `${row.label}\n${row.detail}` : row.label;
    if (row.next) {
      item.iconPath = new vscode.ThemeIcon('arrow-right');
    }
    if (row.command) {
      const uri = vscode.window.activeTextEditor?.document.uri.toString();
      item.command = { title: row.label, command: row.command, arguments: row.command.startsWith('prism.') && uri ? [uri] : [] };
    }
    return item;
  }

  getChildren(): SidebarRow[] {
    const editor = vscode.window.activeTextEditor;
    const uri = editor?.document.uri;
    return sidebarRows({
      trusted: isTrusted(),
      serverProblem: this.state.serverProblem,
      fileName: uri?.scheme === 'file' && editor?.document.languageId === 'python' ? uri.path.split('/').pop() : undefined,
      status: uri ? this.state.statuses.get(uri.toString()) : undefined,
    });
  }
}
