import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import {
  candidateOfUri,
  candidateViewTitle,
  CLIENT_COMMANDS,
  SERVER_COMMANDS,
  SERVER_DOWN_ACTIONS,
  candidatePicks,
  parseCandidateView,
  parseCandidates,
  parsePrograms,
  parseShowCandidate,
  planRunPanel,
  serverDownMessage,
  withDocumentUri,
} from '../../src/core/commands';

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

describe('candidate views', () => {
  const file = (path: string) => ({ path, line: 3, initial: `prism-candidate:/initial/${path}`, candidate: `prism-candidate:/c/${path}` });

  it('titles one view per candidate with its id and label first, then its file or how many', () => {
    assert.equal(candidateViewTitle({ id: 'half-even', title: 'half-even (valid)', files: [file('solution.py')] }), 'half-even (valid): solution.py');
    assert.equal(candidateViewTitle({ id: 'm1', title: 'm1 (invalid)', files: [file('a.py'), file('b.py')] }), 'm1 (invalid): 2 files');
  });

  it("reads the program and suite of a prism-candidate document (VS Code's decoded path and query)", () => {
    assert.deepEqual(candidateOfUri('/half-even/pkg/solution.py', 'doc=file:///t/suites/test_x.py'), {
      program: 'half-even',
      document: 'file:///t/suites/test_x.py',
    });
    assert.equal(candidateOfUri('/half-even/solution.py', ''), undefined);
    assert.equal(candidateOfUri('/', 'doc=file:///x'), undefined);
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

describe('Prism: Run Panel (prism.run, always registered)', () => {
  it('has its own id: the server\'s prism.runPanel is registered by the language client', () => {
    assert.equal(CLIENT_COMMANDS.runPanel, 'prism.run');
    assert.equal(SERVER_COMMANDS.runPanel, 'prism.runPanel');
  });

  it('with the server down: says so (and why) and offers a restart', () => {
    const plan = planRunPanel(false, 'Prism: the server (prism_lsp) is not installed for python3.', [], 'file:///w/test_a.py');
    assert.deepEqual(plan, {
      kind: 'server-down',
      message: 'Prism: the server is not running. The server (prism_lsp) is not installed for python3.',
      actions: [SERVER_DOWN_ACTIONS.restart, SERVER_DOWN_ACTIONS.output],
    });
    assert.equal(SERVER_DOWN_ACTIONS.restart, 'Restart Server');
    assert.equal(planRunPanel(false, undefined, [], undefined).kind, 'server-down');
    assert.equal(serverDownMessage(undefined), 'Prism: the server is not running.');
  });

  it('with the server up: forwards to prism.runPanel with the active document', () => {
    assert.deepEqual(planRunPanel(true, undefined, [], 'file:///w/test_a.py'), {
      kind: 'forward',
      command: 'prism.runPanel',
      arguments: ['file:///w/test_a.py'],
    });
    assert.deepEqual(planRunPanel(true, undefined, ['file:///w/b.py'], 'file:///w/a.py'), {
      kind: 'forward',
      command: 'prism.runPanel',
      arguments: ['file:///w/b.py'],
    });
  });

  it('with no document: asks for one instead of sending a request the server rejects', () => {
    assert.equal(planRunPanel(true, undefined, [], undefined).kind, 'no-document');
  });
});

describe('parseCandidateView', () => {
  it('keeps well-formed files and drops the rest', () => {
    const view = parseCandidateView({
      id: 'half-even',
      title: 'half-even (valid)',
      files: [
        { path: 'solution.py', line: 3, initial: 'prism-candidate:/initial/solution.py?doc=x', candidate: 'prism-candidate:/half-even/solution.py?doc=x' },
        { path: 'other.py', line: -1, initial: 'prism-candidate:/initial/other.py?doc=x', candidate: 'prism-candidate:/half-even/other.py?doc=x' },
        { path: 7 },
        null,
      ],
    });
    assert.deepEqual(view?.files.map((f) => [f.path, f.line]), [
      ['solution.py', 3],
      ['other.py', 0],
    ]);
  });

  it('refuses anything that is not a candidate view', () => {
    assert.equal(parseCandidateView(null), undefined);
    assert.equal(parseCandidateView({ id: 'x', files: [] }), undefined);
  });
});

describe('parsePrograms (prism/programs)', () => {
  it('keeps well-formed items, lines from 1', () => {
    const items = parsePrograms({
      items: [
        { id: 'initial', label: 'initial program', passed: true, line: null, message: '', expected: null, actual: null },
        { id: 'half-even', label: 'half-even (valid)', passed: false, line: 9, message: 'rejected', expected: '3', actual: '2' },
        { id: 'x', label: 'x', passed: false, line: 0, message: 7 },
        { id: 'broken' },
      ],
    });
    assert.deepEqual(
      items.map((i) => [i.id, i.passed, i.line, i.message, i.expected, i.actual]),
      [
        ['initial', true, null, '', null, null],
        ['half-even', false, 9, 'rejected', '3', '2'],
        ['x', false, null, '', null, null],
      ],
    );
  });

  it('is empty for anything else', () => {
    assert.deepEqual(parsePrograms(null), []);
    assert.deepEqual(parsePrograms({ items: 'no' }), []);
  });
});
