/**
 * "Prism: Build Panel" and "Prism: Check Panel", without VS Code: which task a file belongs to,
 * the command line that runs `prism panel build|check` with the server's Python, and what to
 * tell the user from its exit status (0 done / fit, 1 nothing kept / unfit, 2 an error).
 */
import * as path from 'path';

export type PanelAction = 'build' | 'check';

/** The nearest folder at or above `file` holding a prism.toml, or undefined. */
export function taskRootOf(file: string, hasManifest: (folder: string) => boolean): string | undefined {
  let folder = path.dirname(path.resolve(file));
  for (;;) {
    if (hasManifest(folder)) {
      return folder;
    }
    const parent = path.dirname(folder);
    if (parent === folder) {
      return undefined;
    }
    folder = parent;
  }
}

/** `<python> -c ... panel <action> <task>`: the `prism` command, run by the interpreter that runs the server. */
export function panelCommandLine(python: string, action: PanelAction, taskRoot: string): { command: string; args: string[] } {
  const entry = 'import sys; from prism_lsp.cli import prism_main; sys.exit(prism_main(sys.argv[1:]))';
  return { command: python, args: ['-c', entry, 'panel', action, taskRoot] };
}

/** Wide enough that `prism panel check`'s table never wraps its notes (rich reads COLUMNS). */
export const PANEL_COLUMNS = '200';

/** The notes of `prism panel check` on what the panel cannot show (exit 0 even then). */
export function cannotSee(output: string): string[] {
  return [...output.matchAll(/note: ([^│|\n]*?cannot be seen)/g)].map((m) => (m[1] ?? '').trim());
}

/**
 * The notification after the command ended; `lastLine` is the last line it printed (an error's
 * message), `output` all of it. A panel that builds but cannot show over-specification or
 * under-assertion is not called fit.
 */
export function panelOutcome(
  action: PanelAction,
  code: number | null,
  lastLine: string,
  output = '',
): { level: 'info' | 'warning' | 'error'; message: string } {
  const notes = action === 'check' && code === 0 ? cannotSee(output) : [];
  if (notes.length > 0) {
    return {
      level: 'warning',
      message: `Prism: the panel builds, but it cannot judge every suite: ${notes.join('; ')}. "Prism: Build Panel" adds invalid candidates.`,
    };
  }
  if (code === 0) {
    return { level: 'info', message: action === 'build' ? 'Prism: panel built (see the Prism output for the mutants kept).' : 'Prism: the panel is fit to judge suites.' };
  }
  if (code === 1) {
    return {
      level: 'warning',
      message: action === 'build' ? 'Prism: no mutant was kept (see the Prism output for why each was dropped).' : 'Prism: the panel is not fit to judge suites (see the Prism output).',
    };
  }
  return { level: 'error', message: `Prism: panel ${action} failed${lastLine ? `: ${lastLine}` : ''}` };
}
