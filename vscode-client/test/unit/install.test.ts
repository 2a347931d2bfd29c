import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { checkServerImport, classifyImportResult, importFailureMessage, installCommand, serverArgs } from '../../src/install';

describe('install command', () => {
  it('is <interpreter> -m pip install prism-lsp', () => {
    assert.equal(installCommand('/venv/bin/python', 'linux'), '/venv/bin/python -m pip install prism-lsp');
    assert.equal(installCommand('python3', 'darwin'), 'python3 -m pip install prism-lsp');
  });

  it('quotes interpreters with spaces for the platform shell', () => {
    assert.equal(installCommand('/my venv/bin/python', 'linux'), `'/my venv/bin/python' -m pip install prism-lsp`);
    assert.equal(
      installCommand('C:\\Program Files\\Python312\\python.exe', 'win32'),
      '& "C:\\Program Files\\Python312\\python.exe" -m pip install prism-lsp',
    );
    assert.equal(installCommand('C:\\Python312\\python.exe', 'win32'), 'C:\\Python312\\python.exe -m pip install prism-lsp');
  });

  it('the server starts as -m prism_lsp', () => {
    assert.deepEqual(serverArgs(), ['-m', 'prism_lsp']);
  });
});

describe('import check', () => {
  it('runs <interpreter> -c "import prism_lsp"', async () => {
    const calls: [string, string[]][] = [];
    const r = await checkServerImport('/py', (cmd, args) => {
      calls.push([cmd, args]);
      return Promise.resolve({ code: 0, stderr: '' });
    });
    assert.deepEqual(r, { ok: true });
    assert.deepEqual(calls, [['/py', ['-c', 'import prism_lsp']]]);
  });

  it('tells a missing module from a missing interpreter and a broken install', () => {
    const missing = classifyImportResult({
      code: 1,
      stderr: 'Traceback (most recent call last):\n  File "<string>", line 1\nModuleNotFoundError: No module named \'prism_lsp\'\n',
    });
    assert.deepEqual(missing, { ok: false, reason: 'module-missing', detail: "ModuleNotFoundError: No module named 'prism_lsp'" });
    assert.equal(classifyImportResult({ code: null, stderr: '', spawnError: 'ENOENT' }).ok, false);
    assert.deepEqual(classifyImportResult({ code: null, stderr: '', spawnError: 'ENOENT' }), {
      ok: false,
      reason: 'interpreter-not-found',
      detail: 'ENOENT',
    });
    const broken = classifyImportResult({ code: 1, stderr: "ImportError: cannot import name 'x' from 'pygls'\n" });
    assert.equal(broken.ok ? '' : broken.reason, 'import-failed');
    const slow = classifyImportResult({ code: null, stderr: '', timedOut: true });
    assert.equal(slow.ok ? '' : slow.reason, 'timeout');
  });

  it('the notification for a missing module names the exact install command', () => {
    const msg = importFailureMessage('/venv/bin/python', { ok: false, reason: 'module-missing', detail: '' }, 'linux');
    assert.match(msg, /\/venv\/bin\/python -m pip install prism-lsp/);
    const nf = importFailureMessage('python3', { ok: false, reason: 'interpreter-not-found', detail: 'ENOENT' }, 'linux');
    assert.match(nf, /prism\.interpreter/);
  });
});
