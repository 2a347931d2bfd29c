/**
 * Checking that the chosen interpreter can `import prism_lsp`, and the
 * message/command offered when it cannot. No `vscode` import; the process
 * runner is injected so this is testable without spawning anything.
 */

export const SERVER_MODULE = 'prism_lsp';
export const PIP_PACKAGE = 'prism-lsp';

/** Arguments that start the server over stdio. */
export function serverArgs(): string[] {
  return ['-m', SERVER_MODULE];
}

/** Quotes a command for a POSIX shell or PowerShell/cmd when it contains spaces or quotes. */
export function quoteForShell(command: string, platform: string): string {
  if (/^[A-Za-z0-9_./:\\@%+=,-]+$/.test(command)) {
    return command;
  }
  if (platform === 'win32') {
    // PowerShell needs the call operator in front of a quoted program path.
    return `& "${command.replace(/"/g, '`"')}"`;
  }
  return `'${command.replace(/'/g, `'\\''`)}'`;
}

/** The exact command the user can run to install the server into `interpreter`. */
export function installCommand(interpreter: string, platform: string): string {
  return `${quoteForShell(interpreter, platform)} -m pip install ${PIP_PACKAGE}`;
}

export interface ProcessResult {
  /** Exit code; null when the process could not be started or was killed. */
  code: number | null;
  stderr: string;
  /** Error code of a failed spawn, e.g. ENOENT / EACCES. */
  spawnError?: string;
  timedOut?: boolean;
}

export type RunProcess = (command: string, args: string[]) => Promise<ProcessResult>;

export type ImportCheck =
  | { ok: true }
  | { ok: false; reason: 'interpreter-not-found' | 'module-missing' | 'import-failed' | 'timeout'; detail: string };

export async function checkServerImport(interpreter: string, run: RunProcess): Promise<ImportCheck> {
  const result = await run(interpreter, ['-c', `import ${SERVER_MODULE}`]);
  return classifyImportResult(result);
}

export function classifyImportResult(result: ProcessResult): ImportCheck {
  if (result.code === 0) {
    return { ok: true };
  }
  if (result.timedOut) {
    return { ok: false, reason: 'timeout', detail: 'the interpreter did not answer in time' };
  }
  if (result.spawnError !== undefined) {
    return { ok: false, reason: 'interpreter-not-found', detail: result.spawnError };
  }
  const stderr = result.stderr.trim();
  const lastLine = stderr.split(/\r?\n/).filter((l) => l.trim() !== '').pop() ?? '';
  if (new RegExp(`No module named '?${SERVER_MODULE}'?`).test(stderr)) {
    return { ok: false, reason: 'module-missing', detail: lastLine };
  }
  return { ok: false, reason: 'import-failed', detail: lastLine || `exit code ${String(result.code)}` };
}

/** The one-line notification text for a failed check. */
export function importFailureMessage(
  interpreter: string,
  check: Exclude<ImportCheck, { ok: true }>,
  platform: string,
): string {
  switch (check.reason) {
    case 'interpreter-not-found':
      return `Prism: cannot start the Python interpreter "${interpreter}" (${check.detail}). Set "prism.interpreter" or select an interpreter, then install the server with: ${installCommand(interpreter, platform)}`;
    case 'module-missing':
      return `Prism: the server is not installed for ${interpreter}. Install it with: ${installCommand(interpreter, platform)}`;
    case 'import-failed':
      return `Prism: "import ${SERVER_MODULE}" fails with ${interpreter}: ${check.detail}. Reinstall the server, or see "Prism: Show Output".`;
    case 'timeout':
      return `Prism: ${interpreter} did not answer "import ${SERVER_MODULE}" in time.`;
  }
}
