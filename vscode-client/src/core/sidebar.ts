/**
 * The Prism view in the sidebar: the active suite's panel state in a few rows, the last one the
 * next thing to do (trust the folder, install the server, build a panel, run it, read the
 * matrix). Pure: no `vscode`; `sidebarView.ts` shows these rows.
 */
import { StatusParams, formatStatus, tooSmall } from './status';

export interface SidebarRow {
  label: string;
  detail?: string;
  /** A command id (with the suite's uri as argument when it takes one). */
  command?: string;
  /** The row is the next action. */
  next?: boolean;
}

export interface SidebarInput {
  trusted: boolean;
  serverProblem: string | undefined;
  fileName: string | undefined;
  status: StatusParams | undefined;
}

export const SIDEBAR_COMMANDS = {
  manageTrust: 'workbench.trust.manage',
  showOutput: 'prism.showOutput',
  restart: 'prism.restartServer',
  buildPanel: 'prism.buildPanel',
  run: 'prism.run',
  matrix: 'prism.showKillMatrix',
  checkPanel: 'prism.checkPanel',
} as const;

export function sidebarRows(input: SidebarInput): SidebarRow[] {
  if (!input.trusted) {
    return [
      { label: 'Folder not trusted: static hints only', detail: 'No panel runs in Restricted Mode.' },
      { label: 'Next: trust the folder', command: SIDEBAR_COMMANDS.manageTrust, next: true },
    ];
  }
  if (input.serverProblem !== undefined) {
    return [
      { label: 'Server not running', detail: input.serverProblem },
      { label: 'Next: install the server (see the output), then restart it', command: SIDEBAR_COMMANDS.restart, next: true },
      { label: 'Show Output', command: SIDEBAR_COMMANDS.showOutput },
    ];
  }
  const s = input.status;
  if (!input.fileName || !s) {
    return [{ label: 'Open a test file of a task', detail: 'A folder with a prism.toml above the suite.' }];
  }
  const head: SidebarRow = { label: input.fileName };
  switch (s.state) {
    case 'no-task':
      return [head, { label: 'No task: no prism.toml above this file', detail: 'Run `prism init` in a terminal to make one.' }];
    case 'running':
      return [head, { label: formatStatus(s).text.replace(/^\$\([^)]*\)\s*/, '') }];
    case 'error':
      return [
        head,
        { label: 'Error: the suite could not be judged', detail: s.message ?? undefined },
        { label: 'Next: fix it, then run the panel', command: SIDEBAR_COMMANDS.run, next: true },
        { label: 'Show Output', command: SIDEBAR_COMMANDS.showOutput },
      ];
    case 'idle': {
      const verdict = formatStatus(s).text.replace(/^\$\([^)]*\)\s*/, '').replace(/^Prism( \(last run\))?: /, '');
      const rows: SidebarRow[] = [head, { label: s.stale ? `Last run (older version): ${verdict}` : verdict, detail: s.message ?? undefined }];
      if (s.metrics === null) {
        rows.push({ label: 'Next: run the panel', command: SIDEBAR_COMMANDS.run, next: true });
      } else if (tooSmall(s)) {
        rows.push({ label: `Panel too small: cannot judge ${s.unjudged.join(' or ')}` });
        rows.push({ label: 'Next: build a panel', command: SIDEBAR_COMMANDS.buildPanel, next: true });
      } else if (s.metrics.jsf) {
        rows.push({ label: 'Next: read the kill matrix', command: SIDEBAR_COMMANDS.matrix, next: true });
      } else {
        rows.push({ label: 'Next: fix the findings (squiggles, quick fixes), or read the kill matrix', command: SIDEBAR_COMMANDS.matrix, next: true });
      }
      rows.push({ label: 'Check Panel', command: SIDEBAR_COMMANDS.checkPanel });
      return rows;
    }
  }
}
