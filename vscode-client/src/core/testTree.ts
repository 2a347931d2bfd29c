/**
 * The shape of the Test Explorer under one suite, as Python's Test Explorer and Stryker show
 * theirs: the initial program and the reference first, then the valid and the invalid
 * candidates each in a group, and under every program the suite's tests with their outcome
 * there. Whether an item passes is whether its verdict is right: a test failing on the initial
 * program or an invalid candidate kills it (passed); failing on a valid one rejects it (failed).
 * Pure: no `vscode`.
 */
import { ProgramItem, ProgramTest } from './commands';

export type NodeState = 'passed' | 'failed' | 'skipped' | 'errored';

export interface TreeNode {
  id: string;
  label: string;
  /** Where it sorts among its siblings (VS Code sorts by label without it). */
  sortText: string;
  line: number | null;
  program?: ProgramItem;
  test?: ProgramTest;
  children: TreeNode[];
}

// Letters, not digits: VS Code compares sortText with numeric collation (`1000004` would sort after `2`).
const ORDER: Record<string, string> = { initial: 'a', reference: 'b', valid: 'c', invalid: 'd' };

/** initial, reference, valid or invalid; from the label when an older server sends no kind. */
export function kindOf(p: ProgramItem): string {
  if (p.kind) {
    return p.kind;
  }
  if (p.id === 'initial') {
    return 'initial';
  }
  return /\(reference\)$/.test(p.label) ? 'reference' : /\(invalid\)$/.test(p.label) ? 'invalid' : 'valid';
}

/** Whether the suite should fail on the program (the initial one and invalid candidates). */
export function shouldFail(kind: string): boolean {
  return kind === 'initial' || kind === 'invalid';
}

function testNodes(suiteUri: string, p: ProgramItem): TreeNode[] {
  return (p.tests ?? []).map((t, i) => ({
    id: `${suiteUri}#${p.id}::${t.name}`,
    label: t.name,
    sortText: String(i).padStart(5, '0'),
    line: t.line,
    program: p,
    test: t,
    children: [],
  }));
}

/** The suite's children. Program ids stay `<suite>#<program>`; groups `<suite>#group:<kind>`. */
export function programTree(suiteUri: string, items: ProgramItem[]): TreeNode[] {
  const top: TreeNode[] = [];
  const groups = new Map<string, TreeNode>();
  items.forEach((p, i) => {
    const kind = kindOf(p);
    const node: TreeNode = {
      id: `${suiteUri}#${p.id}`,
      label: p.label,
      sortText: `${ORDER[kind] ?? 'e'}-${String(i).padStart(5, '0')}`,
      line: p.line,
      program: p,
      children: testNodes(suiteUri, p),
    };
    const grouped = (kind === 'valid' || kind === 'invalid') && p.id !== kind; // at `counts` the item is the group
    if (!grouped) {
      top.push(node);
      return;
    }
    let group = groups.get(kind);
    if (!group) {
      group = { id: `${suiteUri}#group:${kind}`, label: `${kind} candidates`, sortText: ORDER[kind] ?? 'e', line: null, children: [] };
      groups.set(kind, group);
      top.push(group);
    }
    group.children.push(node);
  });
  return top.sort((a, b) => a.sortText.localeCompare(b.sortText, undefined, { numeric: true }));
}

/** A test's state under one program, and what its peek says. */
export function testVerdict(program: ProgramItem, test: ProgramTest): { state: NodeState; message: string } {
  const kind = kindOf(program);
  if (test.outcome !== 'pass' && test.outcome !== 'fail') {
    return { state: 'errored', message: `could not run on ${program.label}${test.message ? `: ${test.message}` : ''}` };
  }
  if (!shouldFail(kind)) {
    return test.outcome === 'pass'
      ? { state: 'passed', message: '' }
      : { state: 'failed', message: `rejects ${program.label}, though valid${test.message ? `: ${test.message}` : ''}` };
  }
  if (test.outcome === 'fail') {
    return { state: 'passed', message: '' }; // it kills the program
  }
  return program.passed
    ? { state: 'skipped', message: `passes on ${program.label}; another test kills it` }
    : { state: 'failed', message: `passes on ${program.label}, which is ${kind === 'initial' ? 'the buggy initial program' : 'invalid'}: no test kills it` };
}

/** The finding kind a wrong verdict of this program (or of one of its tests) is. */
export function findingKind(program: ProgramItem, test?: ProgramTest): string {
  const outcome = test ? test.outcome : undefined;
  if (outcome === 'error' || /^could not /.test(program.message)) {
    return 'execution-error';
  }
  const kind = kindOf(program);
  return kind === 'initial' ? 'misses-baseline' : shouldFail(kind) ? 'accepts-invalid' : 'rejects-valid';
}

/**
 * Whether a failed item's message is drawn inline in the suite: the setting is on, the results
 * are the file's current ones, and the finding's severity is one a user sees as a problem.
 */
export function showInline(enabled: boolean, stale: boolean, severity: string): boolean {
  return enabled && !stale && (severity === 'error' || severity === 'warning');
}

/** What running one item does: the whole panel (a suite, a group), or one program, or one test on it. */
export type RunTarget = { kind: 'panel' } | { kind: 'program'; program: string; test: string | null };

/** The run a Test Explorer item stands for (`prism/runProgram` for a program or a test). */
export function runTarget(node: TreeNode | undefined): RunTarget {
  const p = node?.program;
  if (!node || !p) {
    return { kind: 'panel' };
  }
  const kind = kindOf(p);
  if ((kind === 'valid' || kind === 'invalid') && p.id === kind) {
    return { kind: 'panel' }; // at `counts` the item is the group: no candidate runs alone there
  }
  // A parametrized case (`test_x[1]`) runs as its test: the server selects suite functions.
  return { kind: 'program', program: p.id, test: node.test ? node.test.name.replace(/\[.*$/, '') : null };
}

/** The node `id` in `nodes` or below (undefined when absent). */
export function findNode(nodes: TreeNode[], id: string): TreeNode | undefined {
  for (const node of nodes) {
    if (node.id === id) {
      return node;
    }
    const found = findNode(node.children, id);
    if (found) {
      return found;
    }
  }
  return undefined;
}

/** A failed item's peek: its text, the values compared (or the witness's), and whose diff it links to. */
export interface Peek {
  text: string;
  /** `Witness: f(x): every valid candidate gives 3; c gives 2` when the item has one. */
  witness: string | null;
  expected: string | null;
  actual: string | null;
  /** The candidate whose diff may be opened (reveal `full`: tests are listed), or null. */
  diffOf: string | null;
}

export function peekOf(p: ProgramItem, text: string, test?: ProgramTest): Peek {
  const w = p.witness ?? null;
  const values = test ?? p;
  const compared = values.expected !== null && values.actual !== null;
  return {
    text,
    witness: w ? `Witness: ${w.call}: every valid candidate gives ${w.expected}; ${p.label} gives ${w.got}` : null,
    expected: compared ? values.expected : (w?.expected ?? null),
    actual: compared ? values.actual : (w?.got ?? null),
    diffOf: p.id !== 'initial' && (p.tests?.length ?? 0) > 0 ? p.id : null,
  };
}
