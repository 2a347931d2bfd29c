/** `Prism: Show Kill Matrix`: the active suite's matrix (reveal `full`) in a webview; clicks open lines or diffs. */
import * as crypto from 'crypto';
import * as vscode from 'vscode';

import { openCandidateDiff } from './candidateDocuments';
import { matrixHtml, matrixTitle, parseClick, parseMatrix } from './core/matrixView';
import { PrismState, describe, serverRunning } from './state';

export const MATRIX_REQUEST = 'prism/matrix';

export async function showKillMatrix(state: PrismState): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const client = state.client;
  if (!editor || !client || !serverRunning(state)) {
    void vscode.window.showInformationMessage('Prism: open a test file of a task, with the server running, first.');
    return;
  }
  const documentUri = editor.document.uri.toString();
  let raw: unknown;
  try {
    raw = await client.sendRequest(MATRIX_REQUEST, { uri: documentUri });
  } catch (err) {
    void vscode.window.showErrorMessage(`Prism: no kill matrix: ${describe(err)}`);
    return;
  }
  const matrix = parseMatrix(raw);
  if (!matrix) {
    void vscode.window.showInformationMessage('Prism: no results for this file yet; run the panel first.');
    return;
  }
  const name = editor.document.uri.path.split('/').pop() ?? documentUri;
  const title = matrixTitle(name);
  // Beside the suite: half the editor, which the page fits (rotated program names, sticky test names).
  const panel = vscode.window.createWebviewPanel('prism.killMatrix', title, vscode.ViewColumn.Beside, {
    enableScripts: true,
    localResourceRoots: [],
  });
  panel.webview.html = matrixHtml(matrix, title, crypto.randomBytes(16).toString('base64'));
  panel.webview.onDidReceiveMessage(async (message: unknown) => {
    const click = parseClick(message);
    if (click?.kind === 'line') {
      const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(documentUri));
      const at = new vscode.Position(click.line - 1, 0);
      await vscode.window.showTextDocument(doc, { viewColumn: vscode.ViewColumn.One, selection: new vscode.Range(at, at) });
    } else if (click?.kind === 'candidate') {
      await openCandidateDiff(state, documentUri, click.id);
    }
  });
}
