import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';

import { APPLIES_TEXT, SETTING_APPLIES, keysThatApply, reactToConfigChange } from '../../src/core/settingEffects';
import { FINDING_KINDS, defaultSettings } from '../../src/core/settings';
import { PACKAGE_ROOT, readJson } from './helpers';

const props = (readJson('package.json') as { contributes: { configuration: { properties: Record<string, unknown> } } }).contributes
  .configuration.properties;

/** A configuration change event over the given full setting names (`prism.x`); `prism` itself is affected by any. */
function changed(...names: string[]): (section: string) => boolean {
  return (section) => names.some((n) => n === section || n.startsWith(`${section}.`));
}

describe('how each setting applies', () => {
  it('covers exactly the contributed settings', () => {
    assert.deepEqual(
      Object.keys(SETTING_APPLIES).map((k) => `prism.${k}`).sort(),
      Object.keys(props).sort(),
    );
  });

  it('restarts only for a new process; everything the server reads applies live', () => {
    assert.deepEqual(keysThatApply('restart'), ['interpreter']);
    assert.deepEqual(keysThatApply('start'), ['serverPackage']);
    assert.deepEqual(keysThatApply('client'), ['testResults.inline', 'trace.server']);
    // Every key of the server settings object (what initializationOptions carries) is live.
    const serverKeys = Object.keys(defaultSettings())
      .filter((k) => k !== 'severity')
      .concat(FINDING_KINDS.map((k) => `severity.${k}`))
      .sort();
    assert.deepEqual(keysThatApply('server').sort(), serverKeys);
  });

  it('reacts to a change: restart, retry, live or nothing', () => {
    for (const running of [true, false]) {
      assert.equal(reactToConfigChange(changed('prism.interpreter'), running), 'restart');
      assert.equal(reactToConfigChange(changed('prism.interpreter', 'prism.runOn'), running), 'restart');
      for (const live of ['prism.runOn', 'prism.debounceMs', 'prism.reveal', 'prism.sandbox', 'prism.timeoutSeconds', 'prism.severity.weak-assertion', 'prism.trace.server']) {
        assert.equal(reactToConfigChange(changed(live), running), 'live', live);
      }
      assert.equal(reactToConfigChange(changed('editor.tabSize'), running), 'none');
      assert.equal(reactToConfigChange(changed('prism.somethingNew'), running), 'none');
    }
    // prism.serverPackage only matters for a server that could not start.
    assert.equal(reactToConfigChange(changed('prism.serverPackage'), false), 'retry');
    assert.equal(reactToConfigChange(changed('prism.serverPackage'), true), 'none');
    assert.equal(reactToConfigChange(changed('prism.serverPackage', 'prism.reveal'), true), 'live');
  });

  it('README.md shows the same "applies" column', () => {
    const readme = fs.readFileSync(path.join(PACKAGE_ROOT, 'README.md'), 'utf8');
    const lines = readme.split('\n');
    const cellsOf = (line: string): string[] => line.split(/(?<!\\)\|/).map((c) => c.trim());
    const header = lines.findIndex((l) => l.startsWith('| Setting |'));
    assert.ok(header >= 0, 'no settings table');
    const columns = cellsOf(lines[header] ?? '');
    const applies = columns.indexOf('Applies');
    assert.ok(applies > 0, 'no "Applies" column');
    const rows = new Map<string, string>();
    for (const line of lines.slice(header + 2)) {
      if (!line.startsWith('|')) {
        break;
      }
      const cells = cellsOf(line);
      rows.set((cells[1] ?? '').replace(/`/g, ''), cells[applies] ?? '');
    }
    assert.deepEqual([...rows.keys()].sort(), Object.keys(props).sort());
    for (const [key, kind] of Object.entries(SETTING_APPLIES)) {
      assert.equal(rows.get(`prism.${key}`), APPLIES_TEXT[kind], key);
    }
  });
});
