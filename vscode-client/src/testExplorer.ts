/**
 * The Test Explorer (VS Code Testing API): under each suite, the initial program and each
 * candidate (named per reveal level) as test items. Running them runs the panel; a wrong
 * verdict is a failed item whose message sits on the assertion that decided it (expected and
 * actual values where the reveal level shows them); a correct verdict passes. Every finished
 * run of a suite (typing, saving, Run Panel) updates the items.
 */
import * as vscode from 'vscode';
import { ExecuteCommandRequest } from 'vscode-languageclient/node';

import { ProgramItem, SERVER_COMMANDS, parsePrograms } from './core/commands';
import { PrismState, describe, log, serverRunning } from './state';

export const PROGRAMS_REQUEST = 'prism/programs';

export class TestExplorer implements vscode.Disposable {
  private readonly controller: vscode.TestController;

  constructor(private readonly state: PrismState) {
    this.controller = vscode.tests.createTestController('prism', 'Prism');
    this.controller.createRunProfile('Run the panel', vscode.TestRunProfileKind.Run, (request, token) => this.run(request, token), true);
    state.resultListeners.push((uri) => {
      void this.refresh(uri);
    });
  }

  dispose(): void {
    this.controller.dispose();
  }

  /** The suite's results as the server has them now, shown as one (unsaved) test run. */
  async refresh(uri: string): Promise<void> {
    const items = await this.programs(uri);
    if (items.length === 0) {
      return;
    }
    const suite = this.suiteItem(uri, items);
    const run = this.controller.createTestRun(new vscode.TestRunRequest([suite]), `Prism: ${suite.label}`, false);
    this.report(run, suite, items);
    run.end();
  }

  private async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    const suites = new Map<string, vscode.TestItem>();
    const wanted = request.include ?? [...iterate(this.controller.items)];
    for (const item of wanted) {
      const suite = item.parent ?? item;
      suites.set(suite.id, suite);
    }
    const run = this.controller.createTestRun(request, 'Prism', true);
    for (const suite of suites.values()) {
      if (token.isCancellationRequested) {
        break;
      }
      suite.children.forEach((child) => {
        run.started(child);
      });
      const client = this.state.client;
      if (!client || !serverRunning(this.state)) {
        suite.children.forEach((child) => {
          run.errored(child, new vscode.TestMessage('The Prism server is not running.'));
        });
        continue;
      }
      try {
        await client.sendRequest(ExecuteCommandRequest.type, { command: SERVER_COMMANDS.runPanel, arguments: [suite.id] });
        const items = await this.programs(suite.id);
        this.report(run, this.suiteItem(suite.id, items), items);
      } catch (err) {
        log(this.state, `Test Explorer run of ${suite.id} failed: ${describe(err)}`);
        suite.children.forEach((child) => {
          run.errored(child, new vscode.TestMessage(`Prism: ${describe(err)}`));
        });
      }
    }
    run.end();
  }

  private async programs(uri: string): Promise<ProgramItem[]> {
    const client = this.state.client;
    if (!client || !serverRunning(this.state)) {
      return [];
    }
    try {
      return parsePrograms(await client.sendRequest(PROGRAMS_REQUEST, { uri }));
    } catch (err) {
      log(this.state, `${PROGRAMS_REQUEST} failed: ${describe(err)}`);
      return [];
    }
  }

  /** The suite's item (id: its document uri), its children replaced by `items`. */
  private suiteItem(uri: string, items: ProgramItem[]): vscode.TestItem {
    const docUri = vscode.Uri.parse(uri);
    let suite = this.controller.items.get(uri);
    if (!suite) {
      suite = this.controller.createTestItem(uri, docUri.path.split('/').pop() ?? uri, docUri);
      this.controller.items.add(suite);
    }
    suite.children.replace(items.map((p) => this.controller.createTestItem(`${uri}#${p.id}`, p.label, docUri)));
    return suite;
  }

  private report(run: vscode.TestRun, suite: vscode.TestItem, items: ProgramItem[]): void {
    const docUri = vscode.Uri.parse(suite.id);
    for (const p of items) {
      const item = suite.children.get(`${suite.id}#${p.id}`);
      if (!item) {
        continue;
      }
      if (p.passed) {
        run.passed(item);
        continue;
      }
      const message =
        p.expected !== null && p.actual !== null ? vscode.TestMessage.diff(p.message, p.expected, p.actual) : new vscode.TestMessage(p.message);
      if (p.line !== null) {
        message.location = new vscode.Location(docUri, new vscode.Position(p.line - 1, 0));
      }
      run.failed(item, message);
    }
  }
}

function* iterate(collection: vscode.TestItemCollection): Generator<vscode.TestItem> {
  const items: vscode.TestItem[] = [];
  collection.forEach((item) => items.push(item));
  yield* items;
}
