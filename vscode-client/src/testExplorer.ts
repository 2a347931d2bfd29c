/**
 * The Test Explorer (VS Code Testing API): under each suite, the initial program and the
 * reference first, then the valid and invalid candidates in groups, and under each program the
 * suite's tests (at reveal `full`); the shape is `core/testTree.ts`'s. An item passes when its
 * verdict is right; a wrong one fails with its message on the assertion that decided it
 * (expected and actual where shown, and a link to the candidate's diff). Durations are the
 * sandbox's per program. Every finished run of a suite (typing, saving, Run Panel) updates the
 * items: into the continuous run when one is on, else as one run that is not kept in history.
 * Running a suite or a group runs the panel; running a program, or a test under it, runs the
 * buffer on that program alone (`prism/runProgram`), and the peek of an accepted invalid
 * candidate shows the witness that tells it apart.
 */
import * as vscode from 'vscode';
import { ExecuteCommandRequest } from 'vscode-languageclient/node';

import { ProgramItem, SERVER_COMMANDS, parsePrograms, parseRunProgram } from './core/commands';
import { Peek, TreeNode, findNode, findingKind, peekOf, programTree, runTarget, showInline, testVerdict } from './core/testTree';
import { PrismState, describe, log, serverRunning } from './state';

export const PROGRAMS_REQUEST = 'prism/programs';
export const RUN_PROGRAM_REQUEST = 'prism/runProgram';
export const OPEN_CANDIDATE_COMMAND = 'prism.openCandidateDiff';

export class TestExplorer implements vscode.Disposable {
  private readonly controller: vscode.TestController;
  /** Runs of the continuous profile still on: finished results go into them. */
  private readonly continuous = new Set<{ run: vscode.TestRun; suites: Set<string> }>();

  constructor(private readonly state: PrismState) {
    this.controller = vscode.tests.createTestController('prism', 'Prism');
    const profile = this.controller.createRunProfile(
      'Run the panel',
      vscode.TestRunProfileKind.Run,
      (request, token) => this.run(request, token),
      true,
    );
    // Continuous run (VS Code 1.86+): each run of the suite while typing lands in one test run.
    (profile as { supportsContinuousRun?: boolean }).supportsContinuousRun = true;
    state.resultListeners.push((uri) => {
      void this.refresh(uri);
    });
  }

  dispose(): void {
    this.controller.dispose();
  }

  /** The suite's results as the server has them now. */
  async refresh(uri: string): Promise<void> {
    const items = await this.programs(uri);
    if (items.length === 0) {
      return;
    }
    const suite = this.suiteItem(uri, items);
    const watching = [...this.continuous].filter((c) => c.suites.has(uri) || c.suites.size === 0);
    if (watching.length > 0) {
      for (const c of watching) {
        this.report(c.run, suite, items);
      }
      return;
    }
    const run = this.controller.createTestRun(new vscode.TestRunRequest([suite]), `Prism: ${suite.label}`, false);
    this.report(run, suite, items);
    run.end();
  }

  private async run(request: vscode.TestRunRequest, token: vscode.CancellationToken): Promise<void> {
    // What each included item runs: its suite's whole panel (a suite, a group), or one program (or one test on it).
    const suites = new Map<string, vscode.TestItem>();
    const singles: { suite: vscode.TestItem; item: vscode.TestItem; program: string; test: string | null }[] = [];
    for (const item of request.include ?? [...iterate(this.controller.items)]) {
      let suite = item;
      while (suite.parent) {
        suite = suite.parent;
      }
      const target = item === suite ? { kind: 'panel' as const } : runTarget(findNode(this.nodes.get(suite.id) ?? [], item.id));
      if (target.kind === 'panel') {
        suites.set(suite.id, suite);
      } else {
        singles.push({ suite, item, program: target.program, test: target.test });
      }
    }
    const run = this.controller.createTestRun(request, 'Prism', true);
    if ((request as { continuous?: boolean }).continuous === true) {
      const entry = { run, suites: new Set(request.include ? [...suites.keys(), ...singles.map((s) => s.suite.id)] : []) };
      this.continuous.add(entry);
      token.onCancellationRequested(() => {
        this.continuous.delete(entry);
        run.end();
      });
    }
    for (const suite of suites.values()) {
      if (token.isCancellationRequested) {
        break;
      }
      await this.runPanel(run, suite);
    }
    for (const single of singles) {
      if (token.isCancellationRequested) {
        break;
      }
      if (!suites.has(single.suite.id)) {
        await this.runOne(run, single.suite, single.item, single.program, single.test);
      }
    }
    if ((request as { continuous?: boolean }).continuous !== true) {
      run.end();
    }
  }

  /** The suite's whole panel (unchanged programs come from the server's cache). */
  private async runPanel(run: vscode.TestRun, suite: vscode.TestItem): Promise<void> {
    walk(suite, (child) => {
      run.started(child);
    });
    const client = this.state.client;
    if (!client || !serverRunning(this.state)) {
      suite.children.forEach((child) => {
        run.errored(child, new vscode.TestMessage('The Prism server is not running.'));
      });
      return;
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

  /** One program (or one test on it): the buffer as it is now, on that program alone (`prism/runProgram`). */
  private async runOne(run: vscode.TestRun, suite: vscode.TestItem, item: vscode.TestItem, program: string, test: string | null): Promise<void> {
    run.started(item);
    walk(item, (child) => {
      run.started(child);
    });
    const client = this.state.client;
    if (!client || !serverRunning(this.state)) {
      run.errored(item, new vscode.TestMessage('The Prism server is not running.'));
      return;
    }
    try {
      const answer = parseRunProgram(await client.sendRequest(RUN_PROGRAM_REQUEST, { uri: suite.id, program, test }));
      const node = answer ? findNode(programTree(suite.id, [answer]), item.id) : undefined;
      if (!node) {
        run.errored(item, new vscode.TestMessage(`Prism: no result for ${item.label}`));
        return;
      }
      this.reportNodes(run, suite, [node]);
    } catch (err) {
      log(this.state, `Test Explorer run of ${item.id} failed: ${describe(err)}`);
      run.errored(item, new vscode.TestMessage(`Prism: ${describe(err)}`));
    }
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

  /** The suite's item (id: its document uri), its children replaced by the tree of `items`. */
  private suiteItem(uri: string, items: ProgramItem[]): vscode.TestItem {
    const docUri = vscode.Uri.parse(uri);
    let suite = this.controller.items.get(uri);
    if (!suite) {
      suite = this.controller.createTestItem(uri, docUri.path.split('/').pop() ?? uri, docUri);
      this.controller.items.add(suite);
    }
    const make = (node: TreeNode): vscode.TestItem => {
      const item = this.controller.createTestItem(node.id, node.label, docUri);
      item.sortText = node.sortText;
      if (node.line !== null) {
        item.range = new vscode.Range(node.line - 1, 0, node.line - 1, 0);
      }
      item.children.replace(node.children.map(make));
      return item;
    };
    const nodes = programTree(uri, items);
    suite.children.replace(nodes.map(make));
    this.nodes.set(uri, nodes);
    return suite;
  }

  private readonly nodes = new Map<string, TreeNode[]>();

  private report(run: vscode.TestRun, suite: vscode.TestItem, items: ProgramItem[]): void {
    this.reportNodes(run, suite, this.nodes.get(suite.id) ?? programTree(suite.id, items));
  }

  /** Each node's result on its item under `suite` (an item the tree no longer has is skipped). */
  private reportNodes(run: vscode.TestRun, suite: vscode.TestItem, nodes: TreeNode[]): void {
    const docUri = vscode.Uri.parse(suite.id);
    const config = vscode.workspace.getConfiguration('prism', docUri);
    const stale = this.state.statuses.get(suite.id)?.stale === true;
    const find = (id: string): vscode.TestItem | undefined => {
      let found: vscode.TestItem | undefined;
      walk(suite, (item) => {
        if (item.id === id) {
          found = item;
        }
      });
      return found;
    };
    const visit = (node: TreeNode): void => {
      node.children.forEach(visit);
      const item = find(node.id);
      if (!item || !node.program) {
        return;
      }
      const p = node.program;
      // Inline (error-red in VS Code) only as loud as the finding it stands for; the peek still opens at item.range.
      const severity = String(config.get(`severity.${findingKind(p, node.test)}`) ?? 'warning');
      const inline = showInline(config.get('testResults.inline') !== false, stale, severity);
      const at = inline && node.line !== null ? new vscode.Location(docUri, new vscode.Position(node.line - 1, 0)) : undefined;
      // VS Code draws a failure at the item's range when its message has none: no range either then.
      item.range = inline && node.line !== null ? new vscode.Range(node.line - 1, 0, node.line - 1, 0) : undefined;
      if (node.test) {
        const verdict = testVerdict(p, node.test);
        if (verdict.state === 'passed') {
          run.passed(item);
        } else if (verdict.state === 'skipped') {
          run.skipped(item);
        } else {
          const message = this.message(suite.id, peekOf(p, verdict.message, node.test));
          if (at) {
            message.location = at;
          }
          if (verdict.state === 'errored') {
            run.errored(item, message);
          } else {
            run.failed(item, message);
          }
        }
        return;
      }
      const duration = p.durationMs ?? undefined;
      if (p.passed) {
        run.passed(item, duration);
        return;
      }
      const message = this.message(suite.id, peekOf(p, p.message));
      if (at) {
        message.location = at;
      }
      run.failed(item, message, duration);
    };
    nodes.forEach(visit);
  }

  /** The peek's text: what went wrong, the witness, the values compared, and a link to the candidate's diff. */
  private message(suiteUri: string, peek: Peek): vscode.TestMessage {
    const body = new vscode.MarkdownString();
    body.appendText(peek.text);
    if (peek.witness !== null) {
      body.appendText(`\n\n${peek.witness}`);
    }
    if (peek.diffOf !== null) {
      const args = encodeURIComponent(JSON.stringify([suiteUri, peek.diffOf]));
      body.appendMarkdown(`\n\n[Show the diff of ${peek.diffOf}](command:${OPEN_CANDIDATE_COMMAND}?${args})`);
      body.isTrusted = { enabledCommands: [OPEN_CANDIDATE_COMMAND] };
    }
    return peek.expected !== null && peek.actual !== null
      ? vscode.TestMessage.diff(body, peek.expected, peek.actual)
      : new vscode.TestMessage(body);
  }
}

function walk(item: vscode.TestItem, fn: (item: vscode.TestItem) => void): void {
  item.children.forEach((child) => {
    fn(child);
    walk(child, fn);
  });
}

function* iterate(collection: vscode.TestItemCollection): Generator<vscode.TestItem> {
  const items: vscode.TestItem[] = [];
  collection.forEach((item) => items.push(item));
  yield* items;
}
