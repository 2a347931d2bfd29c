/**
 * Protocol test: the real extension (compiled src/extension.ts) and the real
 * vscode-languageclient/node, against the fake `vscode` module of the smoke test,
 * but with `prism.interpreter` set to a real Python that has `prism_lsp` installed,
 * so the REAL server runs the REAL panel of fixtures/mean-rounded.
 *
 * The Python is `$PRISM_PYTHON` (default `python3`). If it cannot `import prism_lsp`
 * the suite is skipped, and fails when `CI` is set.
 *
 * Nothing sleeps: every wait is on an event of the fake `vscode` (diagnostics set,
 * status bar text changed) or on a promise, under one generous deadline.
 *
 * The server's stdin is tapped (a wrapper around `child_process.spawn` that copies what
 * the language client writes) so that the test can check the exact `initialize` and
 * `workspace/executeCommand` messages the server received.
 */
import assert from 'node:assert/strict';
import childProcess from 'node:child_process';
import * as fs from 'node:fs';
import Module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';

import { type Diagnostic, DiagnosticSeverity, type FakeStatusItem, createFakeVscode, waitFor } from '../smoke/fake-vscode';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const TASK = path.resolve(ROOT, '..', 'fixtures', 'mean-rounded');
const SUITE_NAME = 'test_overfit.py';
const SUITE = path.join(TASK, 'suites', SUITE_NAME);
const PYTHON = process.env.PRISM_PYTHON?.trim() || 'python3';
/** Deadline for each wait on the server (its first panel run takes about a second; CI machines can be slow). */
const WAIT_MS = 60_000;
const IS_CI = (process.env.CI ?? '') !== '' && process.env.CI !== 'false' && process.env.CI !== '0';

// ---------------------------------------------------------------- is there a server?

function serverProblem(): string | undefined {
  if (!fs.existsSync(SUITE)) {
    return `the fixture ${SUITE} is missing (the test runs from the repository, not from the .vsix)`;
  }
  const r = childProcess.spawnSync(PYTHON, ['-c', 'import prism_lsp'], { encoding: 'utf8', timeout: 30_000 });
  if (r.error) {
    return `cannot run ${PYTHON} (${r.error.message})`;
  }
  if (r.status !== 0) {
    const last = r.stderr.trim().split('\n').at(-1) ?? '';
    return `${PYTHON} -c "import prism_lsp" failed (exit ${String(r.status)}${last ? `: ${last}` : ''})`;
  }
  return undefined;
}

const problem = serverProblem();
const HOW_TO_FIX =
  'Set PRISM_PYTHON to a Python that has the server installed ' +
  '(e.g. PRISM_PYTHON=../.venv/bin/python after scripts/setup.sh, or `pip install -e ..` into your virtual environment).';

// ---------------------------------------------------------------- what the fixture says

interface Panel {
  candidates: { id: string; label: string; reference: boolean }[];
  accepted: string[];
  jsf: boolean;
  rejectsValidLines: number[];
}

/** The few fields the test needs from prism.toml and expected.toml (flat `key = value` lines only). */
function readPanel(): Panel {
  const manifest = fs.readFileSync(path.join(TASK, 'prism.toml'), 'utf8');
  const candidates = manifest
    .split(/^\[\[candidate\]\]\s*$/m)
    .slice(1)
    .map((block) => ({
      id: /^id\s*=\s*"([^"]+)"/m.exec(block)?.[1] ?? '',
      label: /^label\s*=\s*"([^"]+)"/m.exec(block)?.[1] ?? '',
      reference: /^reference\s*=\s*true\s*$/m.test(block),
    }));
  const expected = fs.readFileSync(path.join(TASK, 'expected.toml'), 'utf8');
  const header = `[suites."${SUITE_NAME}"]`;
  const start = expected.indexOf(header);
  assert.ok(start >= 0, `expected.toml has no ${header}`);
  const section = expected.slice(start + header.length).split(/^\[/m)[0] ?? '';
  const list = (key: string): string[] =>
    (new RegExp(`^${key}\\s*=\\s*\\[([^\\]]*)\\]`, 'm').exec(section)?.[1] ?? '')
      .split(',')
      .map((s) => s.trim().replace(/^"|"$/g, ''))
      .filter((s) => s !== '');
  return {
    candidates,
    accepted: list('accepted'),
    jsf: /^jsf\s*=\s*true\s*$/m.test(section),
    rejectsValidLines: list('rejects_valid_lines').map(Number),
  };
}

// ---------------------------------------------------------------- the wire tap

interface WireMessage {
  id?: number | string;
  method?: string;
  params?: unknown;
}

const sent: WireMessage[] = [];

/** Copies the LSP messages the language client writes to `<python> -m prism_lsp`'s stdin into `sent`. */
function tapServerStdin(): void {
  const cpModule = childProcess as unknown as { spawn: (...args: unknown[]) => childProcess.ChildProcess };
  const spawn = cpModule.spawn;
  cpModule.spawn = function (this: unknown, ...args: unknown[]) {
    const child = spawn.apply(this, args);
    const argv = Array.isArray(args[1]) ? (args[1] as unknown[]) : [];
    const stdin = child.stdin;
    if (stdin && argv.includes('prism_lsp')) {
      let buffer = Buffer.alloc(0);
      const write = stdin.write.bind(stdin) as (...a: unknown[]) => boolean;
      (stdin as unknown as { write: (...a: unknown[]) => boolean }).write = (chunk: unknown, ...rest: unknown[]) => {
        const encoding = typeof rest[0] === 'string' ? (rest[0] as BufferEncoding) : 'utf8';
        const bytes = typeof chunk === 'string' ? Buffer.from(chunk, encoding) : Buffer.from(chunk as Uint8Array);
        buffer = Buffer.concat([buffer, bytes]);
        for (;;) {
          const headerEnd = buffer.indexOf('\r\n\r\n');
          if (headerEnd < 0) {
            break;
          }
          const length = Number(/Content-Length:\s*(\d+)/i.exec(buffer.subarray(0, headerEnd).toString('ascii'))?.[1]);
          if (!Number.isFinite(length) || buffer.length < headerEnd + 4 + length) {
            break;
          }
          sent.push(JSON.parse(buffer.subarray(headerEnd + 4, headerEnd + 4 + length).toString('utf8')) as WireMessage);
          buffer = buffer.subarray(headerEnd + 4 + length);
        }
        return write(chunk, ...rest);
      };
    }
    return child;
  };
}

// ---------------------------------------------------------------- the test

interface ExtensionModule {
  activate(context: { subscriptions: { dispose(): unknown }[] }): Promise<void>;
  deactivate(): Promise<void>;
}

/** The settings the test sets (non-default where it can be observed), and the object the server must get for them. */
const SETTINGS: Record<string, unknown> = {
  'prism.interpreter': PYTHON,
  'prism.debounceMs': 50,
  'prism.timeoutSeconds': 30,
  'prism.severity.rejects-valid': 'error',
  'prism.severity.accepts-invalid': 'warning',
  'prism.severity.misses-baseline': 'information',
};
const INITIALIZATION_OPTIONS = {
  runOn: 'type',
  debounceMs: 50,
  reveal: 'full',
  sandbox: 'auto',
  timeoutSeconds: 30,
  severity: {
    'rejects-valid': 'error',
    'accepts-invalid': 'warning',
    'misses-baseline': 'information',
    'execution-error': 'error',
    'weak-assertion': 'hint',
  },
};

function codeOf(d: Diagnostic): unknown {
  return typeof d.code === 'object' ? d.code.value : d.code;
}

function describeDiagnostics(diags: readonly Diagnostic[] | undefined): string {
  if (!diags) {
    return 'no diagnostics';
  }
  return JSON.stringify(diags.map((d) => [codeOf(d), d.range.start.line, d.severity, d.message.split('\n')[0]]));
}

const title = 'protocol test (fake VS Code, real extension + vscode-languageclient, REAL prism-lsp)';

if (problem !== undefined && IS_CI) {
  describe(title, () => {
    it('needs a Python that can import prism_lsp (CI is set, so this fails instead of skipping)', () => {
      assert.fail(`${problem}. ${HOW_TO_FIX}`);
    });
  });
} else {
  // One overall bound too, for what no wait covers (e.g. a server that never answers `initialize`).
  describe(title, { skip: problem === undefined ? false : `${problem}. ${HOW_TO_FIX}`, timeout: 2 * WAIT_MS }, () => {
    const fake = createFakeVscode(ROOT);
    const context = { subscriptions: [] as { dispose(): unknown }[] };
    const panel = readPanel();
    const suiteText = fs.readFileSync(SUITE, 'utf8');
    const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'prism-protocol-cache-'));
    const previousCacheDir = process.env.PRISM_CACHE_DIR;
    let ext: ExtensionModule | undefined;
    let docUri = '';
    let item: FakeStatusItem;

    // The status bar counts valid candidates as valid_acceptance does: the reference has RAR.
    const valid = panel.candidates.filter((c) => c.label === 'valid' && !c.reference);
    const invalid = panel.candidates.filter((c) => c.label === 'invalid');
    const expectedStatus =
      `Prism: JSF ${panel.jsf ? '✓' : '✗'}` +
      ` · valid ${valid.filter((c) => panel.accepted.includes(c.id)).length}/${valid.length} besides the reference` +
      ` · invalid ${invalid.filter((c) => !panel.accepted.includes(c.id)).length}/${invalid.length}`;

    const seen = (): string =>
      `status bar ${JSON.stringify(item.texts)}, tooltip ${JSON.stringify(item.tooltip)}, ` +
      `diagnostics ${describeDiagnostics(fake.state.diagnostics.get(docUri))}, ` +
      `messages ${JSON.stringify(fake.state.messages.map((m) => m.text))}, ` +
      `server log tail ${JSON.stringify(fake.state.output.slice(-40))}`;

    const rejectsValid = (): Diagnostic[] | undefined => {
      const found = fake.state.diagnostics.get(docUri)?.filter((d) => codeOf(d) === 'rejects-valid');
      return found && found.length > 0 ? found : undefined;
    };

    const run = (command: string, ...args: unknown[]): Promise<unknown> => {
      const fn = fake.state.commands.get(command);
      assert.ok(fn, `command ${command} is not registered`);
      return Promise.resolve(fn(...args));
    };

    before(async () => {
      // A fresh tree cache: nothing left over from other runs, nothing left behind.
      process.env.PRISM_CACHE_DIR = cacheDir;
      tapServerStdin();
      // Route `require('vscode')` (from the extension and the language client) to the fake.
      const moduleWithLoad = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
      const originalLoad = moduleWithLoad._load;
      moduleWithLoad._load = function (request: string, ...rest: unknown[]) {
        return request === 'vscode' ? fake.api : originalLoad.call(this, request, ...rest);
      };
      fake.state.settings = { ...SETTINGS };
      fake.state.workspaceFolders = [{ uri: (fake.api.Uri as { file(p: string): never }).file(TASK), name: 'mean-rounded', index: 0 }];
      // Loaded only now, after the `vscode` hook above is in place.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      ext = require(path.join(ROOT, 'out', 'src', 'extension.js')) as ExtensionModule;
      await ext.activate(context);
      const status = fake.state.statusItems.at(-1);
      assert.ok(status, 'the extension created no status bar item');
      item = status;
      // activate() resolves once the client has started (initialize answered), so the server's
      // commands are registered; a failed start shows up as a message instead.
      assert.ok(fake.state.commands.has('prism.runPanel'), `the server did not start; ${seen()}`);

      // VS Code opens the suite and shows it: the language client sends didOpen with the text read from disk.
      docUri = fake.openDocument(SUITE, suiteText).uri.toString();
      await waitFor(fake.state, `the status bar to show "${expectedStatus}"`, () => item.text === expectedStatus, WAIT_MS, seen);
      await waitFor(fake.state, 'a rejects-valid diagnostic', rejectsValid, WAIT_MS, seen);
    });

    after(async () => {
      await ext?.deactivate();
      for (const d of context.subscriptions) {
        d.dispose();
      }
      if (previousCacheDir === undefined) {
        delete process.env.PRISM_CACHE_DIR;
      } else {
        process.env.PRISM_CACHE_DIR = previousCacheDir;
      }
      fs.rmSync(cacheDir, { recursive: true, force: true });
    });

    it('the server received exactly the extension\'s initializationOptions and the suite\'s text', () => {
      const initialize = sent.find((m) => m.method === 'initialize');
      assert.ok(initialize, 'no initialize request on the wire');
      assert.deepEqual((initialize.params as { initializationOptions: unknown }).initializationOptions, INITIALIZATION_OPTIONS);
      const opened = sent.filter((m) => m.method === 'textDocument/didOpen');
      assert.deepEqual(
        opened.map((m) => m.params),
        [{ textDocument: { uri: docUri, languageId: 'python', version: 1, text: suiteText } }],
      );
    });

    it('publishes rejects-valid on the expected line, with the severity from the settings', () => {
      const found = rejectsValid() ?? [];
      assert.deepEqual(
        found.map((d) => d.range.start.line + 1),
        panel.rejectsValidLines,
        `rejects-valid lines (1-based); ${describeDiagnostics(fake.state.diagnostics.get(docUri))}`,
      );
      for (const d of found) {
        assert.equal(d.severity, DiagnosticSeverity.Error, 'prism.severity.rejects-valid = error');
        assert.equal(d.source, 'prism');
      }
      // accepts-invalid findings exist when the suite accepts an invalid candidate (test_overfit does),
      // and every kind follows its own setting.
      const acceptsInvalid = invalid.some((c) => panel.accepted.includes(c.id));
      assert.equal(
        (fake.state.diagnostics.get(docUri) ?? []).some((d) => codeOf(d) === 'accepts-invalid'),
        acceptsInvalid,
        `accepts-invalid findings; ${describeDiagnostics(fake.state.diagnostics.get(docUri))}`,
      );
      const levels: Record<string, number> = {
        'accepts-invalid': DiagnosticSeverity.Warning,
        'misses-baseline': DiagnosticSeverity.Information,
        'execution-error': DiagnosticSeverity.Error,
        'weak-assertion': DiagnosticSeverity.Hint,
      };
      for (const d of fake.state.diagnostics.get(docUri) ?? []) {
        const kind = String(codeOf(d));
        if (kind in levels) {
          assert.equal(d.severity, levels[kind], `severity of ${kind}: ${d.message}`);
        }
      }
      assert.ok(
        !(fake.state.diagnostics.get(docUri) ?? []).some((d) => codeOf(d) === 'execution-error'),
        `the suite ran everywhere; ${describeDiagnostics(fake.state.diagnostics.get(docUri))}`,
      );
    });

    it('shows the JSF summary of the real prism/status in the status bar', () => {
      assert.equal(item.text, expectedStatus);
      assert.match(item.text, panel.jsf ? /JSF ✓/ : /JSF ✗/);
      assert.ok(item.visible);
      assert.ok(
        item.texts.some((t) => t.startsWith('$(sync~spin) Prism: running')),
        `a running status came before the result: ${JSON.stringify(item.texts)}`,
      );
      assert.match(String(item.tooltip), new RegExp(`Joint success \\(JSF\\): ${panel.jsf ? 'yes' : 'no'}`));
      assert.deepEqual(item.command, { title: 'Run Panel', command: 'prism.run', arguments: [docUri] });
    });

    it("prints each run's line once in the output channel (the server's stderr lands there too)", () => {
      const name = path.basename(SUITE);
      const log = fake.state.output.join('\n');
      const runLines = log.split('\n').filter((l) => l.includes(`${name} v`) && l.includes(': idle'));
      assert.ok(runLines.length >= 1, `a run line: ${JSON.stringify(fake.state.output.slice(-20))}`);
      const first = runLines[0] ?? '';
      const words = first.slice(first.indexOf(`${name} v`));
      assert.equal(log.split(words).length - 1, 1, `printed once: ${JSON.stringify(runLines)}`);
    });

    it('Prism: Run Panel from the palette (prism.run, no arguments) runs the server\'s prism.runPanel on the active document', async () => {
      const sentBefore = sent.length;
      const result = (await run('prism.run')) as { uri?: string; state?: string; valid?: unknown; invalid?: unknown };
      const request = sent.slice(sentBefore).find((m) => m.method === 'workspace/executeCommand');
      assert.deepEqual(request?.params, { command: 'prism.runPanel', arguments: [docUri] }, 'the active document uri was added');
      assert.equal(result.uri, docUri);
      assert.equal(result.state, 'idle');
      assert.deepEqual(result.valid, {
        accepted: valid.filter((c) => panel.accepted.includes(c.id)).length,
        total: valid.length,
      });
      assert.deepEqual(result.invalid, {
        rejected: invalid.filter((c) => !panel.accepted.includes(c.id)).length,
        total: invalid.length,
      });
      await waitFor(fake.state, `the status bar to show "${expectedStatus}" again`, () => item.text === expectedStatus, WAIT_MS, seen);
      assert.deepEqual(
        fake.state.messages.filter((m) => m.level === 'error'),
        [],
        'no error message',
      );
    });

    it('Show Candidate… lists the real panel and opens the chosen candidate as a read-only diff', async () => {
      let offered: { label: string; description?: string; detail?: string }[] = [];
      fake.state.quickPickChoice = (items) => {
        offered = items as typeof offered;
        return offered.find((p) => p.label === 'half-even');
      };
      const openedBefore = fake.state.opened.length;
      await run('prism.pickCandidate');
      assert.deepEqual(
        offered.map((p) => p.label),
        panel.candidates.map((c) => c.id),
      );
      assert.equal(offered.length, 10);
      const halfEven = offered.find((p) => p.label === 'half-even');
      assert.ok(halfEven, 'half-even is offered');
      assert.equal(halfEven.description, 'valid');
      assert.equal(offered.find((p) => p.label === 'reference')?.description, 'valid · reference');
      for (const c of panel.candidates) {
        assert.equal(offered.find((p) => p.label === c.id)?.description?.split(' · ')[0], c.label, c.id);
      }
      assert.deepEqual(fake.state.opened.slice(openedBefore), [], 'no file of the tree cache is opened');
      const diff = fake.state.diffs.at(-1);
      assert.ok(diff, `a diff is opened; messages ${JSON.stringify(fake.state.messages)}`);
      const [left, right, title] = diff;
      assert.match(left, /^prism-candidate:\/initial\/solution\.py\?doc=/);
      assert.match(right, /^prism-candidate:\/half-even\/solution\.py\?doc=/);
      assert.equal(title, 'half-even (valid): solution.py', 'titled with the id and label first');
      const provider = fake.state.contentProviders.get('prism-candidate');
      assert.ok(provider, 'prism-candidate documents are served');
      const parse = (s: string): never => (fake.api.Uri as { parse(s: string): never }).parse(s);
      const candidate = String(await provider.provideTextDocumentContent(parse(right)));
      const initial = String(await provider.provideTextDocumentContent(parse(left)));
      assert.match(candidate, /Fraction/, 'half-even rounds an exact Fraction (served by the real server)');
      assert.equal(initial, fs.readFileSync(path.join(TASK, 'initial', 'solution.py'), 'utf8'));
    });
  });
}
