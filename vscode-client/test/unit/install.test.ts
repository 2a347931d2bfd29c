import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  ENVIRONMENT_PROBE,
  FailedCheck,
  INSTALL_ACTIONS,
  checkServerImport,
  classifyImportResult,
  importFailureMessage,
  installAdvice,
  installCommand,
  parseEnvironmentProbe,
  probeEnvironment,
  serverArgs,
} from '../../src/core/install';

const missing: FailedCheck = { ok: false, reason: 'module-missing', detail: "ModuleNotFoundError: No module named 'prism_lsp'" };
const notFound: FailedCheck = { ok: false, reason: 'interpreter-not-found', detail: 'ENOENT' };
const broken: FailedCheck = { ok: false, reason: 'import-failed', detail: "ImportError: cannot import name 'x' from 'pygls'" };
const slow: FailedCheck = { ok: false, reason: 'timeout', detail: 'the interpreter did not answer in time' };
const VENV = { venv: true, externallyManaged: false };
const SYSTEM = { venv: false, externallyManaged: true };

describe('install command', () => {
  it('is <interpreter> -m pip install <prism.serverPackage>', () => {
    assert.equal(installCommand('/venv/bin/python', '/src/prism', 'linux'), '/venv/bin/python -m pip install /src/prism');
    assert.equal(installCommand('python3', 'dist/prism_lsp-0.1.0-py3-none-any.whl', 'darwin'), 'python3 -m pip install dist/prism_lsp-0.1.0-py3-none-any.whl');
  });

  it('is nothing without prism.serverPackage: there is no PyPI release to offer', () => {
    assert.equal(installCommand('/venv/bin/python', '', 'linux'), undefined);
    assert.equal(installCommand('/venv/bin/python', '   ', 'linux'), undefined);
  });

  it('quotes interpreters and packages for the platform shell', () => {
    assert.equal(installCommand('/my venv/bin/python', '/src/my prism', 'linux'), `'/my venv/bin/python' -m pip install '/src/my prism'`);
    assert.equal(installCommand('/venv/bin/python', '/src/prism[dev]', 'linux'), `/venv/bin/python -m pip install '/src/prism[dev]'`);
    assert.equal(
      installCommand('C:\\Program Files\\Python312\\python.exe', 'C:\\src\\prism', 'win32'),
      '& "C:\\Program Files\\Python312\\python.exe" -m pip install C:\\src\\prism',
    );
    assert.equal(installCommand('C:\\Python312\\python.exe', 'C:\\my src\\prism', 'win32'), 'C:\\Python312\\python.exe -m pip install "C:\\my src\\prism"');
  });

  it('the server starts as -m prism_lsp', () => {
    assert.deepEqual(serverArgs(), ['-m', 'prism_lsp']);
  });
});

describe('install advice (the "interpreter lacks Prism" notification)', () => {
  it('never offers a PyPI install', () => {
    for (const check of [missing, notFound, broken, slow]) {
      for (const serverPackage of ['', '/src/prism']) {
        for (const env of [undefined, VENV, SYSTEM]) {
          const advice = installAdvice('/venv/bin/python', { serverPackage }, 'linux', check, env);
          assert.doesNotMatch(advice.message, /pip install prism-lsp/);
          assert.notEqual(advice.command, '/venv/bin/python -m pip install prism-lsp');
          assert.ok(advice.actions.length > 0 && advice.actions.length <= 3, 'a notification shows at most three buttons well');
          if (advice.command === undefined) {
            assert.ok(!advice.actions.includes(INSTALL_ACTIONS.copy), 'no Copy button without a command');
          } else {
            assert.equal(advice.actions[0], INSTALL_ACTIONS.copy);
            assert.ok(advice.message.endsWith(advice.command), 'the message shows the exact command it copies');
          }
        }
      }
    }
  });

  it('missing module + prism.serverPackage: the exact pip command into that interpreter', () => {
    const advice = installAdvice('/home/me/prism/.venv/bin/python', { serverPackage: '/home/me/prism' }, 'linux', missing, VENV);
    assert.equal(advice.command, '/home/me/prism/.venv/bin/python -m pip install /home/me/prism');
    assert.equal(advice.message, 'Prism: the server (prism_lsp) is not installed for /home/me/prism/.venv/bin/python. Install it with: /home/me/prism/.venv/bin/python -m pip install /home/me/prism');
    assert.deepEqual(advice.actions, [INSTALL_ACTIONS.copy, INSTALL_ACTIONS.retry, INSTALL_ACTIONS.setInterpreter]);
    // Unknown environment (the probe failed): the command is still offered.
    assert.equal(installAdvice('python3', { serverPackage: '/src/prism' }, 'linux', missing).command, 'python3 -m pip install /src/prism');
  });

  it('missing module, no prism.serverPackage: explains the choices and opens the settings', () => {
    const advice = installAdvice('python3', { serverPackage: '' }, 'linux', missing);
    assert.equal(advice.command, undefined);
    assert.match(advice.message, /not installed for python3, and it is not published on PyPI/);
    assert.match(advice.message, /"prism\.interpreter" at the Python of a virtualenv where Prism is installed \(e\.g\. <prism checkout>\/\.venv\/bin\/python, which scripts\/setup\.sh creates\)/);
    assert.match(advice.message, /set "prism\.serverPackage" to your Prism checkout or wheel/);
    assert.deepEqual(advice.actions, [INSTALL_ACTIONS.setInterpreter, INSTALL_ACTIONS.setServerPackage, INSTALL_ACTIONS.retry]);
  });

  it('a system Python that refuses pip (PEP 668) gets no pip command, even with prism.serverPackage', () => {
    const advice = installAdvice('/usr/bin/python3', { serverPackage: '/src/prism' }, 'linux', missing, SYSTEM);
    assert.equal(advice.command, undefined);
    assert.match(advice.message, /\/usr\/bin\/python3 is a system Python that refuses "pip install" \(PEP 668/);
    assert.match(advice.message, /prism\.interpreter/);
    assert.match(advice.message, /install "\/src\/prism" there/);
    assert.equal(advice.actions[0], INSTALL_ACTIONS.setInterpreter);
    const bare = installAdvice('/usr/bin/python3', { serverPackage: '' }, 'linux', missing, SYSTEM);
    assert.match(bare.message, /PEP 668/);
    assert.equal(bare.command, undefined);
  });

  it('the virtualenv hint follows the platform', () => {
    assert.match(installAdvice('python', { serverPackage: '' }, 'win32', missing).message, /<prism checkout>\\\.venv\\Scripts\\python\.exe/);
    assert.match(installAdvice('python3', { serverPackage: '' }, 'darwin', missing).message, /<prism checkout>\/\.venv\/bin\/python/);
  });

  it('a missing interpreter: point prism.interpreter at a virtualenv (no pip command for a Python that does not run)', () => {
    const advice = installAdvice('python3', { serverPackage: '/src/prism' }, 'linux', notFound);
    assert.equal(advice.command, undefined);
    assert.match(advice.message, /cannot start the Python interpreter "python3" \(ENOENT\)/);
    assert.match(advice.message, /prism\.interpreter/);
    assert.equal(advice.actions[0], INSTALL_ACTIONS.setInterpreter);
  });

  it('a broken install: reinstall command when known, else the output', () => {
    const withPkg = installAdvice('/v/bin/python', { serverPackage: '/src/prism' }, 'linux', broken, VENV);
    assert.equal(withPkg.command, '/v/bin/python -m pip install /src/prism');
    assert.match(withPkg.message, /"import prism_lsp.cli" fails with \/v\/bin\/python: ImportError/);
    const without = installAdvice('/v/bin/python', { serverPackage: '' }, 'linux', broken, VENV);
    assert.equal(without.command, undefined);
    assert.ok(without.actions.includes(INSTALL_ACTIONS.output));
  });

  it('a timeout offers a retry', () => {
    const advice = installAdvice('python3', { serverPackage: '' }, 'linux', slow);
    assert.match(advice.message, /did not answer "import prism_lsp.cli" in time/);
    assert.equal(advice.actions[0], INSTALL_ACTIONS.retry);
  });

  it('importFailureMessage is the advice text', () => {
    assert.equal(
      importFailureMessage('python3', { serverPackage: '/p' }, 'linux', missing),
      installAdvice('python3', { serverPackage: '/p' }, 'linux', missing).message,
    );
  });
});

describe('environment probe (PEP 668)', () => {
  it('runs one line of Python and reads its JSON', async () => {
    const calls: [string, string[]][] = [];
    const env = await probeEnvironment('/usr/bin/python3', (cmd, args) => {
      calls.push([cmd, args]);
      return Promise.resolve({ code: 0, stdout: '{"venv": false, "externallyManaged": true}\n', stderr: '' });
    });
    assert.deepEqual(env, SYSTEM);
    assert.deepEqual(calls, [['/usr/bin/python3', ['-c', ENVIRONMENT_PROBE]]]);
    assert.doesNotMatch(ENVIRONMENT_PROBE, /\n/);
  });

  it('is unknown when the probe fails or prints something else', () => {
    assert.equal(parseEnvironmentProbe({ code: 1, stdout: '{"venv": true, "externallyManaged": false}', stderr: '' }), undefined);
    assert.equal(parseEnvironmentProbe({ code: 0, stdout: '', stderr: '' }), undefined);
    assert.equal(parseEnvironmentProbe({ code: 0, stdout: 'hello', stderr: '' }), undefined);
    assert.equal(parseEnvironmentProbe({ code: 0, stdout: '{"venv": "yes"}', stderr: '' }), undefined);
    assert.deepEqual(parseEnvironmentProbe({ code: 0, stdout: 'noise\n{"venv": true, "externallyManaged": false}\n', stderr: '' }), VENV);
  });
});

describe('import check', () => {
  it('runs <interpreter> -c "import prism_lsp.cli" (what -m prism_lsp imports, dependencies and all)', async () => {
    const calls: [string, string[]][] = [];
    const r = await checkServerImport('/py', (cmd, args) => {
      calls.push([cmd, args]);
      return Promise.resolve({ code: 0, stderr: '' });
    });
    assert.deepEqual(r, { ok: true });
    assert.deepEqual(calls, [['/py', ['-c', 'import prism_lsp.cli']]]);
  });

  it('tells a missing module from a missing interpreter and a broken install', () => {
    const m = classifyImportResult({
      code: 1,
      stderr: 'Traceback (most recent call last):\n  File "<string>", line 1\nModuleNotFoundError: No module named \'prism_lsp\'\n',
    });
    assert.deepEqual(m, missing);
    assert.deepEqual(classifyImportResult({ code: null, stderr: '', spawnError: 'ENOENT' }), notFound);
    const b = classifyImportResult({ code: 1, stderr: "ImportError: cannot import name 'x' from 'pygls'\n" });
    assert.equal(b.ok ? '' : b.reason, 'import-failed');
    const t = classifyImportResult({ code: null, stderr: '', timedOut: true });
    assert.equal(t.ok ? '' : t.reason, 'timeout');
  });
});
