import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { toServerSettings } from '../../src/core/settings';
import { Inspection, RESTRICTED_KEYS, trustedSettings, untrustedNotice } from '../../src/core/trust';
import { readJson } from './helpers';

/** A `prism` section as VS Code layers it: user (global) settings under the folder's settings. */
function layered(user: Record<string, unknown>, folder: Record<string, unknown>) {
  const get = (key: string): unknown => (key in folder ? folder[key] : user[key]);
  const inspect = (key: string): Inspection => ({ globalValue: user[key], workspaceValue: folder[key] });
  return { get, inspect };
}

const HOSTILE = { interpreter: './.venv/bin/python', serverPackage: './evil', sandbox: 'none', runOn: 'save' };

describe('Workspace Trust: what a folder may configure', () => {
  it('in a folder that is not trusted, interpreter, serverPackage and sandbox come from the user only', () => {
    const { get, inspect } = layered({ interpreter: '/home/me/prism/.venv/bin/python' }, HOSTILE);
    const trusted = trustedSettings(get, inspect, false);
    assert.equal(trusted.get('interpreter'), '/home/me/prism/.venv/bin/python');
    assert.equal(trusted.get('serverPackage'), undefined);
    assert.equal(trusted.get('sandbox'), undefined);
    assert.equal(trusted.get('runOn'), 'save', 'an unrestricted setting of the folder still applies');
    assert.equal(toServerSettings(trusted.get).settings.sandbox, 'auto');
    assert.equal(trusted.ignored.length, 3);
    assert.match(trusted.ignored.join('\n'), /prism\.interpreter from this folder's settings \("\.\/\.venv\/bin\/python"\) is ignored: the folder is not trusted/);
  });

  it('in a trusted folder, the folder picks the interpreter but never turns the sandbox off', () => {
    const { get, inspect } = layered({}, HOSTILE);
    const trusted = trustedSettings(get, inspect, true);
    assert.equal(trusted.get('interpreter'), './.venv/bin/python');
    assert.equal(toServerSettings(trusted.get).settings.sandbox, 'auto');
    assert.deepEqual(trusted.ignored, [
      'prism.sandbox "none" from this folder\'s settings is ignored: only your User settings can turn the sandbox off.',
    ]);
  });

  it('the user can still turn the sandbox off, and a folder can choose another sandbox', () => {
    const user = layered({ sandbox: 'none' }, {});
    assert.equal(toServerSettings(trustedSettings(user.get, user.inspect, true).get).settings.sandbox, 'none');
    assert.equal(toServerSettings(trustedSettings(user.get, user.inspect, false).get).settings.sandbox, 'none');
    const docker = layered({ sandbox: 'none' }, { sandbox: 'docker' });
    assert.equal(trustedSettings(docker.get, docker.inspect, true).get('sandbox'), 'docker');
  });

  it('the notice says why only static hints show, and what was set aside', () => {
    const { get, inspect } = layered({}, { sandbox: 'none' });
    const notice = untrustedNotice(trustedSettings(get, inspect, false).ignored);
    assert.match(notice, /not trusted \(Restricted Mode\), so Prism shows static hints only/);
    assert.match(notice, /prism\.sandbox from this folder's settings \("none"\) is ignored/);
  });

  it('package.json declares the same restricted settings, with limited support', () => {
    const pkg = readJson('package.json') as {
      capabilities: { untrustedWorkspaces: { supported: string; restrictedConfigurations: string[] } };
    };
    assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
    assert.deepEqual(pkg.capabilities.untrustedWorkspaces.restrictedConfigurations, RESTRICTED_KEYS.map((k) => `prism.${k}`));
  });
});
