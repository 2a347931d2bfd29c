import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { KillMatrix, escapeHtml, matrixHtml, parseClick, parseMatrix } from '../../src/core/matrixView';

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
  it('colours cells by outcome, outlines wrong verdicts, links cells to lines and candidates to diffs', () => {
    const html = matrixHtml(MATRIX, 'Kill matrix: test_x.py', 'NONCE');
    assert.match(html, /<td class="cell fail" data-line="9"/);
    assert.match(html, /<td class="cell pass" data-line="8"/);
    assert.match(html, /<th class="program wrong" data-candidate="half-even"/);
    assert.match(html, /<th class="program" title="initial \(baseline\)">/, 'the initial program is no candidate link');
    assert.match(html, /script-src 'nonce-NONCE'/);
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
