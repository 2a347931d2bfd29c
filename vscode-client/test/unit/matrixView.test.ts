import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { KillMatrix, cellVerdict, escapeHtml, matrixHtml, matrixTitle, parseClick, parseMatrix } from '../../src/core/matrixView';

const MATRIX: KillMatrix = {
  tests: [{ name: 'test_halfway', line: 8 }],
  programs: [
    { id: 'initial', label: 'baseline', reference: false, correct: true },
    { id: 'half-even', label: 'valid', reference: false, correct: false },
    { id: '<img src=x onerror=alert(1)>', label: 'invalid', reference: false, correct: true },
  ],
  cells: [
    [
      { outcome: 'fail', line: 9 },
      { outcome: 'fail', line: 9 },
      { outcome: 'pass', line: 8 },
    ],
  ],
};

describe('kill matrix view', () => {
  it('colours cells by whether the verdict is right, not by pass/fail; links cells to lines and candidates to diffs', () => {
    const html = matrixHtml(MATRIX, matrixTitle('test_x.py'), 'NONCE');
    // A failing test is right on the initial program, wrong on a valid candidate: same ✗, other colours.
    assert.match(html, /<td class="cell right" data-outcome="fail" data-line="9"[^>]*>✗</);
    assert.match(html, /<td class="cell wrong" data-outcome="fail" data-line="9"[^>]*>✗</);
    assert.match(html, /<th class="program wrong" data-candidate="half-even"/);
    assert.match(html, /<th class="program right" title="initial \(initial\): should fail; right verdict">/, 'the initial program is no candidate link');
    assert.match(html, /<title>Kill Matrix · test_x\.py<\/title>/);
    assert.match(html, /script-src 'nonce-NONCE'/);
  });

  it('a pass is right on a valid program, wrong on an invalid one no test kills, neutral where another test kills it', () => {
    const valid = { id: 'v', label: 'valid', reference: false, correct: true };
    const survivor = { id: 'm', label: 'invalid', reference: false, correct: false };
    const killed = { id: 'k', label: 'invalid', reference: false, correct: true };
    const reference = { id: 'r', label: 'valid', reference: true, correct: false };
    assert.equal(cellVerdict('pass', valid), 'right');
    assert.equal(cellVerdict('fail', valid), 'wrong');
    assert.equal(cellVerdict('fail', reference), 'wrong');
    assert.equal(cellVerdict('pass', survivor), 'wrong');
    assert.equal(cellVerdict('pass', killed), 'neutral');
    assert.equal(cellVerdict('fail', killed), 'right');
    assert.equal(cellVerdict('error', valid), 'error');
    assert.equal(cellVerdict('pass', { id: 'initial', label: 'baseline', reference: false, correct: false }), 'wrong');
  });

  it('never reads a name as markup', () => {
    const html = matrixHtml(MATRIX, 'x', 'N');
    assert.ok(!html.includes('<img'), 'escaped');
    assert.ok(html.includes(escapeHtml('<img src=x onerror=alert(1)>')));
  });

  it('accepts only well-formed answers and clicks', () => {
    assert.equal(parseMatrix({ matrix: null }), undefined);
    assert.equal(parseMatrix({ matrix: { tests: [], programs: [], cells: [[]] } }), undefined);
    assert.deepEqual(parseMatrix({ matrix: MATRIX }), MATRIX);
    assert.deepEqual(parseClick({ kind: 'line', line: 9 }), { kind: 'line', line: 9 });
    assert.deepEqual(parseClick({ kind: 'candidate', id: 'half-even' }), { kind: 'candidate', id: 'half-even' });
    assert.equal(parseClick({ kind: 'line', line: 0 }), undefined);
    assert.equal(parseClick({ kind: 'run', id: 'x' }), undefined);
  });
});
