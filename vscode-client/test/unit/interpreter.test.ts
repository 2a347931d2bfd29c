import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  expandPath,
  interpreterFromPythonApi,
  keepWorking,
  keptMessage,
  resolveInterpreter,
  settingsEditorFor,
  withTimeout,
} from '../../src/core/interpreter';

const never = (): Promise<string | undefined> => {
  throw new Error('the Python extension must not be asked');
};

describe('resolveInterpreter', () => {
  it('prefers the prism.interpreter setting over everything', async () => {
    const r = await resolveInterpreter({ setting: () => '/venv/bin/python', pythonExtension: never });
    assert.deepEqual(r, { command: '/venv/bin/python', source: 'setting' });
  });

  it('uses the Python extension when the setting is unset or blank', async () => {
    for (const setting of [undefined, '', '   ', null, 42]) {
      const r = await resolveInterpreter({ setting: () => setting, pythonExtension: () => Promise.resolve('/ext/python') });
      assert.deepEqual(r, { command: '/ext/python', source: 'python-extension' }, String(setting));
    }
  });

  it('falls back to python3 on PATH when the Python extension is absent', async () => {
    const r = await resolveInterpreter({ setting: () => undefined, pythonExtension: () => Promise.resolve(undefined) });
    assert.deepEqual(r, { command: 'python3', source: 'path' });
  });

  it('falls through when the Python extension throws (sync or async) and logs why', async () => {
    const lines: string[] = [];
    const r1 = await resolveInterpreter({
      setting: () => undefined,
      pythonExtension: () => Promise.reject(new Error('activation failed')),
      log: (l) => lines.push(l),
    });
    assert.deepEqual(r1, { command: 'python3', source: 'path' });
    assert.match(lines[0] ?? '', /activation failed/);
    const r2 = await resolveInterpreter({
      setting: () => undefined,
      pythonExtension: () => {
        throw new Error('boom');
      },
      fallback: 'python',
    });
    assert.deepEqual(r2, { command: 'python', source: 'path' });
  });

  it('falls through when the Python extension gives an empty path', async () => {
    const r = await resolveInterpreter({ setting: () => '', pythonExtension: () => Promise.resolve('') });
    assert.equal(r.source, 'path');
  });

  it('expands ${workspaceFolder} and ~ in the setting', async () => {
    const r = await resolveInterpreter({
      setting: () => ' ${workspaceFolder}/.venv/bin/python ',
      pythonExtension: never,
      expand: { workspaceFolder: '/w', home: '/home/u' },
    });
    assert.equal(r.command, '/w/.venv/bin/python');
    assert.equal(expandPath('~/venv/bin/python', { home: '/home/u' }), '/home/u/venv/bin/python');
    assert.equal(expandPath('${userHome}/py', { home: '/home/u' }), '/home/u/py');
    assert.equal(expandPath('/a~b', { home: '/home/u' }), '/a~b');
    assert.equal(expandPath('${workspaceFolder}/x', {}), '${workspaceFolder}/x');
  });
});

describe('interpreterFromPythonApi', () => {
  const uri = (fsPath: string) => ({ fsPath });

  it('resolves the active environment to its executable', async () => {
    let asked: unknown;
    const api = {
      ready: Promise.resolve(),
      environments: {
        getActiveEnvironmentPath: (resource: unknown) => {
          asked = resource;
          return { id: 'env', path: '/envs/a' };
        },
        resolveEnvironment: (env: { path: string }) => Promise.resolve({ executable: { uri: uri(`${env.path}/bin/python`) } }),
      },
    };
    assert.equal(await interpreterFromPythonApi(api, 'folder'), '/envs/a/bin/python');
    assert.equal(asked, 'folder');
  });

  it('uses the environment path when it cannot be resolved', async () => {
    const api = {
      environments: {
        getActiveEnvironmentPath: () => ({ id: 'x', path: '/usr/bin/python3.12' }),
        resolveEnvironment: () => Promise.resolve(undefined),
      },
    };
    assert.equal(await interpreterFromPythonApi(api), '/usr/bin/python3.12');
  });

  it('falls back to the legacy settings.getExecutionDetails API', async () => {
    const api = { settings: { getExecutionDetails: () => ({ execCommand: ['/legacy/python', '-X'] }) } };
    assert.equal(await interpreterFromPythonApi(api), '/legacy/python');
  });

  it('returns undefined for unusable exports', async () => {
    for (const api of [undefined, null, 3, {}, { environments: {} }, { settings: { getExecutionDetails: () => ({}) } }]) {
      assert.equal(await interpreterFromPythonApi(api), undefined);
    }
  });

  it('propagates API failures (the resolver turns them into a fall-through)', async () => {
    const api = { environments: { getActiveEnvironmentPath: () => ({ path: '/p' }), resolveEnvironment: () => Promise.reject(new Error('x')) } };
    await assert.rejects(interpreterFromPythonApi(api), /x/);
  });
});

describe('withTimeout', () => {
  it('gives the fallback when the promise hangs', async () => {
    assert.equal(await withTimeout(new Promise<string>(() => undefined), 5, 'fallback'), 'fallback');
  });
  it('gives the value when it settles in time', async () => {
    assert.equal(await withTimeout(Promise.resolve('v'), 1000, 'fallback'), 'v');
  });
});

describe('never fall back silently from an interpreter that worked', () => {
  const venv = { command: '/home/me/prism/.venv/bin/python', source: 'setting' } as const;
  const path = { command: 'python3', source: 'path' } as const;

  it('keeps the last working interpreter when an implicit choice (PATH, Python extension) lacks the server', () => {
    assert.deepEqual(keepWorking(path, venv), venv);
    assert.deepEqual(keepWorking({ command: '/usr/bin/python3.12', source: 'python-extension' }, venv), venv);
    assert.match(keptMessage(path, venv), /python3 \(from path\) does not have the server, so Prism keeps \/home\/me\/prism\/\.venv\/bin\/python/);
  });

  it('lets a prism.interpreter the user set fail visibly, and has nothing to keep before a first start', () => {
    assert.equal(keepWorking({ command: '/opt/other/python', source: 'setting' }, venv), undefined);
    assert.equal(keepWorking(path, undefined), undefined);
    assert.equal(keepWorking(path, path), undefined);
  });
});

describe('"Set Interpreter" opens the settings scope where prism.interpreter lives', () => {
  it('the folder or workspace that sets it, else Remote settings in a remote window (code-server), else User', () => {
    const key = 'prism.interpreter';
    assert.equal(settingsEditorFor(key, { workspaceFolderValue: '/x' }, undefined).command, 'workbench.action.openFolderSettings');
    assert.equal(settingsEditorFor(key, { workspaceValue: '/x' }, 'ssh-remote').command, 'workbench.action.openWorkspaceSettings');
    assert.deepEqual(settingsEditorFor(key, {}, 'code-server'), { command: 'workbench.action.openRemoteSettings', args: [{ query: key }] });
    assert.deepEqual(settingsEditorFor(key, undefined, undefined), { command: 'workbench.action.openSettings', args: [key] });
  });
});
