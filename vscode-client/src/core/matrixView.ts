/**
 * The kill matrix as HTML (no `vscode` here): tests x programs, cells coloured by outcome,
 * the programs with a wrong verdict marked. Every text comes from the server, and what a
 * candidate printed is untrusted: it is escaped, never read as markup. The page runs one
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

const MARK: Record<string, string> = { pass: '✓', fail: '✗', error: '⚠' };

export function matrixHtml(matrix: KillMatrix, title: string, nonce: string): string {
  const head = matrix.programs
    .map((p) => {
      const wrong = p.correct ? '' : ' wrong';
      const role = p.reference ? 'reference' : p.label;
      const click = p.id === 'initial' ? '' : ` data-candidate="${escapeHtml(p.id)}"`;
      return `<th class="program${wrong}"${click} title="${escapeHtml(`${p.id} (${role})${p.correct ? '' : ': wrong verdict'}`)}">${escapeHtml(p.id)}<br><small>${escapeHtml(role)}</small></th>`;
    })
    .join('');
  const rows = matrix.tests
    .map((t, i) => {
      const cells = (matrix.cells[i] ?? [])
        .map((c, j) => {
          const program = matrix.programs[j]?.id ?? '';
          const outcome = escapeHtml(c.outcome);
          return `<td class="cell ${outcome.replace(/\s+/g, '-')}" data-line="${c.line}" title="${escapeHtml(`${t.name} on ${program}: ${c.outcome}`)}">${MARK[c.outcome] ?? '·'}</td>`;
        })
        .join('');
      return `<tr><th class="test" data-line="${t.line}">${escapeHtml(t.name)}</th>${cells}</tr>`;
    })
    .join('\n');
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'nonce-${nonce}'; script-src 'nonce-${nonce}';">
<title>${escapeHtml(title)}</title>
<style nonce="${nonce}">
table { border-collapse: collapse; font-family: var(--vscode-editor-font-family); }
th, td { border: 1px solid var(--vscode-panel-border, #8884); padding: 2px 6px; text-align: center; }
th.test { text-align: left; cursor: pointer; }
th.program[data-candidate], td.cell { cursor: pointer; }
th.wrong { outline: 2px solid var(--vscode-errorForeground, #e51400); }
td.pass { background: #2ea04366; } td.fail { background: #f8514966; } td.error { background: #d2992266; }
</style></head>
<body><h3>${escapeHtml(title)}</h3>
<p>Rows: tests. Columns: the initial program and each candidate (outlined: a wrong verdict). Click a cell or a test to open its line, a candidate to open its diff.</p>
<table><tr><th></th>${head}</tr>
${rows}
</table>
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
