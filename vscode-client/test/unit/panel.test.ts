import assert from 'node:assert/strict';
import * as path from 'path';
import { describe, it } from 'node:test';

import { cannotSee, panelCommandLine, panelOutcome, taskRootOf } from '../../src/core/panel';

describe('Build Panel / Check Panel', () => {
  it('finds the nearest task folder above the open file', () => {
    const root = path.resolve('/work/tasks/top-tags');
    const has = (d: string) => d === root;
    assert.equal(taskRootOf(path.join(root, 'suites', 'test_x.py'), has), root);
    assert.equal(taskRootOf(path.join(root, 'prism.toml'), has), root);
    assert.equal(taskRootOf('/elsewhere/a.py', has), undefined);
  });

  it('runs `prism panel <action> TASK` with the server\'s interpreter', () => {
    const line = panelCommandLine('/venv/bin/python', 'build', '/t');
    assert.equal(line.command, '/venv/bin/python');
    assert.deepEqual(line.args.slice(2), ['panel', 'build', '/t']);
    assert.match(line.args[1] ?? '', /prism_main\(sys\.argv\[1:\]\)/);
  });

  it('says what the exit status means', () => {
    assert.equal(panelOutcome('check', 0, '').level, 'info');
    assert.match(panelOutcome('check', 1, '').message, /not fit/);
    assert.equal(panelOutcome('build', 1, '').level, 'warning');
    const failed = panelOutcome('build', 2, 'error: the verifier verifier/test_judge.py passes on the initial program');
    assert.equal(failed.level, 'error');
    assert.match(failed.message, /verifier\/test_judge\.py/);
  });

  it('does not call a panel fit when its own table says what it cannot see', () => {
    // Two rows of `COLUMNS=200 prism panel check fixtures/top-tags` (exit 0, "panel OK").
    const output = [
      '│ (panel)               │       │       │ yes    │ note: only the reference is valid; over-specification cannot be seen │',
      '│ (panel)               │       │       │ yes    │ note: no invalid candidates; under-assertion cannot be seen          │',
      'panel OK',
    ].join('\n');
    assert.deepEqual(cannotSee(output), [
      'only the reference is valid; over-specification cannot be seen',
      'no invalid candidates; under-assertion cannot be seen',
    ]);
    const outcome = panelOutcome('check', 0, 'panel OK', output);
    assert.equal(outcome.level, 'warning');
    assert.doesNotMatch(outcome.message, /fit to judge/);
    assert.match(outcome.message, /under-assertion cannot be seen.*Build Panel/);
  });
});
