/**
 * The language client's lifecycle: start `<python> -m prism_lsp` (after checking that it
 * imports), stop it, restart it when the interpreter changes; and the middleware that keeps
 * the server's settings in step with `prism.*` (named functions, one job each).
 */
import * as vscode from 'vscode';
import {
  CloseAction,
  ConfigurationParams,
  DidChangeConfigurationNotification,
  ErrorAction,
  ErrorHandler,
  LanguageClient,
  LanguageClientOptions,
  Middleware,
  ServerOptions,
  State,
  StaticFeature,
} from 'vscode-languageclient/node';

import { SERVER_COMMANDS, withDocumentUri } from './core/commands';
import { checkServerImport, serverArgs } from './core/install';
import { adviseInstall, runProcess, serverCwd } from './installFlow';
import { ResolvedInterpreter, keepWorking, keptMessage } from './core/interpreter';
import { resolve } from './pythonBridge';
import { isTrusted, prismConfig } from './config';
import { SECTION, ServerSettings, toServerSettings } from './core/settings';
import { PrismState, describe, log } from './state';
import { STATUS_NOTIFICATION, parseStatus, runPanelMessage } from './core/status';
import { updateStatusBar } from './statusBar';

// ---------------------------------------------------------------- settings

/** What the server is sent: the settings object, and `staticOnly` in a folder that is not trusted. */
export type SentSettings = ServerSettings & { staticOnly?: true };

/** The server settings object from `prism.*`; each problem is shown once. */
export function currentSettings(state: PrismState, scope?: vscode.Uri): SentSettings {
  const config = prismConfig(scope);
  const { settings, problems } = toServerSettings(config.get);
  for (const problem of [...problems, ...(isTrusted() ? config.ignored : [])]) {
    if (!state.reportedProblems.has(problem)) {
      state.reportedProblems.add(problem);
      log(state, problem);
      void vscode.window.showWarningMessage(`Prism: ${problem}`);
    }
  }
  // Only sent when true: the server's default is false, and trusting the folder restarts it.
  return isTrusted() ? settings : { ...settings, staticOnly: true };
}

/** `prism` → the whole object, `prism.severity` → that member; anything else undefined. */
function settingsSection(state: PrismState, section: string, scope?: vscode.Uri): unknown {
  if (section === SECTION) {
    return currentSettings(state, scope);
  }
  let value: unknown = currentSettings(state, scope);
  for (const part of section.slice(SECTION.length + 1).split('.')) {
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[part] : undefined;
  }
  return value ?? null;
}

// ---------------------------------------------------------------- middleware

/**
 * A panel run asked for by the user (Run Panel, a lens): a progress indicator while it runs and
 * a message with its result once it is back, so a run served from the cache in a few
 * milliseconds is still seen to happen.
 */
export function runPanelWithFeedback(send: () => Thenable<unknown>): Thenable<unknown> {
  return vscode.window.withProgress({ location: vscode.ProgressLocation.Window, title: 'Prism: running the panel' }, async () => {
    const result = await send();
    const message = runPanelMessage(result);
    if (message !== undefined) {
      void vscode.window.showInformationMessage(message);
    }
    return result;
  });
}

/** Commands that act on a document get the active editor's uri when called without one. */
function executeCommandWithDocument(): NonNullable<Middleware['executeCommand']> {
  return (command, args: unknown[], next): vscode.ProviderResult<unknown> => {
    const active = vscode.window.activeTextEditor?.document.uri.toString();
    if (command === SERVER_COMMANDS.runPanel) {
      return runPanelWithFeedback(() => Promise.resolve(next(command, withDocumentUri(args, active))));
    }
    if (command === SERVER_COMMANDS.showCandidate || command === SERVER_COMMANDS.listCandidates) {
      return next(command, withDocumentUri(args, active));
    }
    return next(command, args);
  };
}

/** `workspace/configuration`: the `prism` section (or a member) answered from the server settings object. */
function answerConfiguration(state: PrismState): NonNullable<NonNullable<Middleware['workspace']>['configuration']> {
  return async (params: ConfigurationParams, token, next) => {
    const ours = params.items.map((item) => item.section === SECTION || item.section?.startsWith(`${SECTION}.`) === true);
    const others = params.items.filter((_, i) => !ours[i]);
    let answered: unknown[] = [];
    if (others.length > 0) {
      const result = await next({ items: others }, token);
      if (!Array.isArray(result)) {
        return result;
      }
      answered = result;
    }
    let j = 0;
    return params.items.map((item, i) => {
      if (ours[i]) {
        const scope = item.scopeUri ? vscode.Uri.parse(item.scopeUri) : undefined;
        return settingsSection(state, item.section ?? SECTION, scope);
      }
      return answered[j++] ?? null;
    });
  };
}

/** `workspace/didChangeConfiguration`: push the whole server settings object, not VS Code's raw section. */
function pushConfiguration(state: PrismState): NonNullable<NonNullable<Middleware['workspace']>['didChangeConfiguration']> {
  return async (sections, next) => {
    if (!sections || !sections.includes(SECTION) || !state.client) {
      return next(sections);
    }
    await state.client.sendNotification(DidChangeConfigurationNotification.type, {
      settings: { [SECTION]: currentSettings(state) },
    });
  };
}

/** Restart after a crash while the crash budget lasts; then stop and say so. */
function crashHandler(state: PrismState): ErrorHandler {
  return {
    error: () => ({ action: ErrorAction.Continue }),
    closed: () => {
      state.statuses.clear();
      if (state.crashBudget.crashed()) {
        log(state, 'The server stopped unexpectedly; restarting it.');
        updateStatusBar(state);
        return { action: CloseAction.Restart };
      }
      state.serverProblem = 'The Prism server stopped several times. See "Prism: Show Output"; "Prism: Restart Server" starts it again.';
      updateStatusBar(state);
      return { action: CloseAction.DoNotRestart, message: state.serverProblem };
    },
  };
}

// ---------------------------------------------------------------- lifecycle

/** Tells the server this client opens `prism-candidate:` documents (related information, Show Candidate). */
const candidateDocumentsFeature: StaticFeature = {
  fillClientCapabilities: (capabilities) => {
    // prismPanelCommands: "Build Panel" (`prism.buildPanel`) is ours to run, so the server may offer it in a lens.
    capabilities.experimental = {
      ...(capabilities.experimental as object | undefined),
      prismCandidateDocuments: true,
      prismPanelCommands: true,
    };
  },
  initialize: () => undefined,
  getState: () => ({ kind: 'static' }),
  clear: () => undefined,
};

function clientOptions(state: PrismState): LanguageClientOptions {
  return {
    documentSelector: [{ scheme: 'file', language: 'python' }],
    synchronize: {
      // Push model on purpose: the server gets `workspace/didChangeConfiguration`
      // (rewritten by `pushConfiguration`) on every `prism.*` change.
      // eslint-disable-next-line @typescript-eslint/no-deprecated
      configurationSection: SECTION,
      fileEvents: vscode.workspace.createFileSystemWatcher('**/prism.toml'),
    },
    initializationOptions: currentSettings(state),
    outputChannel: state.output,
    traceOutputChannel: state.output,
    errorHandler: crashHandler(state),
    middleware: {
      executeCommand: executeCommandWithDocument(),
      workspace: { configuration: answerConfiguration(state), didChangeConfiguration: pushConfiguration(state) },
    },
  };
}

/** The interpreter to start: the resolved one, or the last that worked when an implicit choice lacks the server. */
async function interpreterToStart(state: PrismState): Promise<ResolvedInterpreter | undefined> {
  const resolved = await resolve(state);
  log(state, `Interpreter: ${resolved.command} (from ${resolved.source}).`);
  const check = await checkServerImport(resolved.command, runProcess);
  if (check.ok) {
    return resolved;
  }
  const kept = keepWorking(resolved, state.lastWorking);
  if (kept && (await checkServerImport(kept.command, runProcess)).ok) {
    const message = keptMessage(resolved, kept);
    log(state, message);
    void vscode.window.showWarningMessage(message);
    return kept;
  }
  state.running = resolved;
  state.serverProblem = await adviseInstall(state, resolved.command, check, () => restartServerNow(state));
  updateStatusBar(state);
  return undefined;
}

async function startClient(state: PrismState): Promise<void> {
  const interpreter = await interpreterToStart(state);
  if (!interpreter) {
    return;
  }
  const serverOptions: ServerOptions = {
    command: interpreter.command,
    args: serverArgs(),
    // No `transport`: it defaults to stdio, whereas `TransportKind.stdio` would append
    // `--stdio` to the arguments, which `python -m prism_lsp` rejects.
    options: { cwd: serverCwd(), env: { ...process.env, PYTHONUNBUFFERED: '1' } },
  };
  const client = new LanguageClient('prism', 'Prism', serverOptions, clientOptions(state));
  client.registerFeature(candidateDocumentsFeature);
  client.onNotification(STATUS_NOTIFICATION, (raw: unknown) => {
    const status = parseStatus(raw);
    if (!status) {
      log(state, `Ignored a malformed ${STATUS_NOTIFICATION}: ${JSON.stringify(raw)}`);
      return;
    }
    state.statuses.set(status);
    updateStatusBar(state);
    if (status.state === 'idle' && status.metrics !== null) {
      for (const listener of state.resultListeners) {
        listener(status.uri);
      }
    }
  });
  client.onDidChangeState((e) => {
    if (e.newState === State.Running) {
      state.serverProblem = undefined;
      updateStatusBar(state);
    }
  });
  state.client = client;
  state.running = interpreter;
  state.serverProblem = undefined;
  try {
    await client.start();
    state.lastWorking = interpreter;
    log(state, `Server started: ${interpreter.command} ${serverArgs().join(' ')}`);
  } catch (err) {
    state.serverProblem = `The Prism server failed to start: ${describe(err)}`;
    log(state, state.serverProblem);
    updateStatusBar(state);
    const choice = await vscode.window.showErrorMessage(`Prism: ${state.serverProblem}`, 'Show Output');
    if (choice === 'Show Output') {
      state.output.show(true);
    }
  }
}

export async function stopClient(state: PrismState): Promise<void> {
  const old = state.client;
  state.client = undefined;
  state.running = undefined;
  state.statuses.clear();
  if (old) {
    try {
      await old.dispose(2000);
    } catch (err) {
      log(state, `Stopping the server: ${describe(err)}`);
    }
  }
}

async function restart(state: PrismState): Promise<void> {
  log(state, state.started ? 'Restarting the server.' : 'Starting the server.');
  state.started = true;
  state.crashBudget.reset();
  await stopClient(state);
  await startClient(state);
  updateStatusBar(state);
}

/**
 * The one restart action (runs never overlap). Automatic restarts (interpreter
 * changes) are skipped when the interpreter is the same and the server runs;
 * `Prism: Restart Server` and the first start always restart.
 */
export async function restartIfNeeded(state: PrismState): Promise<void> {
  if (state.forceRestart) {
    state.forceRestart = false;
    await restart(state);
    return;
  }
  const interpreter = await resolve(state);
  const client = state.client;
  if (client && state.running && client.isRunning() && state.running.command === interpreter.command) {
    log(state, `Interpreter unchanged (${interpreter.command}); no restart.`);
    return;
  }
  await restart(state);
}

/** Start (or restart) the server now, whatever the interpreter. */
export function restartServerNow(state: PrismState): Promise<void> {
  state.forceRestart = true;
  return state.restarter ? state.restarter.runNow() : Promise.resolve();
}
