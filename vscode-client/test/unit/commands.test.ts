import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { candidatePicks, parseCandidates, parseShowCandidate, withDocumentUri } from '../../src/commands';

describe('withDocumentUri (prism.runPanel from the palette)', () => {
  it('appends the active editor uri when called without arguments', () => {
    assert.deepEqual(withDocumentUri([], 'file:///w/test_a.py'), ['file:///w/test_a.py']);
    assert.deepEqual(withDocumentUri([undefined], 'file:///w/test_a.py'), ['file:///w/test_a.py']);
  });

  it('keeps explicit arguments', () => {
    assert.deepEqual(withDocumentUri(['file:///w/b.py', 'ref'], 'file:///w/a.py'), ['file:///w/b.py', 'ref']);
  });

  it('turns a Uri object into its string', () => {
    class FakeUri {
      scheme = 'file';
      path = '/w/c.py';
      toString(): string {
        return 'file:///w/c.py';
      }
    }
    assert.deepEqual(withDocumentUri([new FakeUri()], undefined), ['file:///w/c.py']);
  });

  it('sends nothing extra when there is no active editor', () => {
    assert.deepEqual(withDocumentUri([], undefined), []);
  });
});

describe('candidates', () => {
  const raw = [
    { id: 'reference', label: 'valid', reference: true, note: 'rounds half up', uri: 'file:///t/candidates/reference.diff' },
    { id: 'c2', label: null, reference: false, note: null, uri: 'file:///t/candidates/c2' },
    { label: 'valid' },
    'junk',
  ];

  it('parses the prism.listCandidates result and drops malformed entries', () => {
    assert.deepEqual(parseCandidates(raw), [
      { id: 'reference', label: 'valid', reference: true, note: 'rounds half up', uri: 'file:///t/candidates/reference.diff' },
      { id: 'c2', label: null, reference: false, note: null, uri: 'file:///t/candidates/c2' },
    ]);
    assert.deepEqual(parseCandidates(null), []);
  });

  it('shows id, label and note in the quick pick (label may be hidden)', () => {
    const picks = candidatePicks(parseCandidates(raw));
    assert.equal(picks[0]?.label, 'reference');
    assert.equal(picks[0]?.description, 'valid · reference');
    assert.equal(picks[0]?.detail, 'rounds half up');
    assert.equal(picks[1]?.label, 'c2');
    assert.equal(picks[1]?.description, undefined);
    assert.equal(picks[1]?.detail, undefined);
  });

  it('reads the uri of prism.showCandidate', () => {
    assert.equal(parseShowCandidate({ uri: 'file:///x.diff' }), 'file:///x.diff');
    assert.equal(parseShowCandidate({}), undefined);
    assert.equal(parseShowCandidate(null), undefined);
  });
});
