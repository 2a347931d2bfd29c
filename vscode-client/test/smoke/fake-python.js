#!/usr/bin/env node
// A stand-in for `<python>` in the smoke test: `-c "import prism_lsp"` succeeds
// (or fails like Python when FAKE_PRISM_MISSING=1), any other `-c` answers the
// extension's environment probe as a virtualenv would, and `-m prism_lsp` runs a
// tiny LSP server that records what the client sends. Nothing of Prism here.
'use strict';

const args = process.argv.slice(2);
if (args[0] === '-c') {
  if (!/import prism_lsp/.test(args[1] || '')) {
    // The extension's environment probe (PEP 668): a virtualenv's Python.
    process.stdout.write('{"venv": true, "externallyManaged": false}\n');
    process.exit(0);
  }
  if (process.env.FAKE_PRISM_MISSING === '1') {
    process.stderr.write("Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\nModuleNotFoundError: No module named 'prism_lsp'\n");
    process.exit(1);
  }
  process.exit(0);
}
// Exactly `-m prism_lsp`, like the real server's argument parser (which rejects e.g. `--stdio`).
if (args.length !== 2 || args[0] !== '-m' || args[1] !== 'prism_lsp') {
  process.stderr.write(`fake-python: unexpected arguments ${JSON.stringify(args)}\n`);
  process.exit(2);
}

const rpc = require('vscode-jsonrpc/node');
const conn = rpc.createMessageConnection(new rpc.StreamMessageReader(process.stdin), new rpc.StreamMessageWriter(process.stdout));
const seen = { pid: process.pid, initializationOptions: undefined, experimental: undefined, configurationChanges: [], pulledConfiguration: undefined, executeCalls: [], runProgramCalls: [] };

conn.onRequest('initialize', (params) => {
  seen.initializationOptions = params.initializationOptions;
  seen.experimental = params.capabilities.experimental;
  return {
    capabilities: {
      textDocumentSync: 1,
      executeCommandProvider: { commands: ['prism.runPanel', 'prism.listCandidates', 'prism.showCandidate', 'prism.applyEdit', 'fake.dump'] },
    },
  };
});
conn.onNotification('initialized', () => undefined);
conn.onNotification('workspace/didChangeConfiguration', (params) => {
  seen.configurationChanges.push(params);
});
conn.onNotification(() => undefined);
conn.onRequest('shutdown', () => null);
conn.onNotification('exit', () => process.exit(0));
const DOC = (program) => `prism-candidate:/${program}/solution.py?doc=file%3A%2F%2F%2Ftask%2Ftest_x.py`;
conn.onRequest('prism/candidate', (params) => ({
  id: params.id,
  label: 'invalid',
  title: `${params.id} (invalid)`,
  files: [{ path: 'solution.py', line: 2, initial: DOC('initial'), candidate: DOC(params.id) }],
}));
conn.onRequest('prism/programs', (params) => ({
  uri: params.uri,
  version: 1,
  items: [
    { id: 'initial', label: 'initial program', kind: 'initial', passed: true, line: null, message: '', expected: null, actual: null, duration_ms: 2400, tests: [] },
    { id: 'reference', label: 'reference (reference)', kind: 'reference', passed: true, line: null, message: '', expected: null, actual: null, duration_ms: 2500, tests: [] },
    {
      id: 'floor',
      label: 'floor (invalid)',
      kind: 'invalid',
      passed: false,
      line: 14,
      message: 'rejected, though valid: assert 2 == 3',
      expected: '3',
      actual: '2',
      duration_ms: 2600,
      tests: [{ name: 'test_halfway', outcome: 'pass', line: 12, message: '', expected: null, actual: null }],
    },
  ],
}));
// One program alone: floor, still accepted, with the input that tells it apart.
conn.onRequest('prism/runProgram', (params) => {
  seen.runProgramCalls.push(params);
  return {
    uri: params.uri,
    version: 1,
    item: {
      id: params.program,
      label: `${params.program} (invalid)`,
      kind: 'invalid',
      passed: false,
      line: 12,
      message: 'accepted, though invalid: a test reaches its change but no assertion judges it',
      expected: null,
      actual: null,
      duration_ms: 900,
      tests: [{ name: 'test_halfway', outcome: 'pass', line: 12, message: '', expected: null, actual: null }],
      witness: { call: 'mean_rounded([1, 4])', expected: '3', got: '2' },
    },
  };
});
conn.onRequest('prism/candidateFile', (params) => ({ text: `# served for ${params.uri}\n` }));
conn.onRequest('workspace/executeCommand', async (params) => {
  seen.executeCalls.push(params);
  const [uri] = params.arguments || [];
  switch (params.command) {
    case 'fake.dump':
      seen.pulledConfiguration = await conn.sendRequest('workspace/configuration', {
        items: [{ section: 'prism' }, { section: 'prism.severity' }, { section: 'editor.tabSize' }],
      });
      return seen;
    case 'prism.runPanel':
      conn.sendNotification('prism/status', {
        uri,
        state: 'idle',
        metrics: { detects_baseline: true, rar: true, jsf: false, valid_acceptance: 0.75, invalid_rejection: 1, h: 0.8571 },
        valid: { accepted: 3, total: 4 },
        invalid: { rejected: 5, total: 5 },
        summary: 'valid 3/4 besides the reference · invalid 5/5',
        done: 11,
        total: 11,
        message: null,
      });
      return { arguments: params.arguments };
    case 'prism.listCandidates':
      return [
        { id: 'reference', label: 'valid', reference: true, note: 'rounds half up', uri: 'file:///task/candidates/reference.diff' },
        { id: 'floor', label: 'invalid', reference: false, note: null, uri: 'file:///task/candidates/floor.diff' },
      ];
    default:
      return null;
  }
});
conn.listen();
