/**
 * The kill matrix as HTML (no `vscode` here): tests x programs, each cell marked with its
 * outcome and coloured by whether that is the right verdict (a failing test is right on the
 * initial program and on an invalid candidate, wrong on a valid one). Every text comes from
 * the server, and what a candidate printed is untrusted: it is escaped, never read as markup. The page runs one
 * script (allowed by its nonce) that posts the clicked cell back to the extension.
 */

export interface MatrixCell {
  outcome: string;
  line: number;
}

export interface KillMatrix {
  tests: { name: string; line: number }[];
  programs: { id: string; label: string; reference: boolean; correct: boolean }[];
  cells: MatrixCell[][];
}

/** What a click on a cell asks for: the assertion in the suite, or the candidate's diff. */
export type MatrixClick = { kind: 'line'; line: number } | { kind: 'candidate'; id: string };

/** Validates the `prism/matrix` answer's `matrix`. */
export function parseMatrix(raw: unknown): KillMatrix | undefined {
  const m = typeof raw === 'object' && raw !== null ? (raw as { matrix?: unknown }).matrix : undefined;
  if (typeof m !== 'object' || m === null) {
    return undefined;
  }
  const { tests, programs, cells } = m as Record<string, unknown>;
  if (!Array.isArray(tests) || !Array.isArray(programs) || !Array.isArray(cells) || cells.length !== tests.length) {
    return undefined;
  }
  return m as KillMatrix;
}

export function parseClick(raw: unknown): MatrixClick | undefined {
  if (typeof raw !== 'object' || raw === null) {
    return undefined;
  }
  const r = raw as Record<string, unknown>;
  if (r.kind === 'line' && typeof r.line === 'number' && r.line >= 1) {
    return { kind: 'line', line: r.line };
  }
  if (r.kind === 'candidate' && typeof r.id === 'string' && r.id !== '') {
    return { kind: 'candidate', id: r.id };
  }
  return undefined;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** What a program should do under the suite: the initial program and invalid candidates fail, valid ones pass. */
export function shouldFail(program: KillMatrix['programs'][number]): boolean {
  return program.id === 'initial' || (!program.reference && program.label === 'invalid');
}

/**
 * How one cell reads, coloured by whether it is the right verdict (not by pass/fail):
 * `right` a valid program passing or a program that should fail killed by this test;
 * `wrong` a valid program rejected, or a test that lets through a program no test kills;
 * `neutral` a test that passes a program another test kills; `error` the test could not run.
 */
export type CellVerdict = 'right' | 'wrong' | 'neutral' | 'error';

export function cellVerdict(outcome: string, program: KillMatrix['programs'][number]): CellVerdict {
  if (outcome !== 'pass' && outcome !== 'fail') {
    return 'error';
  }
  if (!shouldFail(program)) {
    return outcome === 'pass' ? 'right' : 'wrong';
  }
  if (outcome === 'fail') {
    return 'right';
  }
  return program.correct ? 'neutral' : 'wrong';
}

const MARK: Record<string, string> = { pass: '✓', fail: '✗', error: '⚠' };
const SAYS: Record<CellVerdict, string> = {
  right: 'right',
  wrong: 'wrong verdict',
  neutral: 'another test kills it',
  error: 'could not run',
};

/** The editor tab's title: what it is, then the suite (never just the file's name, which reads as the file). */
export function matrixTitle(suiteName: string): string {
  return `Kill Matrix · ${suiteName}`;
}

export function matrixHtml(matrix: KillMatrix, title: string, nonce: string): string {
  const head = matrix.programs
    .map((p) => {
      const verdict = p.correct ? 'right' : 'wrong';
      const role = p.id === 'initial' ? 'initial' : p.reference ? 'reference' : p.label;
      const expect = shouldFail(p) ? 'should fail' : 'should pass';
      const click = p.id === 'initial' ? '' : ` data-candidate="${escapeHtml(p.id)}"`;
      const tip = `${p.id} (${role}): ${expect}; ${p.correct ? 'right verdict' : 'wrong verdict'}`;
      return `<th class="program ${verdict}"${click} title="${escapeHtml(tip)}"><span>${escapeHtml(p.id)}</span></th>`;
    })
    .join('');
  const rows = matrix.tests
    .map((t, i) => {
      const cells = (matrix.cells[i] ?? [])
        .map((c, j) => {
          const program = matrix.programs[j];
          const verdict = program ? cellVerdict(c.outcome, program) : 'error';
          const tip = `${t.name} on ${program?.id ?? ''}: ${c.outcome} (${SAYS[verdict]})`;
          return `<td class="cell ${verdict}" data-outcome="${escapeHtml(c.outcome)}" data-line="${c.line}" title="${escapeHtml(tip)}">${MARK[c.outcome] ?? '·'}</td>`;
        })
        .join('');
      return `<tr><th class="test" data-line="${t.line}" title="${escapeHtml(t.name)}">${escapeHtml(t.name)}</th>${cells}</tr>`;
    })
    .join('\n');
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}';">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">
body { font-size: 12px; padding: 4px 8px; }
h3 { margin: 4px 0; font-size: 13px; }
p { margin: 4px 0 8px; max-width: 60ch; }
.wrap { overflow: auto; max-width: 100%; }
table { border-collapse: collapse; font-family: var(--vscode-editor-font-family); font-size: 11px; }
th, td { border: 1px solid var(--vscode-panel-border, #8884); padding: 1px 3px; text-align: center; }
th.test { text-align: left; cursor: pointer; max-width: 22ch; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; position: sticky; left: 0; background: var(--vscode-editor-background); }
th.program { vertical-align: bottom; height: 9em; }
th.program span { writing-mode: vertical-rl; transform: rotate(180deg); white-space: nowrap; max-height: 9em; overflow: hidden; text-overflow: ellipsis; }
th.program[data-candidate], td.cell { cursor: pointer; }
th.program.wrong { background: #f8514999; }
th.program.right { background: #2ea04344; }
td.right, .legend .right { background: #2ea04366; } td.wrong, .legend .wrong { background: #f85149cc; font-weight: bold; }
td.neutral, .legend .neutral { background: transparent; color: var(--vscode-descriptionForeground, #888); } td.error, .legend .error { background: #d2992266; }
.legend span { padding: 0 4px; margin-right: 6px; border: 1px solid #8884; }
</style></head>
<body><h3>${escapeHtml(title)}</h3>
<p>Rows: tests; columns: the initial program and each candidate. A cell's mark is the test's outcome (✓ pass, ✗ fail); its colour says whether that is the right verdict: the initial program and invalid candidates should fail, valid ones pass.</p>
<p class="legend"><span class="right">right</span><span class="wrong">wrong</span><span class="neutral">passes, killed by another test</span><span class="error">could not run</span></p>
<p>Click a cell or a test to open its line, a candidate to open its diff.</p>
<div class="wrap"><table><tr><th></th>${head}</tr>
${rows}
</table></div>
<script nonce="${nonce}">
const vscode = acquireVsCodeApi();
document.addEventListener('click', (e) => {
  const el = e.target.closest('[data-line],[data-candidate]');
  if (!el) { return; }
  if (el.dataset.candidate) { vscode.postMessage({ kind: 'candidate', id: el.dataset.candidate }); }
  else { vscode.postMessage({ kind: 'line', line: Number(el.dataset.line) }); }
});
</script></body></html>`;
}
