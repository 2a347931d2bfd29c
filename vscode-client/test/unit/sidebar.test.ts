import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { sidebarRows } from '../../src/core/sidebar';
import { StatusParams } from '../../src/core/status';

const idle: StatusParams = {
  uri: 'file:///t/suites/test_weak.py',
  state: 'idle',
  metrics: { detects_baseline: true, rar: true, jsf: true, valid_acceptance: null, invalid_rejection: null, h: null },
  valid: { accepted: 0, total: 0 },
  invalid: { rejected: 0, total: 0 },
  done: null,
  total: null,
  message: null,
  unjudged: ['under-assertion (no invalid candidate)'],
  stale: false,
  summary: 'valid 0/0 besides the reference · invalid 0/0',
};

const next = (rows: ReturnType<typeof sidebarRows>) => rows.find((r) => r.next);

describe('the Prism view', () => {
  it('an empty panel: says what cannot be judged, next Build Panel, no tick', () => {
    const rows = sidebarRows({ trusted: true, serverProblem: undefined, fileName: 'test_weak.py', status: idle });
    assert.ok(rows.some((r) => r.label === 'Panel too small: cannot judge under-assertion (no invalid candidate)'));
    assert.equal(next(rows)?.command, 'prism.buildPanel');
    assert.ok(!rows.some((r) => r.label.includes('✓')));
  });

  it('next action: trust the folder, install the server, run, read the matrix', () => {
    assert.equal(next(sidebarRows({ trusted: false, serverProblem: undefined, fileName: 'x.py', status: idle }))?.command, 'workbench.trust.manage');
    assert.equal(next(sidebarRows({ trusted: true, serverProblem: 'not installed', fileName: 'x.py', status: idle }))?.command, 'prism.restartServer');
    const full = { ...idle, unjudged: [], valid: { accepted: 4, total: 4 }, invalid: { rejected: 5, total: 5 } };
    assert.equal(next(sidebarRows({ trusted: true, serverProblem: undefined, fileName: 'x.py', status: full }))?.command, 'prism.showKillMatrix');
  });

  it('old counts say so; an ImportError is an error, not a verdict', () => {
    const stale = sidebarRows({ trusted: true, serverProblem: undefined, fileName: 'x.py', status: { ...idle, unjudged: [], stale: true } });
    assert.ok(stale.some((r) => r.label.startsWith('Last run (older version): ')), JSON.stringify(stale));
    const error = sidebarRows({ trusted: true, serverProblem: undefined, fileName: 'x.py', status: { ...idle, state: 'error', message: 'ImportError' } });
    assert.ok(error.some((r) => r.label.startsWith('Error:')));
    assert.ok(!error.some((r) => r.label.includes('JSF')));
  });
});
