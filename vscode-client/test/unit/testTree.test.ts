import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ProgramItem } from '../../src/core/commands';
import { findNode, findingKind, peekOf, programTree, runTarget, showInline, testVerdict } from '../../src/core/testTree';

const program = (id: string, kind: string, passed = true, tests: ProgramItem['tests'] = []): ProgramItem => ({
  id,
  label: id === 'initial' ? 'initial program' : `${id} (${kind})`,
  passed,
  line: null,
  message: '',
  expected: null,
  actual: null,
  kind,
  durationMs: 2500,
  tests,
});
const test = (name: string, outcome: string) => ({ name, outcome, line: 9, message: '', expected: null, actual: null });

describe('Test Explorer tree', () => {
  it('puts the initial program and the reference first, then valid and invalid groups, tests under each program', () => {
    // In the server's order, with names that sort before "initial" alphabetically.
    const items = [
      program('a-mutant', 'invalid'),
      program('half-even', 'valid', false, [test('test_halfway', 'fail'), test('test_whole', 'pass')]),
      program('initial', 'initial'),
      program('b-valid', 'valid'),
      program('reference', 'reference'),
    ];
    const tree = programTree('file:///s.py', items);
    assert.deepEqual(
      tree.map((n) => n.label),
      ['initial program', 'reference (reference)', 'valid candidates', 'invalid candidates'],
    );
    assert.deepEqual(tree[2]?.children.map((n) => n.id), ['file:///s.py#half-even', 'file:///s.py#b-valid']);
    assert.deepEqual(tree[2]?.children[0]?.children.map((n) => n.label), ['test_halfway', 'test_whole']);
    assert.deepEqual(tree[3]?.children.map((n) => n.label), ['a-mutant (invalid)']);
    // As VS Code sorts them: by sortText with numeric collation.
    const sorted = [...tree].reverse().sort((a, b) => a.sortText.localeCompare(b.sortText, undefined, { numeric: true }));
    assert.deepEqual(sorted.map((n) => n.label), tree.map((n) => n.label));
  });

  it('at reveal counts the two count items are the groups themselves', () => {
    const tree = programTree('u', [program('initial', 'initial'), program('valid', 'valid'), program('invalid', 'invalid')]);
    assert.deepEqual(tree.map((n) => n.id), ['u#initial', 'u#valid', 'u#invalid']);
  });

  it("a test passes where its verdict is right: failing kills an invalid program, rejects a valid one", () => {
    assert.equal(testVerdict(program('m', 'invalid', true), test('t', 'fail')).state, 'passed');
    assert.equal(testVerdict(program('m', 'invalid', true), test('t', 'pass')).state, 'skipped');
    assert.equal(testVerdict(program('m', 'invalid', false), test('t', 'pass')).state, 'failed');
    assert.equal(testVerdict(program('initial', 'initial', false), test('t', 'pass')).state, 'failed');
    assert.equal(testVerdict(program('v', 'valid', false), test('t', 'fail')).state, 'failed');
    assert.equal(testVerdict(program('v', 'valid'), test('t', 'pass')).state, 'passed');
    assert.equal(testVerdict(program('v', 'valid'), test('t', 'error')).state, 'errored');
  });

  it("inline messages follow the finding's severity and state, and can be turned off", () => {
    assert.equal(findingKind(program('v', 'valid', false)), 'rejects-valid');
    assert.equal(findingKind(program('m', 'invalid', false)), 'accepts-invalid');
    assert.equal(findingKind(program('initial', 'initial', false)), 'misses-baseline');
    assert.equal(findingKind(program('v', 'valid', false), test('t', 'error')), 'execution-error');
    assert.equal(showInline(true, false, 'warning'), true);
    assert.equal(showInline(true, false, 'information'), false, 'accepts-invalid is information by default: no red badge');
    assert.equal(showInline(true, true, 'error'), false, 'not on results of an older version (a syntax error now)');
    assert.equal(showInline(false, false, 'error'), false, 'prism.testResults.inline = false');
  });
});

describe('Test Explorer runs and peeks', () => {
  const items = [
    program('initial', 'initial'),
    program('half-even', 'valid', false, [test('test_halfway[1]', 'fail')]),
    program('valid', 'valid'), // at `counts`: the group is the item
  ];
  const tree = programTree('file:///s.py', items);

  it('runs a program item, a test item (its function), and the panel for a suite or a group', () => {
    assert.deepEqual(runTarget(findNode(tree, 'file:///s.py#half-even')), { kind: 'program', program: 'half-even', test: null });
    assert.deepEqual(runTarget(findNode(tree, 'file:///s.py#half-even::test_halfway[1]')), {
      kind: 'program',
      program: 'half-even',
      test: 'test_halfway',
    });
    assert.deepEqual(runTarget(findNode(tree, 'file:///s.py#initial')), { kind: 'program', program: 'initial', test: null });
    assert.deepEqual(runTarget(findNode(tree, 'file:///s.py#group:valid')), { kind: 'panel' });
    assert.deepEqual(runTarget(findNode(tree, 'file:///s.py#valid')), { kind: 'panel' });
    assert.deepEqual(runTarget(undefined), { kind: 'panel' });
  });

  it("shows an accepted invalid candidate's witness as expected and actual, with its diff", () => {
    const accepted = { ...program('trunc', 'invalid', false, [test('test_whole', 'pass')]), witness: { call: 'f([-7])', expected: '-7', got: '-6' } };
    const peek = peekOf(accepted, 'accepted, though invalid');
    assert.equal(peek.witness, 'Witness: f([-7]): every valid candidate gives -7; trunc (invalid) gives -6');
    assert.deepEqual([peek.expected, peek.actual, peek.diffOf], ['-7', '-6', 'trunc']);
  });

  it("keeps an assertion's own values, and links no diff where tests are not listed (below full) or for the initial program", () => {
    const rejected = { ...program('half-even', 'valid', false, [test('t', 'fail')]), expected: '3', actual: '2' };
    assert.deepEqual([peekOf(rejected, 'x').expected, peekOf(rejected, 'x').actual, peekOf(rejected, 'x').witness], ['3', '2', null]);
    assert.equal(peekOf(program('valid-2', 'valid', false), 'x').diffOf, null);
    assert.equal(peekOf(program('initial', 'initial', false, [test('t', 'pass')]), 'x').diffOf, null);
  });
});
