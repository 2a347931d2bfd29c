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
    for (const id of ['prism.pickCandidate', 'prism.restartServer', 'prism.showOutput', 'prism.runPanel', 'prism.listCandidates']) {
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

  it('pushes didChangeConfiguration {"prism": …} when a setting changes', async () => {
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
  });

  it('prism.runPanel from the palette gets the active document uri', async () => {
    const result = (await run('prism.runPanel')) as { arguments: unknown[] };
    assert.deepEqual(result.arguments, [TEST_URI]);
  });

  it('shows the prism/status of the active document in the status bar', async () => {
    const item = fake.state.statusItems[fake.state.statusItems.length - 1];
    assert.ok(item);
    await until('the status bar text', () => item.text === 'Prism: JSF ✗ · valid 3/4 · invalid 5/5');
    assert.ok(item.visible);
    assert.deepEqual((item.command as { command: string; arguments: unknown[] }).command, 'prism.runPanel');
    assert.deepEqual((item.command as { arguments: unknown[] }).arguments, [TEST_URI]);
  });

  it('Show Candidate… lists the panel and opens the chosen candidate', async () => {
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
    assert.deepEqual(fake.state.opened, ['file:///task/candidates/floor.diff']);
  });

  it('offers the install command instead of starting when prism_lsp is missing', async () => {
    process.env.FAKE_PRISM_MISSING = '1';
    fake.state.answers.push('Copy command');
    try {
      await run('prism.restartServer');
      const notice = await until('the install notice', () => fake.state.messages.find((m) => m.text.includes('-m pip install prism-lsp')));
      assert.equal(notice.level, 'error');
      assert.ok(notice.items.includes('Copy command'));
      assert.match(notice.text, /fake-python\.js -m pip install prism-lsp/);
      await until('the clipboard', () => fake.state.clipboard.length > 0);
      assert.match(fake.state.clipboard[0] ?? '', /fake-python\.js -m pip install prism-lsp$/);
      assert.equal(fake.state.commands.has('prism.runPanel'), false, 'the old server is stopped, no new one started');
    } finally {
      delete process.env.FAKE_PRISM_MISSING;
    }
  });
});
