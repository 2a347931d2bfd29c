/**
 * Which Python runs `-m prism_lsp`. Pure: the caller injects the probes.
 *
 * Order: the `prism.interpreter` setting; the Python extension's active
 * interpreter (optional, any failure falls through); `python3` on PATH.
 */

export type InterpreterSource = 'setting' | 'python-extension' | 'path';

export interface ResolvedInterpreter {
  command: string;
  source: InterpreterSource;
}

export interface InterpreterProbes {
  /** Raw `prism.interpreter` value (may be unset, empty or not a string). */
  setting: () => unknown;
  /** The Python extension's active interpreter, or undefined when not installed / unknown. May throw. */
  pythonExtension: () => Promise<string | undefined>;
  /** Fallback command looked up on PATH. Default `python3`. */
  fallback?: string;
  /** Expansion context for the setting. */
  expand?: ExpandContext;
  /** Diagnostic log line sink. */
  log?: (line: string) => void;
}

export interface ExpandContext {
  workspaceFolder?: string;
  home?: string;
}

/** Expands `${workspaceFolder}`, `${userHome}` and a leading `~` in a configured path. */
export function expandPath(value: string, ctx: ExpandContext = {}): string {
  let out = value;
  if (ctx.workspaceFolder !== undefined) {
    out = out.split('${workspaceFolder}').join(ctx.workspaceFolder);
  }
  if (ctx.home !== undefined) {
    out = out.split('${userHome}').join(ctx.home);
    if (out === '~' || out.startsWith('~/') || out.startsWith('~\\')) {
      out = ctx.home + out.slice(1);
    }
  }
  return out;
}

export async function resolveInterpreter(probes: InterpreterProbes): Promise<ResolvedInterpreter> {
  const log = probes.log ?? ((): void => undefined);
  const configured = probes.setting();
  if (typeof configured === 'string' && configured.trim() !== '') {
    return { command: expandPath(configured.trim(), probes.expand), source: 'setting' };
  }
  try {
    const fromExtension = await probes.pythonExtension();
    if (typeof fromExtension === 'string' && fromExtension.trim() !== '') {
      return { command: fromExtension.trim(), source: 'python-extension' };
    }
  } catch (err) {
    log(`Python extension did not give an interpreter (${describeError(err)}); falling back.`);
  }
  return { command: probes.fallback ?? 'python3', source: 'path' };
}

function describeError(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The interpreter path from the `ms-python.python` extension's exported API,
 * duck-typed so that nothing here depends on that extension's types.
 *
 * Prefers `environments.getActiveEnvironmentPath()` + `resolveEnvironment()`
 * (executable path); falls back to the legacy `settings.getExecutionDetails()`.
 * Returns undefined when the API gives nothing usable; throws what it throws.
 */
export async function interpreterFromPythonApi(api: unknown, resource?: unknown): Promise<string | undefined> {
  if (!isObject(api)) {
    return undefined;
  }
  const ready = api.ready;
  if (isThenable(ready)) {
    await ready;
  }
  const environments = api.environments;
  if (isObject(environments)) {
    const getActive = fn(environments.getActiveEnvironmentPath);
    if (getActive) {
      const envPath = getActive.call(environments, resource);
      if (isObject(envPath)) {
        const resolveEnv = fn(environments.resolveEnvironment);
        if (resolveEnv) {
          const resolved: unknown = await resolveEnv.call(environments, envPath);
          const exe = executablePath(resolved);
          if (exe) {
            return exe;
          }
        }
        if (typeof envPath.path === 'string' && envPath.path !== '') {
          return envPath.path;
        }
      }
    }
  }
  const settings = api.settings;
  if (isObject(settings)) {
    const getDetails = fn(settings.getExecutionDetails);
    if (getDetails) {
      const details = getDetails.call(settings, resource);
      if (isObject(details) && Array.isArray(details.execCommand)) {
        const first: unknown = details.execCommand[0];
        if (typeof first === 'string' && first !== '') {
          return first;
        }
      }
    }
  }
  return undefined;
}

function executablePath(resolved: unknown): string | undefined {
  if (!isObject(resolved) || !isObject(resolved.executable)) {
    return undefined;
  }
  const uri = resolved.executable.uri;
  if (isObject(uri) && typeof uri.fsPath === 'string' && uri.fsPath !== '') {
    return uri.fsPath;
  }
  return undefined;
}

type AnyFunction = (this: unknown, ...args: unknown[]) => unknown;

function fn(value: unknown): AnyFunction | undefined {
  return typeof value === 'function' ? (value as AnyFunction) : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return isObject(value) && typeof value.then === 'function';
}

/** Resolves to `fallback` if `promise` does not settle within `ms` (a hung API must not block startup). */
export function withTimeout<T>(promise: Promise<T>, ms: number, fallback: T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      resolve(fallback);
    }, ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      },
    );
  });
}

/**
 * After the resolved interpreter failed the import check: start the last one that worked
 * instead, or nothing. Only an implicit choice (the Python extension's, `python3` on PATH) is
 * set aside: a `prism.interpreter` the user just set is theirs to see fail. Never silent: the
 * caller says which was kept and why.
 */
export function keepWorking(
  resolved: ResolvedInterpreter,
  lastWorking: ResolvedInterpreter | undefined,
): ResolvedInterpreter | undefined {
  if (!lastWorking || resolved.source === 'setting' || lastWorking.command === resolved.command) {
    return undefined;
  }
  return lastWorking;
}

/** The line that says an interpreter was kept (log and notification). */
export function keptMessage(resolved: ResolvedInterpreter, kept: ResolvedInterpreter): string {
  return (
    `Prism: ${resolved.command} (from ${resolved.source}) does not have the server, so Prism keeps ${kept.command}, ` +
    'which ran it before. Set "prism.interpreter" to choose one for good.'
  );
}

/** Where `prism.interpreter` is set, as `inspect()` tells. */
export interface SettingScopes {
  workspaceFolderValue?: unknown;
  workspaceValue?: unknown;
}

/**
 * The settings editor to open for a setting: the scope that sets it now (folder or workspace),
 * else the remote (machine) settings in a remote window — code-server's, where a
 * machine-overridable setting is listed — else the user settings.
 */
export function settingsEditorFor(key: string, scopes: SettingScopes | undefined, remoteName: string | undefined): { command: string; args: unknown[] } {
  if (scopes?.workspaceFolderValue !== undefined) {
    return { command: 'workbench.action.openFolderSettings', args: [{ query: key }] };
  }
  if (scopes?.workspaceValue !== undefined) {
    return { command: 'workbench.action.openWorkspaceSettings', args: [{ query: key }] };
  }
  if (remoteName !== undefined && remoteName !== '') {
    return { command: 'workbench.action.openRemoteSettings', args: [{ query: key }] };
  }
  return { command: 'workbench.action.openSettings', args: [key] };
}
