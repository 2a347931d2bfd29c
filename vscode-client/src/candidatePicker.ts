/** `Prism: Show Candidate…`: a quick pick of the panel (at the reveal level), then the candidate as diffs. */
import * as vscode from 'vscode';
import { ExecuteCommandRequest } from 'vscode-languageclient/node';

import { SERVER_COMMANDS, candidatePicks, parseCandidates, parseShowCandidate, serverDownMessage } from './core/commands';
import { openCandidateDiff } from './candidateDocuments';
import { PrismState, describe, serverRunning } from './state';

export async function pickCandidate(state: PrismState, offerRestart: (message: string) => Promise<void>): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  const client = state.client;
  if (!client || !serverRunning(state)) {
    await offerRestart(serverDownMessage(state.serverProblem));
    return;
  }
  if (!editor) {
    void vscode.window.showInformationMessage('Prism: open a test file of a task first.');
    return;
  }
  const documentUri = editor.document.uri.toString();
  let candidates;
  try {
    const raw: unknown = await client.sendRequest(ExecuteCommandRequest.type, {
      command: SERVER_COMMANDS.listCandidates,
      arguments: [documentUri],
    });
    candidates = parseCandidates(raw);
  } catch (err) {
    void vscode.window.showErrorMessage(`Prism: could not list the candidates: ${describe(err)}`);
    return;
  }
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage('Prism: no candidates to show for this file (no task, or the panel is hidden).');
    return;
  }
  const picked = await vscode.window.showQuickPick(candidatePicks(candidates), {
    title: 'Prism: Show Candidate',
    placeHolder: 'Candidate of the panel',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!picked) {
    return;
  }
  if (picked.candidate.uri) {
    // Revealed in full: the candidate as read-only diffs against the initial program.
    await openCandidateDiff(state, documentUri, picked.candidate.id);
    return;
  }
  // Not revealed in full: the server's own command says what it may show (or why not).
  let target: string | undefined;
  try {
    const raw: unknown = await client.sendRequest(ExecuteCommandRequest.type, {
      command: SERVER_COMMANDS.showCandidate,
      arguments: [documentUri, picked.candidate.id],
    });
    target = parseShowCandidate(raw);
  } catch (err) {
    void vscode.window.showErrorMessage(`Prism: could not show ${picked.candidate.id}: ${describe(err)}`);
    return;
  }
  if (!target) {
    void vscode.window.showInformationMessage(`Prism: the server gave no file for ${picked.candidate.id}.`);
    return;
  }
  await openTarget(target);
}

async function openTarget(target: string): Promise<void> {
  const uri = vscode.Uri.parse(target);
  try {
    const stat = await vscode.workspace.fs.stat(uri);
    if (stat.type & vscode.FileType.Directory) {
      await vscode.commands.executeCommand('revealInExplorer', uri);
      return;
    }
  } catch {
    // Let openTextDocument report it.
  }
  try {
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
  } catch (err) {
    void vscode.window.showErrorMessage(`Prism: could not open ${target}: ${describe(err)}`);
  }
}
