/**
 * Candidates as read-only documents: the `prism-candidate:` scheme, whose text the server serves
 * (`prism/candidateFile`) from its digest-verified tree cache, and the diff of a candidate's
 * changed file against the initial program (`prism/candidate`, then `vscode.diff`). Nothing
 * here opens a file inside Prism's cache, so no edit in the editor can change a verdict.
 */
import * as vscode from 'vscode';

import { parseCandidateView } from './core/commands';
import { PrismState, describe, serverRunning } from './state';

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

/** Opens each file the candidate changed as a diff: the initial program's file ↔ the candidate's. */
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
  for (const file of view.files) {
    const selection = new vscode.Range(file.line, 0, file.line, 0);
    await vscode.commands.executeCommand(
      'vscode.diff',
      vscode.Uri.parse(file.initial),
      vscode.Uri.parse(file.candidate),
      `${file.path}: initial ↔ ${view.title}`,
      { preview: view.files.length === 1, selection, viewColumn: vscode.ViewColumn.Beside },
    );
  }
}
