/**
 * Command plumbing that does not need `vscode`: argument fixing for the
 * server-side `prism.runPanel`, what `Prism: Run Panel` does, and the candidate
 * list of `prism.listCandidates`.
 */

/**
 * Implemented by the server (`workspace/executeCommand`); registered in VS Code
 * by the language client while the server runs (so they vanish with it). The
 * extension never registers these ids itself: VS Code refuses a second
 * registration, and the client's start would fail on it.
 */
export const SERVER_COMMANDS = {
  runPanel: 'prism.runPanel',
  listCandidates: 'prism.listCandidates',
  showCandidate: 'prism.showCandidate',
} as const;

/** Implemented by this extension; registered at activation, so always present. */
export const CLIENT_COMMANDS = {
  /** `Prism: Run Panel` in the palette and the status bar: forwards to the server's `prism.runPanel`. */
  runPanel: 'prism.run',
  pickCandidate: 'prism.pickCandidate',
  restartServer: 'prism.restartServer',
  showOutput: 'prism.showOutput',
  /** `prism panel build|check` on the open file's task (`panelCommands.ts`). */
  buildPanel: 'prism.buildPanel',
  checkPanel: 'prism.checkPanel',
  showKillMatrix: 'prism.showKillMatrix',
} as const;

/**
 * Arguments for a server command that takes `[documentUri, ...]`: when the
 * palette calls it with none, the active editor's uri is used; a VS Code `Uri`
 * object (e.g. from an explorer menu) becomes its string form, since the
 * arguments go over JSON as they are.
 */
export function withDocumentUri(args: readonly unknown[], activeUri: string | undefined): unknown[] {
  if (args.length === 0 || args[0] === undefined || args[0] === null) {
    return activeUri === undefined ? [...args.slice(1)] : [activeUri, ...args.slice(1)];
  }
  const [first, ...rest] = args;
  return [uriToString(first), ...rest];
}

/** A VS Code `Uri` (anything with scheme, path and its own `toString`) → its string form. */
function uriToString(value: unknown): unknown {
  if (
    typeof value === 'object' &&
    value !== null &&
    'scheme' in value &&
    'path' in value &&
    typeof value.toString === 'function' &&
    value.toString !== Object.prototype.toString
  ) {
    return (value as { toString(): string }).toString();
  }
  return value;
}

export const SERVER_DOWN_ACTIONS = { restart: 'Restart Server', output: 'Show Output' } as const;

/** The notice when a command needs the server and it is not running (`problem`: why, when known). */
export function serverDownMessage(problem: string | undefined): string {
  const why = (problem ?? '').replace(/^Prism: /, '').trim();
  return why === '' ? 'Prism: the server is not running.' : `Prism: the server is not running. ${why.charAt(0).toUpperCase()}${why.slice(1)}`;
}

export type RunPanelPlan =
  | { kind: 'server-down'; message: string; actions: string[] }
  | { kind: 'no-document'; message: string }
  | { kind: 'forward'; command: string; arguments: unknown[] };

/**
 * What `Prism: Run Panel` (`prism.run`) does: say the server is down and offer
 * a restart, ask for a document, or forward to the server's `prism.runPanel`
 * with the document uri (the active editor's when called without one).
 */
export function planRunPanel(
  serverRunning: boolean,
  problem: string | undefined,
  args: readonly unknown[],
  activeUri: string | undefined,
): RunPanelPlan {
  if (!serverRunning) {
    return { kind: 'server-down', message: serverDownMessage(problem), actions: [SERVER_DOWN_ACTIONS.restart, SERVER_DOWN_ACTIONS.output] };
  }
  const forwarded = withDocumentUri(args, activeUri);
  if (typeof forwarded[0] !== 'string' || forwarded[0] === '') {
    return { kind: 'no-document', message: 'Prism: open a test file of a task first.' };
  }
  return { kind: 'forward', command: SERVER_COMMANDS.runPanel, arguments: forwarded };
}

export interface Candidate {
  id: string;
  label: string | null;
  reference: boolean;
  note: string | null;
  uri: string | null;
}

/** Validates the `prism.listCandidates` result; drops entries without an id. */
export function parseCandidates(raw: unknown): Candidate[] {
  if (!Array.isArray(raw)) {
    return [];
  }
  const out: Candidate[] = [];
  for (const item of raw as unknown[]) {
    if (typeof item !== 'object' || item === null) {
      continue;
    }
    const c = item as Record<string, unknown>;
    if (typeof c.id !== 'string' || c.id === '') {
      continue;
    }
    out.push({
      id: c.id,
      label: typeof c.label === 'string' ? c.label : null,
      reference: c.reference === true,
      note: typeof c.note === 'string' && c.note !== '' ? c.note : null,
      uri: typeof c.uri === 'string' && c.uri !== '' ? c.uri : null,
    });
  }
  return out;
}

export interface CandidatePick {
  label: string;
  description?: string;
  detail?: string;
  candidate: Candidate;
}

/** Quick pick rows: id, then label (and "reference"), then the note. */
export function candidatePicks(candidates: readonly Candidate[]): CandidatePick[] {
  return candidates.map((candidate) => {
    const bits: string[] = [];
    if (candidate.label !== null) {
      bits.push(candidate.label);
    }
    if (candidate.reference) {
      bits.push('reference');
    }
    const pick: CandidatePick = { label: candidate.id, candidate };
    if (bits.length > 0) {
      pick.description = bits.join(' · ');
    }
    if (candidate.note !== null) {
      pick.detail = candidate.note;
    }
    return pick;
  });
}

/** The `uri` of a `prism.showCandidate` result, if any. */
export function parseShowCandidate(raw: unknown): string | undefined {
  if (typeof raw === 'object' && raw !== null) {
    const uri = (raw as Record<string, unknown>).uri;
    if (typeof uri === 'string' && uri !== '') {
      return uri;
    }
  }
  return undefined;
}

export interface CandidateFile {
  path: string;
  line: number;
  initial: string;
  candidate: string;
}

export interface CandidateView {
  id: string;
  title: string;
  files: CandidateFile[];
}

/** Validates the `prism/candidate` answer; drops malformed files. */
export function parseCandidateView(raw: unknown): CandidateView | undefined {
  if (typeof raw !== 'object' || raw === null) {
    return undefined;
  }
  const r = raw as Record<string, unknown>;
  if (typeof r.id !== 'string' || typeof r.title !== 'string' || !Array.isArray(r.files)) {
    return undefined;
  }
  const files: CandidateFile[] = [];
  for (const f of r.files as unknown[]) {
    if (typeof f !== 'object' || f === null) {
      continue;
    }
    const x = f as Record<string, unknown>;
    if (typeof x.path === 'string' && typeof x.initial === 'string' && typeof x.candidate === 'string') {
      files.push({ path: x.path, line: typeof x.line === 'number' && x.line >= 0 ? x.line : 0, initial: x.initial, candidate: x.candidate });
    }
  }
  return { id: r.id, title: r.title, files };
}

/** One test's outcome on one program (`prism/programs` at reveal `full`); `line` is 1-based. */
export interface ProgramTest {
  name: string;
  outcome: string;
  line: number | null;
  message: string;
  expected: string | null;
  actual: string | null;
}

/** An input on which every valid candidate agrees and an accepted invalid one differs. */
export interface ProgramWitness {
  call: string;
  expected: string;
  got: string;
}

/** One program of the panel as a Test Explorer item (`prism/programs`); `line` is 1-based. */
export interface ProgramItem {
  id: string;
  label: string;
  passed: boolean;
  line: number | null;
  message: string;
  expected: string | null;
  actual: string | null;
  /** initial, reference, valid or invalid (unknown from an older server: taken from the label). */
  kind?: string;
  durationMs?: number | null;
  tests?: ProgramTest[];
  /** Only on an item run by itself (`prism/runProgram`) of an accepted invalid candidate, at `full` or `labels`. */
  witness?: ProgramWitness | null;
}

const MAX_PROGRAM_TESTS = 500;

/** One item of `prism/programs` or `prism/runProgram`, or undefined when malformed. */
export function parseProgramItem(it: unknown): ProgramItem | undefined {
  if (typeof it !== 'object' || it === null) {
    return undefined;
  }
  const x = it as Record<string, unknown>;
  if (typeof x.id !== 'string' || typeof x.label !== 'string' || typeof x.passed !== 'boolean') {
    return undefined;
  }
  const text = (v: unknown): string | null => (typeof v === 'string' ? v : null);
  const line = (v: unknown): number | null => (typeof v === 'number' && v >= 1 ? v : null);
  const tests: ProgramTest[] = [];
  for (const t of (Array.isArray(x.tests) ? (x.tests as unknown[]) : []).slice(0, MAX_PROGRAM_TESTS)) {
    const r = typeof t === 'object' && t !== null ? (t as Record<string, unknown>) : {};
    if (typeof r.name === 'string' && typeof r.outcome === 'string') {
      tests.push({ name: r.name, outcome: r.outcome, line: line(r.line), message: text(r.message) ?? '', expected: text(r.expected), actual: text(r.actual) });
    }
  }
  const w = typeof x.witness === 'object' && x.witness !== null ? (x.witness as Record<string, unknown>) : undefined;
  const witness =
    w && typeof w.call === 'string' && typeof w.expected === 'string' && typeof w.got === 'string'
      ? { call: w.call, expected: w.expected, got: w.got }
      : null;
  return {
    id: x.id,
    label: x.label,
    passed: x.passed,
    line: line(x.line),
    message: text(x.message) ?? '',
    expected: text(x.expected),
    actual: text(x.actual),
    kind: text(x.kind) ?? undefined,
    durationMs: typeof x.duration_ms === 'number' && x.duration_ms > 0 ? x.duration_ms : null,
    tests,
    witness,
  };
}

/** Validates the `prism/programs` answer; drops malformed items. */
export function parsePrograms(raw: unknown): ProgramItem[] {
  const items = typeof raw === 'object' && raw !== null ? (raw as { items?: unknown }).items : undefined;
  if (!Array.isArray(items)) {
    return [];
  }
  return (items as unknown[]).map(parseProgramItem).filter((p): p is ProgramItem => p !== undefined);
}

/** Validates the `prism/runProgram` answer: the one item it ran (undefined when malformed). */
export function parseRunProgram(raw: unknown): ProgramItem | undefined {
  return typeof raw === 'object' && raw !== null ? parseProgramItem((raw as { item?: unknown }).item) : undefined;
}

/**
 * The program and suite document a `prism-candidate:/<program>/<path>?doc=<uri>` document belongs
 * to (VS Code's decoded `path` and `query`), or undefined for another shape.
 */
export function candidateOfUri(path: string, query: string): { program: string; document: string } | undefined {
  const program = path.replace(/^\/+/, '').split('/')[0] ?? '';
  const document = new URLSearchParams(query).get('doc') ?? '';
  return program !== '' && document !== '' ? { program, document } : undefined;
}

/** The one title of a candidate's view: its id and label first, then the file(s). */
export function candidateViewTitle(view: CandidateView): string {
  const only = view.files.length === 1 ? view.files[0] : undefined;
  return only ? `${view.title}: ${only.path}` : `${view.title}: ${view.files.length} files`;
}
