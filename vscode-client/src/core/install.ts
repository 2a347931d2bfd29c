/**
 * Checking that the chosen interpreter can `import prism_lsp`, and what the
 * notification says (and offers) when it cannot. No `vscode` import; the
 * process runner is injected so this is testable without spawning anything.
 *
 * Prism is not on PyPI, so there is no `pip install prism-lsp` to offer. The
 * notification gives an install command only when `prism.serverPackage` says
 * what to install (a checkout, a wheel, or any pip requirement), and never for
 * a Python that refuses pip (PEP 668: Debian's and Ubuntu's system Python);
 * otherwise it explains the choices and opens the settings.
 */

export const SERVER_MODULE = 'prism_lsp';

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

/** A pip argument (path or requirement) quoted as one word; no call operator on Windows. */
function quoteArgument(arg: string, platform: string): string {
  if (/^[A-Za-z0-9_./:\\@%+=,-]+$/.test(arg)) {
    return arg;
  }
  if (platform === 'win32') {
    return `"${arg.replace(/"/g, '`"')}"`;
  }
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

/**
 * `<interpreter> -m pip install <serverPackage>`, or undefined when
 * `serverPackage` is empty (there is nothing true to offer then).
 */
export function installCommand(interpreter: string, serverPackage: string, platform: string): string | undefined {
  const pkg = serverPackage.trim();
  if (pkg === '') {
    return undefined;
  }
  return `${quoteForShell(interpreter, platform)} -m pip install ${quoteArgument(pkg, platform)}`;
}

/** Where `scripts/setup.sh` puts the virtualenv's Python, relative to a Prism checkout. */
export function venvPythonHint(platform: string): string {
  return platform === 'win32' ? '<prism checkout>\\.venv\\Scripts\\python.exe' : '<prism checkout>/.venv/bin/python';
}

export interface ProcessResult {
  /** Exit code; null when the process could not be started or was killed. */
  code: number | null;
  stderr: string;
  stdout?: string;
  /** Error code of a failed spawn, e.g. ENOENT / EACCES. */
  spawnError?: string;
  timedOut?: boolean;
}

export type RunProcess = (command: string, args: string[]) => Promise<ProcessResult>;

export type ImportCheck =
  | { ok: true }
  | { ok: false; reason: 'interpreter-not-found' | 'module-missing' | 'import-failed' | 'timeout'; detail: string };

export type FailedCheck = Exclude<ImportCheck, { ok: true }>;

/**
 * What `-m prism_lsp` imports before it serves: checking the package alone passes where its
 * dependencies are missing (a `python3` that sees the source on PYTHONPATH but lacks `rich`),
 * and the server then dies on every start.
 */
export const SERVER_ENTRY_MODULE = `${SERVER_MODULE}.cli`;

export async function checkServerImport(interpreter: string, run: RunProcess): Promise<ImportCheck> {
  const result = await run(interpreter, ['-c', `import ${SERVER_ENTRY_MODULE}`]);
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

// ---------------------------------------------------------------- the interpreter's environment

/** What the notification needs to know about the interpreter's environment. */
export interface PythonEnvironment {
  /** Inside a virtualenv (`sys.prefix != sys.base_prefix`). */
  venv: boolean;
  /** A system Python marked EXTERNALLY-MANAGED (PEP 668): `pip install` refuses to run. */
  externallyManaged: boolean;
}

/** One line of Python that prints the {@link PythonEnvironment} as JSON. */
export const ENVIRONMENT_PROBE =
  'import json,os,sys,sysconfig;v=sys.prefix!=getattr(sys,"base_prefix",sys.prefix);' +
  'print(json.dumps({"venv":v,"externallyManaged":(not v) and ' +
  'os.path.isfile(os.path.join(sysconfig.get_path("stdlib"),"EXTERNALLY-MANAGED"))}))';

/** The probe's answer; undefined when it did not run or printed something else. */
export function parseEnvironmentProbe(result: ProcessResult): PythonEnvironment | undefined {
  if (result.code !== 0) {
    return undefined;
  }
  const line = (result.stdout ?? '').trim().split(/\r?\n/).pop() ?? '';
  try {
    const raw: unknown = JSON.parse(line);
    if (typeof raw === 'object' && raw !== null) {
      const r = raw as Record<string, unknown>;
      if (typeof r.venv === 'boolean' && typeof r.externallyManaged === 'boolean') {
        return { venv: r.venv, externallyManaged: r.externallyManaged };
      }
    }
  } catch {
    // Not JSON: unknown.
  }
  return undefined;
}

export async function probeEnvironment(interpreter: string, run: RunProcess): Promise<PythonEnvironment | undefined> {
  return parseEnvironmentProbe(await run(interpreter, ['-c', ENVIRONMENT_PROBE]));
}

// ---------------------------------------------------------------- the notification

/** Buttons of the notification, in the order shown. */
export const INSTALL_ACTIONS = {
  copy: 'Copy Command',
  setInterpreter: 'Set Interpreter',
  setServerPackage: 'Set Server Package',
  retry: 'Retry',
  output: 'Show Output',
} as const;

export type InstallAction = (typeof INSTALL_ACTIONS)[keyof typeof INSTALL_ACTIONS];

export interface InstallSettings {
  /** `prism.serverPackage`, expanded: a path to a Prism checkout or wheel, or a pip requirement; '' = unset. */
  serverPackage: string;
}

export interface InstallAdvice {
  /** The notification text (one paragraph). */
  message: string;
  /** The exact shell command behind "Copy Command", when there is one that can work. */
  command?: string;
  /** The buttons, in order ("Set …" open that setting). */
  actions: InstallAction[];
}

/**
 * What the notification says and offers when `interpreter` cannot import the
 * server. Pure: a function of the interpreter, the settings, the platform, the
 * failed check and (when known) the interpreter's environment.
 */
export function installAdvice(
  interpreter: string,
  settings: InstallSettings,
  platform: string,
  check: FailedCheck,
  environment?: PythonEnvironment,
): InstallAdvice {
  const venv = venvPythonHint(platform);
  const pointAtVenv =
    `Point "prism.interpreter" at the Python of a virtualenv where Prism is installed ` +
    `(e.g. ${venv}, which scripts/setup.sh creates)`;
  const systemPython =
    environment?.externallyManaged === true
      ? ` ${interpreter} is a system Python that refuses "pip install" (PEP 668, externally managed).`
      : '';
  const command = environment?.externallyManaged === true ? undefined : installCommand(interpreter, settings.serverPackage, platform);
  const { copy, setInterpreter, setServerPackage, retry, output } = INSTALL_ACTIONS;

  switch (check.reason) {
    case 'interpreter-not-found':
      return {
        message:
          `Prism: cannot start the Python interpreter "${interpreter}" (${check.detail}). ` +
          `${pointAtVenv}, or select one with the Python extension.`,
        actions: [setInterpreter, retry, output],
      };
    case 'module-missing':
      if (command !== undefined) {
        return {
          message: `Prism: the server (${SERVER_MODULE}) is not installed for ${interpreter}. Install it with: ${command}`,
          command,
          actions: [copy, retry, setInterpreter],
        };
      }
      if (settings.serverPackage.trim() !== '') {
        // A server package is known, but this Python cannot take it.
        return {
          message:
            `Prism: the server (${SERVER_MODULE}) is not installed for ${interpreter}.${systemPython} ` +
            `${pointAtVenv}; install "${settings.serverPackage.trim()}" there with its own python -m pip.`,
          actions: [setInterpreter, retry, output],
        };
      }
      return {
        message:
          `Prism: the server (${SERVER_MODULE}) is not installed for ${interpreter}, and it is not published on PyPI.${systemPython} ` +
          `${pointAtVenv}, or set "prism.serverPackage" to your Prism checkout or wheel to get the exact install command.`,
        actions: [setInterpreter, setServerPackage, retry],
      };
    case 'import-failed':
      return {
        message:
          `Prism: "import ${SERVER_ENTRY_MODULE}" fails with ${interpreter}: ${check.detail}. ` +
          (command !== undefined ? `Reinstall it with: ${command}` : `Reinstall Prism into that environment, or see "Prism: Show Output".`),
        ...(command !== undefined ? { command } : {}),
        actions: command !== undefined ? [copy, retry, output] : [output, retry, setInterpreter],
      };
    case 'timeout':
      return {
        message: `Prism: ${interpreter} did not answer "import ${SERVER_ENTRY_MODULE}" in time.`,
        actions: [retry, output, setInterpreter],
      };
  }
}

/** The one-line text for a failed check (the status bar tooltip, the log). */
export function importFailureMessage(
  interpreter: string,
  settings: InstallSettings,
  platform: string,
  check: FailedCheck,
  environment?: PythonEnvironment,
): string {
  return installAdvice(interpreter, settings, platform, check, environment).message;
}
