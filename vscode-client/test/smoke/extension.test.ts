/**
 * Runs the real extension (compiled src/extension.ts) and the real
 * vscode-languageclient in node against a fake `vscode` module and a fake
 * interpreter (test/smoke/fake-python.js) that speaks LSP and records what it
 * receives. Checks the wiring the unit tests cannot: initializationOptions,
 * didChangeConfiguration, workspace/configuration, the runPanel middleware,
 * prism/status → status bar, Show Candidate…, and the missing-server notice.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import Module from 'node:module';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { createFakeVscode } from './fake-vscode';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const FAKE_PYTHON = path.join(ROOT, 'test', 'smoke', 'fake-python.js');
const fake = createFakeVscode(ROOT);

// Route `require('vscode')` (from the extension and the language client) to the fake.
const moduleWithLoad = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
const originalLoad = moduleWithLoad._load;
moduleWithLoad._load = function (request: string, ...rest: unknown[]) {
  return request === 'vscode' ? fake.api : originalLoad.call(this, request, ...rest);
};

interface ExtensionModule {
  activate(context: { subscriptions: { dispose(): unknown }[] }): Promise<void>;
  deactivate(): Promise<void>;
}

interface Dump {
  pid: number;
  initializationOptions: unknown;
  configurationChanges: { settings: unknown }[];
  pulledConfiguration: unknown[];
}

const fixture = JSON.parse(fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'initialization-options.json'), 'utf8')) as {
  settings: Record<string, unknown>;
  initializationOptions: Record<string, unknown>;
};

async function until<T>(what: string, probe: () => T | undefined, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = probe();
    if (value !== undefined && value !== false) {
      return value;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

function run(command: string, ...args: unknown[]): Promise<unknown> {
  const fn = fake.state.commands.get(command);
  assert.ok(fn, `command ${command} is not registered`);
  return Promise.resolve(fn(...args));
}

const TEST_URI = 'file:///w/tests/test_minutes.py';
const skip = process.platform === 'win32' ? 'the fake interpreter is a #! script' : false;

describe('extension smoke test (fake VS Code, fake server)', { skip }, () => {
  let ext: ExtensionModule;
  const context = { subscriptions: [] as { dispose(): unknown }[] };

  before(async () => {
    fake.state.settings = { ...fixture.settings, 'prism.interpreter': FAKE_PYTHON };
    fake.state.activeEditor = { document: { uri: (fake.api.Uri as { parse(s: string): never }).parse(TEST_URI), languageId: 'python' } };
    // Loaded only now, after the `vscode` hook above is in place.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    ext = require(path.join(ROOT, 'out', 'src', 'extension.js')) as ExtensionModule;
    await ext.activate(context);
    await until('the server commands', () => fake.state.commands.has('prism.runPanel'));
  });

  after(async () => {
    await ext.deactivate();
    for (const d of context.subscriptions) {
      d.dispose();
    }
  });

  it('registers the client commands, and the server registers prism.runPanel', () => {
    for (const id of ['prism.run', 'prism.pickCandidate', 'prism.restartServer', 'prism.showOutput', 'prism.runPanel', 'prism.listCandidates']) {
      assert.ok(fake.state.commands.has(id), id);
    }
  });

  it('sends exactly the fixture object as initializationOptions, and answers workspace/configuration with it', async () => {
    const dump = (await run('fake.dump')) as Dump;
    assert.deepEqual(dump.initializationOptions, fixture.initializationOptions);
    assert.deepEqual(dump.pulledConfiguration[0], fixture.initializationOptions);
    assert.deepEqual(dump.pulledConfiguration[1], fixture.initializationOptions.severity);
    assert.equal(dump.pulledConfiguration[2], null);
    // The initial push (synchronize.configurationSection) carries the same object under "prism".
    assert.deepEqual(dump.configurationChanges.at(-1), { settings: { prism: fixture.initializationOptions } });
  });

  it('pushes didChangeConfiguration {"prism": …} when a setting changes, without a restart', async () => {
    const before = (await run('fake.dump')) as Dump;
    fake.state.settings['prism.reveal'] = 'counts';
    fake.state.configListeners.fire({ affectsConfiguration: (s: string) => s === 'prism' || s === 'prism.reveal' });
    let dump: Dump | undefined;
    const deadline = Date.now() + 10_000;
    for (;;) {
      dump = (await run('fake.dump')) as Dump;
      const change = dump.configurationChanges.at(-1)?.settings as { prism?: { reveal?: string } } | undefined;
      if (change?.prism?.reveal === 'counts' || Date.now() > deadline) {
        break;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(dump.configurationChanges.at(-1), {
      settings: { prism: { ...fixture.initializationOptions, reveal: 'counts' } },
    });
    // Past the restart debounce (500 ms): still the same server process, its warm state kept.
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(((await run('fake.dump')) as Dump).pid, before.pid);
  });

  it('a new prism.serverPackage leaves a running server alone', async () => {
    const before = (await run('fake.dump')) as Dump;
    fake.state.settings['prism.serverPackage'] = '/src/prism';
    fake.state.configListeners.fire({ affectsConfiguration: (s: string) => s === 'prism' || s === 'prism.serverPackage' });
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(((await run('fake.dump')) as Dump).pid, before.pid);
    delete fake.state.settings['prism.serverPackage'];
  });

  it('Prism: Run Panel (prism.run) forwards to the server\'s prism.runPanel with the active document uri', async () => {
    const result = (await run('prism.run')) as { arguments: unknown[] };
    assert.deepEqual(result.arguments, [TEST_URI]);
  });

  it('prism.runPanel from the palette gets the active document uri', async () => {
    const result = (await run('prism.runPanel')) as { arguments: unknown[] };
    assert.deepEqual(result.arguments, [TEST_URI]);
  });

  it('shows the prism/status of the active document in the status bar', async () => {
    const item = fake.state.statusItems[fake.state.statusItems.length - 1];
    assert.ok(item);
    await until('the status bar text', () => item.text === 'Prism: JSF ✗ · valid 3/4 besides the reference · invalid 5/5');
    assert.ok(item.visible);
    assert.deepEqual((item.command as { command: string; arguments: unknown[] }).command, 'prism.run');
    assert.deepEqual((item.command as { arguments: unknown[] }).arguments, [TEST_URI]);
    // The sidebar's Prism view says the same verdict and what to do next.
    const view = fake.state.treeProviders.get('prism.panel') as { getChildren(): { label: string; next?: boolean }[] } | undefined;
    assert.ok(view, 'the Prism view is registered');
    const rows = view.getChildren().map((r) => r.label);
    assert.ok(rows.includes('JSF ✗ · valid 3/4 besides the reference · invalid 5/5'), JSON.stringify(rows));
    assert.ok(view.getChildren().some((r) => r.next === true && r.label.startsWith('Next: ')), JSON.stringify(rows));
  });

  it('a finished run shows the programs in the Test Explorer; a wrong verdict fails on its assertion', async () => {
    const shown = await until('the Test Explorer run', () => fake.state.testRuns.find((r) => r.ended && !r.persist));
    const suite = fake.state.testItems.get(TEST_URI);
    assert.ok(suite, 'the suite is an item');
    const children: string[] = [];
    suite.children.forEach((c) => children.push(c.label));
    // Initial program and reference first, then the candidates in their group.
    assert.deepEqual(children, ['initial program', 'reference (reference)', 'invalid candidates']);
    const group = suite.children.get(`${TEST_URI}#group:invalid`);
    const grouped: string[] = [];
    group?.children.forEach((c) => grouped.push(c.label));
    assert.deepEqual(grouped, ['floor (invalid)']);
    assert.deepEqual(
      shown.results.map((r) => [r.id.split('#')[1], r.result]),
      [
        ['initial', 'passed'],
        ['reference', 'passed'],
        // A test under its program: passing on an invalid candidate no test kills is a wrong verdict.
        ['floor::test_halfway', 'failed'],
        ['floor', 'failed'],
      ],
    );
    const under = shown.results[2]?.message?.message;
    assert.ok(typeof under === 'object' && under.value.startsWith('passes on floor (invalid), which is invalid: no test kills it'));
    const failed = shown.results[3]?.message;
    const text = failed?.message;
    assert.ok(typeof text === 'object' && text.value.startsWith('rejected, though valid: assert 2 == 3'), JSON.stringify(text));
    assert.match(text.value, /\[Show the diff of floor\]\(command:prism\.openCandidateDiff\?/);
    assert.deepEqual([failed?.expectedOutput, failed?.actualOutput], ['3', '2']);
    assert.equal(failed?.location?.range.start.line, 13, 'on the assertion (0-based line)');
    assert.equal(failed?.location?.uri.toString(), TEST_URI);

    const before = fake.state.testRuns.length;
    const runPanelsBefore = ((await run('fake.dump')) as { executeCalls: { command: string }[] }).executeCalls.filter(
      (c) => c.command === 'prism.runPanel',
    ).length;
    const profile = fake.state.runProfiles[0];
    assert.ok(profile, 'a run profile');
    const child = group?.children.get(`${TEST_URI}#floor`);
    await profile(new (fake.api.TestRunRequest as new (items: unknown[]) => never)([child]), { isCancellationRequested: false });
    const itemRun = fake.state.testRuns.slice(before).find((r) => r.persist);
    assert.ok(itemRun?.ended, 'the run of one item ends');
    // One item runs one program: `prism/runProgram` for floor, not the suite's whole panel.
    const dump = (await run('fake.dump')) as Dump & { runProgramCalls: unknown[]; executeCalls: { command: string }[] };
    assert.deepEqual(dump.runProgramCalls, [{ uri: TEST_URI, program: 'floor', test: null }]);
    assert.equal(dump.executeCalls.filter((c) => c.command === 'prism.runPanel').length, runPanelsBefore);
    assert.deepEqual(
      itemRun.results.filter((r) => r.result !== 'started').map((r) => [r.id.split('#')[1], r.result]),
      [
        ['floor::test_halfway', 'failed'],
        ['floor', 'failed'],
      ],
    );
    const peek = itemRun.results.find((r) => r.id === `${TEST_URI}#floor` && r.result === 'failed')?.message;
    const body = peek?.message;
    assert.ok(typeof body === 'object', 'a markdown peek');
    assert.match(body.value, /Witness: mean_rounded\(\[1, 4\]\): every valid candidate gives 3; floor \(invalid\) gives 2/);
    assert.match(body.value, /\[Show the diff of floor\]\(command:prism\.openCandidateDiff\?/);
    assert.deepEqual([peek?.expectedOutput, peek?.actualOutput], ['3', '2'], "the witness's values as expected and actual");
  });

  it('Show Candidate… lists the panel and opens the chosen candidate as a read-only diff against the initial program', async () => {
    let offered: { label: string; description?: string; detail?: string }[] = [];
    fake.state.quickPickChoice = (items) => {
      offered = items as typeof offered;
      return items[1];
    };
    await run('prism.pickCandidate');
    assert.deepEqual(
      offered.map((p) => [p.label, p.description, p.detail]),
      [
        ['reference', 'valid · reference', 'rounds half up'],
        ['floor', 'invalid', undefined],
      ],
    );
    assert.deepEqual(fake.state.opened, [], 'no file of the tree cache is opened');
    const doc = (program: string): string => `prism-candidate:/${program}/solution.py?doc=file%3A%2F%2F%2Ftask%2Ftest_x.py`;
    assert.equal(fake.state.diffs.length, 1);
    const [left, right, title] = fake.state.diffs[0] ?? ['', '', ''];
    assert.equal(decodeURIComponent(left), decodeURIComponent(doc('initial')));
    assert.equal(decodeURIComponent(right), decodeURIComponent(doc('floor')));
    assert.equal(title, 'floor (invalid): solution.py', 'titled with the id and label first');
    const provider = fake.state.contentProviders.get('prism-candidate');
    assert.ok(provider, 'prism-candidate documents are served');
    const text = await provider.provideTextDocumentContent((fake.api.Uri as { parse(s: string): never }).parse(doc('floor')));
    assert.match(String(text), /^# served for prism-candidate:\/floor\/solution\.py/);
  });

  it('tells the server it opens prism-candidate documents', async () => {
    const dump = (await run('fake.dump')) as Dump & { experimental?: { prismCandidateDocuments?: boolean } };
    assert.equal(dump.experimental?.prismCandidateDocuments, true);
  });

  it('with prism.serverPackage set, offers the exact pip command instead of starting when prism_lsp is missing', async () => {
    process.env.FAKE_PRISM_MISSING = '1';
    fake.state.settings['prism.serverPackage'] = '/src/prism';
    fake.state.answers.push('Copy Command');
    try {
      await run('prism.restartServer');
      const notice = await until('the install notice', () => fake.state.messages.find((m) => m.text.includes('-m pip install /src/prism')));
      assert.equal(notice.level, 'error');
      assert.deepEqual(notice.items, ['Copy Command', 'Retry', 'Set Interpreter']);
      assert.match(notice.text, /fake-python\.js -m pip install \/src\/prism$/);
      await until('the clipboard', () => fake.state.clipboard.length > 0);
      assert.match(fake.state.clipboard[0] ?? '', /fake-python\.js -m pip install \/src\/prism$/);
      assert.equal(fake.state.commands.has('prism.runPanel'), false, 'the old server is stopped, no new one started');
    } finally {
      delete fake.state.settings['prism.serverPackage'];
    }
  });

  it('without prism.serverPackage, explains the choices (no PyPI command) and opens the setting', async () => {
    const opened: unknown[] = [];
    const openSettings = fake.state.commands.get('workbench.action.openSettings');
    fake.state.commands.set('workbench.action.openSettings', (...args: unknown[]) => opened.push(...args));
    const seen = fake.state.messages.length;
    fake.state.answers.push('Set Interpreter');
    try {
      await run('prism.restartServer');
      const notice = await until('the notice', () => fake.state.messages.slice(seen).find((m) => m.level === 'error'));
      assert.doesNotMatch(notice.text, /pip install/);
      assert.match(notice.text, /not published on PyPI/);
      assert.match(notice.text, /\.venv\/bin\/python, which scripts\/setup\.sh creates/);
      assert.deepEqual(notice.items, ['Set Interpreter', 'Set Server Package', 'Retry']);
      await until('the settings editor', () => opened.length > 0);
      assert.deepEqual(opened, ['prism.interpreter']);
    } finally {
      if (openSettings) {
        fake.state.commands.set('workbench.action.openSettings', openSettings);
      } else {
        fake.state.commands.delete('workbench.action.openSettings');
      }
    }
  });

  it('Prism: Run Panel with the server down says so and offers Prism: Restart Server', async () => {
    assert.equal(fake.state.commands.has('prism.runPanel'), false);
    assert.ok(fake.state.commands.has('prism.run'), 'the palette command exists while the server is down');
    delete process.env.FAKE_PRISM_MISSING;
    const seen = fake.state.messages.length;
    fake.state.answers.push('Restart Server');
    await run('prism.run');
    const notice = fake.state.messages.slice(seen).find((m) => m.level === 'warning');
    assert.ok(notice, 'no notice');
    assert.match(notice.text, /^Prism: the server is not running\. The server \(prism_lsp\) is not installed/);
    assert.deepEqual(notice.items, ['Restart Server', 'Show Output']);
    // "Restart Server" started it again (prism_lsp is importable now).
    await until('the restarted server', () => fake.state.commands.has('prism.runPanel'));
    const result = (await run('prism.run')) as { arguments: unknown[] };
    assert.deepEqual(result.arguments, [TEST_URI]);
  });
});
