import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { CLIENT_COMMANDS, SERVER_COMMANDS } from '../../src/core/commands';
import { FINDING_KINDS, LEVELS, REVEAL, RUN_ON, SANDBOX, defaultSettings } from '../../src/core/settings';
import { readJson } from './helpers';

interface Prop {
  type: string;
  default?: unknown;
  enum?: string[];
  description?: string;
  markdownDescription?: string;
}
interface Manifest {
  name: string;
  version: string;
  main: string;
  activationEvents: string[];
  extensionDependencies?: string[];
  contributes: {
    commands: { command: string; title: string; category?: string }[];
    menus: { commandPalette: { command: string; when?: string }[] };
    configuration: { properties: Record<string, Prop> };
  };
}

const pkg = readJson('package.json') as Manifest;
const props = pkg.contributes.configuration.properties;

describe('package.json contributions agree with the code', () => {
  it('every setting has a description', () => {
    for (const [key, prop] of Object.entries(props)) {
      assert.ok((prop.description ?? prop.markdownDescription ?? '').length > 10, `${key} lacks a description`);
    }
  });

  it('a description with code in backticks is markdown (plain descriptions show the backticks raw)', () => {
    for (const [key, prop] of Object.entries(props)) {
      assert.ok(!(prop.description ?? '').includes('`'), `${key}: backticks in a plain description`);
      for (const text of (prop as { enumDescriptions?: string[] }).enumDescriptions ?? []) {
        assert.ok(!text.includes('`'), `${key}: backticks in a plain enum description`);
      }
    }
  });

  it("prism.runOn says that code-server autosaves (so `save` runs about as often as `type` there)", () => {
    assert.match(props['prism.runOn']?.markdownDescription ?? '', /code-server[^.]*autosaves/);
    assert.match(props['prism.runOn']?.markdownDescription ?? '', /files\.autoSave/);
  });

  it('contributes the Prism view and a getting-started walkthrough whose steps run real commands', () => {
    const raw = readJson('package.json') as { contributes: { views?: Record<string, { id: string }[]>; walkthroughs?: { steps: { description: string }[] }[] } };
    assert.deepEqual(raw.contributes.views?.explorer?.map((v) => v.id), ['prism.panel']);
    const steps = raw.contributes.walkthroughs?.[0]?.steps ?? [];
    assert.ok(steps.length >= 4);
    assert.ok(steps.some((s) => s.description.includes('command:prism.buildPanel')));
  });

  it('contributes exactly the documented settings', () => {
    assert.deepEqual(
      Object.keys(props).sort(),
      [
        'prism.interpreter',
        'prism.serverPackage',
        'prism.runOn',
        'prism.debounceMs',
        'prism.reveal',
        'prism.sandbox',
        'prism.timeoutSeconds',
        ...FINDING_KINDS.map((k) => `prism.severity.${k}`),
        'prism.testResults.inline',
        'prism.trace.server',
      ].sort(),
    );
  });

  it('defaults and enums match the settings module (and so DESIGN.md)', () => {
    const d = defaultSettings();
    assert.equal(props['prism.runOn']?.default, d.runOn);
    assert.deepEqual(props['prism.runOn']?.enum, [...RUN_ON]);
    assert.equal(props['prism.debounceMs']?.default, d.debounceMs);
    assert.equal(props['prism.debounceMs']?.type, 'number');
    assert.equal(props['prism.reveal']?.default, d.reveal);
    assert.deepEqual(props['prism.reveal']?.enum, [...REVEAL]);
    assert.equal(props['prism.sandbox']?.default, d.sandbox);
    assert.deepEqual(props['prism.sandbox']?.enum, [...SANDBOX]);
    assert.equal(props['prism.timeoutSeconds']?.default, d.timeoutSeconds);
    assert.equal(props['prism.interpreter']?.type, 'string');
    assert.equal(props['prism.serverPackage']?.type, 'string');
    assert.equal(props['prism.serverPackage']?.default, '');
    for (const kind of FINDING_KINDS) {
      assert.equal(props[`prism.severity.${kind}`]?.default, d.severity[kind], kind);
      assert.deepEqual(props[`prism.severity.${kind}`]?.enum, [...LEVELS], kind);
    }
    assert.deepEqual(props['prism.trace.server']?.enum, ['off', 'messages', 'verbose']);
  });

  it('contributes the four palette commands, all the extension\'s own, and activates on prism.toml / python', () => {
    const ids = pkg.contributes.commands.map((c) => c.command).sort();
    assert.deepEqual(ids, Object.values(CLIENT_COMMANDS).sort());
    const contributed: string[] = ids;
    // The language client registers the server's commands while the server runs; contributing
    // one would put a command in the palette that fails with "command not found" when it is down.
    for (const id of Object.values(SERVER_COMMANDS)) {
      assert.ok(!contributed.includes(id), id);
      assert.ok(!(Object.values(CLIENT_COMMANDS) as string[]).includes(id), `${id} would be registered twice`);
    }
    assert.equal(pkg.contributes.commands.find((c) => c.command === CLIENT_COMMANDS.runPanel)?.title, 'Run Panel');
    for (const entry of pkg.contributes.menus.commandPalette) {
      assert.ok((Object.values(CLIENT_COMMANDS) as string[]).includes(entry.command), entry.command);
    }
    for (const c of pkg.contributes.commands) {
      assert.equal(c.category, 'Prism');
    }
    assert.deepEqual(pkg.activationEvents.sort(), ['onLanguage:python', 'workspaceContains:**/prism.toml']);
  });

  it('does not depend on the Python extension', () => {
    assert.equal(pkg.extensionDependencies, undefined);
    assert.equal(pkg.name, 'prism');
    assert.equal(pkg.main, './dist/extension.js');
  });
});
