/**
 * Candidates as read-only documents: the `prism-candidate:` scheme, whose text the server serves
 * (`prism/candidateFile`) from its digest-verified tree cache, and the diff of a candidate's
 * changed file against the initial program (`prism/candidate`, then `vscode.diff`). Nothing
 * here opens a file inside Prism's cache, so no edit in the editor can change a verdict.
 */
import * as vscode from 'vscode';

import { candidateOfUri, candidateViewTitle, parseCandidateView } from './core/commands';
import { PrismState, describe, log, serverRunning } from './state';

export const CANDIDATE_SCHEME = 'prism-candidate';
export const CANDIDATE_REQUEST = 'prism/candidate';
export const CANDIDATE_FILE_REQUEST = 'prism/candidateFile';

/** Serves `prism-candidate:` documents (read-only: VS Code never saves a content provider's text). */
export function registerCandidateDocuments(state: PrismState): vscode.Disposable {
  const provider: vscode.TextDocumentContentProvider = {
    provideTextDocumentContent: async (uri) => {
      const client = state.client;
      if (!client || !serverRunning(state)) {
        return '# Prism: the server is not running, so this candidate cannot be shown.\n';
      }
      try {
        const answer: unknown = await client.sendRequest(CANDIDATE_FILE_REQUEST, { uri: uri.toString() });
        const text = typeof answer === 'object' && answer !== null ? (answer as { text?: unknown }).text : undefined;
        return typeof text === 'string' ? text : '';
      } catch (err) {
        return `# Prism: ${describe(err)}\n`;
      }
    },
  };
  return vscode.workspace.registerTextDocumentContentProvider(CANDIDATE_SCHEME, provider);
}

/**
 * Opens the candidate as one view, titled with its id and label: one changed file as a diff at
 * the change (initial program's file ↔ the candidate's); several files in one multi-file diff
 * (`vscode.changes`), or, where VS Code lacks it, as diffs in one editor group.
 */
export async function openCandidateDiff(state: PrismState, documentUri: string, candidateId: string): Promise<void> {
  const client = state.client;
  if (!client) {
    return;
  }
  let raw: unknown;
  try {
    raw = await client.sendRequest(CANDIDATE_REQUEST, { uri: documentUri, id: candidateId });
  } catch (err) {
    void vscode.window.showErrorMessage(`Prism: could not show ${candidateId}: ${describe(err)}`);
    return;
  }
  const view = parseCandidateView(raw);
  if (!view || view.files.length === 0) {
    void vscode.window.showInformationMessage(`Prism: ${candidateId} changes no file of the initial program.`);
    return;
  }
  const title = candidateViewTitle(view);
  if (view.files.length > 1) {
    try {
      const changes = view.files.map((f) => [vscode.Uri.parse(f.candidate), vscode.Uri.parse(f.initial), vscode.Uri.parse(f.candidate)]);
      await vscode.commands.executeCommand('vscode.changes', title, changes);
      return;
    } catch (err) {
      log(state, `vscode.changes is not available (${describe(err)}); opening each file's diff in one group.`);
    }
  }
  let column: vscode.ViewColumn = vscode.ViewColumn.Beside;
  for (const file of view.files) {
    const selection = new vscode.Range(file.line, 0, file.line, 0);
    const name = view.files.length === 1 ? title : `${view.title}: ${file.path}`;
    await vscode.commands.executeCommand('vscode.diff', vscode.Uri.parse(file.initial), vscode.Uri.parse(file.candidate), name, {
      preview: view.files.length === 1,
      selection,
      viewColumn: column,
    });
    // The next file joins this group (Beside again would open one more group per file).
    column = vscode.window.activeTextEditor?.viewColumn ?? column;
  }
}

/**
 * A `prism-candidate:` document opened on its own (a diagnostic's related information) reads as
 * the real file, titled `solution.py`: it is replaced by the candidate's diff view.
 */
export function redirectPlainCandidates(state: PrismState): vscode.Disposable {
  return vscode.window.onDidChangeActiveTextEditor(async (editor) => {
    const uri = editor?.document.uri;
    if (uri?.scheme !== CANDIDATE_SCHEME) {
      return;
    }
    const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
    if (!tab || !(tab.input instanceof vscode.TabInputText)) {
      return; // a diff (or no tab): already the candidate's view
    }
    const target = candidateOfUri(uri.path, uri.query);
    if (!target || target.program === 'initial') {
      return;
    }
    await vscode.window.tabGroups.close(tab);
    await openCandidateDiff(state, target.document, target.program);
  });
}
