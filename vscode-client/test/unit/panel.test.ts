import assert from 'node:assert/strict';
import * as path from 'path';
import { describe, it } from 'node:test';

import { panelCommandLine, panelOutcome, taskRootOf } from '../../src/panel';

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
});
