/**
 * The `prism/status` notification and its status bar text. Pure: no `vscode`.
 */

export const STATUS_NOTIFICATION = 'prism/status';

export type StatusState = 'running' | 'idle' | 'error' | 'no-task';

export interface StatusMetrics {
  detects_baseline: boolean;
  rar: boolean;
  jsf: boolean;
  valid_acceptance: number | null;
  invalid_rejection: number | null;
  h: number | null;
}

export interface StatusParams {
  uri: string;
  state: StatusState;
  metrics: StatusMetrics | null;
  valid: { accepted: number; total: number } | null;
  invalid: { rejected: number; total: number } | null;
  done: number | null;
  total: number | null;
  message: string | null;
  /** What the panel is too small to judge (no valid candidate besides the reference, or no invalid one). */
  unjudged: string[];
  /** The counts are an older version's (a syntax error now, or an edit since the run). */
  stale: boolean;
  /**
   * The server's one wording of the counts (`valid 1/4 besides the reference · invalid 3/5`),
   * as its lenses and quick fixes say them: shown as it is, never rebuilt here.
   */
  summary: string | null;
}

export interface StatusView {
  text: string;
  tooltip: string;
}

const STATES: readonly string[] = ['running', 'idle', 'error', 'no-task'];

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

/**
 * Validates a `prism/status` payload from the wire. Returns undefined when it
 * has no usable uri/state; tolerates missing optional members (→ null).
 */
export function parseStatus(raw: unknown): StatusParams | undefined {
  if (!isObj(raw) || typeof raw.uri !== 'string' || typeof raw.state !== 'string' || !STATES.includes(raw.state)) {
    return undefined;
  }
  let metrics: StatusMetrics | null = null;
  if (isObj(raw.metrics)) {
    const m = raw.metrics;
    metrics = {
      detects_baseline: m.detects_baseline === true,
      rar: m.rar === true,
      jsf: m.jsf === true,
      valid_acceptance: num(m.valid_acceptance),
      invalid_rejection: num(m.invalid_rejection),
      h: num(m.h),
    };
  }
  const valid =
    isObj(raw.valid) && num(raw.valid.accepted) !== null && num(raw.valid.total) !== null
      ? { accepted: num(raw.valid.accepted) as number, total: num(raw.valid.total) as number }
      : null;
  const invalid =
    isObj(raw.invalid) && num(raw.invalid.rejected) !== null && num(raw.invalid.total) !== null
      ? { rejected: num(raw.invalid.rejected) as number, total: num(raw.invalid.total) as number }
      : null;
  return {
    uri: raw.uri,
    state: raw.state as StatusState,
    metrics,
    valid,
    invalid,
    done: num(raw.done),
    total: num(raw.total),
    message: str(raw.message),
    stale: raw.stale === true,
    summary: str(raw.summary),
    unjudged: Array.isArray(raw.unjudged) ? raw.unjudged.filter((u): u is string => typeof u === 'string') : [],
  };
}

/** The panel cannot judge the suite: no verdict of it may read as a pass. */
export function tooSmall(s: StatusParams): boolean {
  return s.state === 'idle' && s.metrics !== null && s.unjudged.length > 0;
}

function percent(v: number | null): string {
  return v === null ? 'n/a (none in the panel)' : `${(v * 100).toFixed(0)}%`;
}

function yesNo(v: boolean): string {
  return v ? 'yes' : 'no';
}

const CLICK_HINT = 'Click to run the panel.';
const BUILD_HINT = 'Click to build a panel (Prism: Build Panel makes invalid candidates from mutants of the reference).';

const SHORT = 48;

function shorten(text: string): string {
  return text.length <= SHORT ? text : `${text.slice(0, SHORT - 1)}…`;
}

/** Status bar text and tooltip for one status. */
export function formatStatus(s: StatusParams): StatusView {
  const message = s.message !== null && s.message.trim() !== '' ? s.message.trim() : null;
  switch (s.state) {
    case 'running': {
      const progress = s.done !== null && s.total !== null ? ` ${s.done}/${s.total}` : '';
      const lines = [`Prism: running the suite on the baseline and the panel${progress ? ` (${progress.trim()} done)` : ''}.`];
      if (message) {
        lines.push(message);
      }
      return { text: `$(sync~spin) Prism: running${progress}`, tooltip: lines.join('\n') };
    }
    case 'no-task': {
      const lines = ['Prism: no prism.toml found above this file, so there is no panel to run it against.'];
      if (message) {
        lines.push(message);
      }
      return { text: 'Prism: no task', tooltip: lines.join('\n') };
    }
    case 'error': {
      const lines = [`Prism: the last run failed${message ? `: ${message}` : '.'}`, 'See "Prism: Show Output" for the server log.', CLICK_HINT];
      return { text: '$(error) Prism: error', tooltip: lines.join('\n') };
    }
    case 'idle': {
      const parts: string[] = [];
      const small = tooSmall(s);
      if (s.metrics) {
        // A pass on a panel with nothing to fail is no pass: `?`, never a tick.
        parts.push(`JSF ${s.metrics.jsf ? (small ? '?' : '✓') : '✗'}`);
      }
      if (s.summary !== null && s.summary.trim() !== '') {
        parts.push(s.summary.trim());
      } else {
        // An older server without `summary`: its numbers, said as it says them.
        if (s.valid) {
          parts.push(`valid ${s.valid.accepted}/${s.valid.total} besides the reference`);
        }
        if (s.invalid) {
          parts.push(`invalid ${s.invalid.rejected}/${s.invalid.total}`);
        }
      }
      if (small) {
        parts.push('panel too small');
      }
      const stale = s.stale && parts.length > 0;
      const lines: string[] = [];
      let text: string;
      if (stale) {
        // Old numbers must not look current: marked, and said so first.
        text = `$(history) Prism (last run): ${parts.join(' · ')}`;
        lines.push('These counts are from an earlier version of the file, not the text you see now.');
      } else if (parts.length > 0) {
        text = `${small ? '$(warning) ' : ''}Prism: ${parts.join(' · ')}`;
      } else {
        text = message?.startsWith('not run') ? `Prism: ${shorten(message)}` : 'Prism';
      }
      if (small) {
        lines.push(`The panel cannot judge ${s.unjudged.join(' or ')}: a suite passes where there is nothing to fail.`);
      }
      if (s.metrics) {
        const m = s.metrics;
        lines.push(
          `Joint success (JSF): ${yesNo(m.jsf)}`,
          `Reference accepted (RAR): ${yesNo(m.rar)}`,
          `Fails on the baseline: ${yesNo(m.detects_baseline)}`,
          `Valid acceptance: ${percent(m.valid_acceptance)}`,
          `Invalid rejection: ${percent(m.invalid_rejection)}`,
          `H: ${m.h === null ? 'n/a' : m.h.toFixed(2)}`,
        );
      } else {
        lines.push('Prism: no results yet.');
      }
      if (s.valid) {
        lines.push(`Valid candidates accepted: ${s.valid.accepted} of ${s.valid.total} (the reference not counted: RAR says whether it passed)`);
      }
      if (s.invalid) {
        lines.push(`Invalid candidates rejected: ${s.invalid.rejected} of ${s.invalid.total}`);
      }
      if (message) {
        lines.push(message);
      }
      lines.push(small ? BUILD_HINT : CLICK_HINT);
      return { text, tooltip: lines.join('\n') };
    }
  }
}

/** The last status per document uri (keys normalised by the injected function). */
export class StatusStore {
  private readonly byUri = new Map<string, StatusParams>();

  constructor(private readonly normalize: (uri: string) => string = (u) => u) {}

  set(status: StatusParams): void {
    this.byUri.set(this.normalize(status.uri), status);
  }

  get(uri: string): StatusParams | undefined {
    return this.byUri.get(this.normalize(uri));
  }

  delete(uri: string): void {
    this.byUri.delete(this.normalize(uri));
  }

  clear(): void {
    this.byUri.clear();
  }

  get size(): number {
    return this.byUri.size;
  }
}

/**
 * The message after Prism: Run Panel (or a lens click): the verdict as the status bar shows
 * it, and the server's note (how many tests ran, how many came from the cache). Undefined for
 * an answer that is not a status, so nothing misleading is shown.
 */
export function runPanelMessage(raw: unknown): string | undefined {
  const status = parseStatus(raw);
  if (!status) {
    return undefined;
  }
  const text = formatStatus(status).text.replace(/^\$\([^)]*\)\s*/, '');
  const note = status.message !== null && status.message.trim() !== '' ? ` (${status.message.trim()})` : '';
  return `${text}${note}`;
}
