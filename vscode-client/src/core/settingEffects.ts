/**
 * How each `prism.*` setting takes effect, and what a configuration change
 * does. Pure: no `vscode` import. vscode-client/README.md's settings table has
 * the same "applies" column; a unit test keeps this table, package.json and
 * the README in step.
 *
 * A restart costs the server's warm state (its warm pytest runners in their
 * sandboxes, the parsed tasks, the last results), so only settings that need a
 * new process restart it. The server applies the others live: it layers each
 * `workspace/didChangeConfiguration` over its settings and reruns the open
 * suites (the sandbox too: every run names its sandbox, and the engine keeps one
 * runner pool per task and sandbox).
 */

/**
 * - `server`: sent to the running server (`workspace/didChangeConfiguration`), applied live.
 * - `client`: applied by the language client itself (`$/setTrace`), no restart.
 * - `restart`: needs a new server process; a change restarts it (debounced).
 * - `start`: only read when starting the server; a change retries the start
 *   (debounced) when the server is not running, and leaves a running one alone.
 */
export type Applies = 'server' | 'client' | 'restart' | 'start';

/** Every contributed setting (key relative to `prism.`) → how it applies. */
export const SETTING_APPLIES: Readonly<Record<string, Applies>> = {
  interpreter: 'restart',
  serverPackage: 'start',
  runOn: 'server',
  debounceMs: 'server',
  reveal: 'server',
  sandbox: 'server',
  timeoutSeconds: 'server',
  'severity.rejects-valid': 'server',
  'severity.accepts-invalid': 'server',
  'severity.misses-baseline': 'server',
  'severity.execution-error': 'server',
  'severity.weak-assertion': 'server',
  'testResults.inline': 'client',
  'trace.server': 'client',
};

/** The README's "applies" column for each kind. */
export const APPLIES_TEXT: Readonly<Record<Applies, string>> = {
  server: 'live',
  client: 'live (client)',
  restart: 'restart',
  start: 'next start',
};

/** Setting keys of one kind, in table order. */
export function keysThatApply(kind: Applies): string[] {
  return Object.entries(SETTING_APPLIES)
    .filter(([, applies]) => applies === kind)
    .map(([key]) => key);
}

/**
 * What the extension does about a configuration change:
 * - `restart`: (debounced) restart the server — it is skipped when the
 *   interpreter resolves to the same command and the server runs;
 * - `retry`: (debounced) try to start the server again (it is not running);
 * - `live`: nothing to restart; the language client pushes the `prism` section
 *   to the running server (and applies the trace level) itself;
 * - `none`: nothing of the table changed, or only `start` settings while the
 *   server runs (they are read at the next start).
 */
export type ConfigReaction = 'restart' | 'retry' | 'live' | 'none';

/**
 * @param affects `ConfigurationChangeEvent.affectsConfiguration` over full names (`prism.runOn`).
 * @param serverRunning whether a server process is up.
 */
export function reactToConfigChange(affects: (section: string) => boolean, serverRunning: boolean): ConfigReaction {
  const changed = (kind: Applies): boolean => keysThatApply(kind).some((key) => affects(`prism.${key}`));
  if (changed('restart')) {
    return 'restart';
  }
  if (changed('start') && !serverRunning) {
    return 'retry';
  }
  if (changed('server') || changed('client')) {
    return 'live';
  }
  return 'none';
}
