/**
 * Prism for VS Code: starts `prism-lsp` (`<python> -m prism_lsp`, stdio) and
 * wires settings, commands and the status bar to it. All intelligence is in
 * the server; everything testable lives in the vscode-free modules next door.
 */
import * as cp from 'child_process';
import * as os from 'os';
import * as vscode from 'vscode';
import {
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';

import { reactToConfigChange } from './applies';
import {
  CLIENT_COMMANDS,
  SERVER_COMMANDS,
  SERVER_DOWN_ACTIONS,
  candidatePicks,
  parseCandidates,
  parseShowCandidate,
  planRunPanel,
  serverDownMessage,
  withDocumentUri,
} from './commands';
import { CrashBudget, DebouncedRunner } from './debounce';
import {
  FailedCheck,
  INSTALL_ACTIONS,
  InstallSettings,
  ProcessResult,
  checkServerImport,
  installAdvice,
  probeEnvironment,
  serverArgs,
} from './install';
import { ResolvedInterpreter, expandPath, interpreterFromPythonApi, resolveInterpreter, withTimeout } from './interpreter';
import { SECTION, ServerSettings, toServerSettings } from './settings';
import { registerPanelCommands } from './panelCommands';
import { STATUS_NOTIFICATION, StatusStore, formatStatus, parseStatus } from './status';

const PYTHON_EXTENSION_ID = 'ms-python.python';
const RESTART_DEBOUNCE_MS = 500;
const IMPORT_CHECK_TIMEOUT_MS = 20_000;
const PYTHON_API_TIMEOUT_MS = 10_000;

let client: LanguageClient | undefined;
let running: ResolvedInterpreter | undefined;
let output: vscode.OutputChannel;
let statusItem: vscode.StatusBarItem;
let serverProblem: string | undefined;
let restarter: DebouncedRunner | undefined;
let pythonEnvSubscribed = false;
const reportedProblems = new Set<string>();
const crashBudget = new CrashBudget();
const statuses = new StatusStore(normalizeUri);

function normalizeUri(uri: string): string {
  try {
    return vscode.Uri.parse(uri, true).toString();
  } catch {
    return uri;
  }
}

function log(line: string): void {
  output.appendLine(`[client ${new Date().toISOString()}] ${line}`);
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

// ---------------------------------------------------------------- settings

function currentSettings(scope?: vscode.Uri): ServerSettings {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  const { settings, problems } = toServerSettings((key) => config.get(key));
  for (const problem of problems) {
    if (!reportedProblems.has(problem)) {
      reportedProblems.add(problem);
      log(problem);
      void vscode.window.showWarningMessage(`Prism: ${problem}`);
    }
  }
  return settings;
}

/** `prism` → the whole object, `prism.severity` → that member; anything else undefined. */
function settingsSection(section: string, scope?: vscode.Uri): unknown {
  if (section === SECTION) {
    return currentSettings(scope);
  }
  let value: unknown = currentSettings(scope);
  for (const part of section.slice(SECTION.length + 1).split('.')) {
    value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[part] : undefined;
  }
  return value ?? null;
}

// ---------------------------------------------------------------- interpreter

function activeResource(): vscode.Uri | undefined {
  const doc = vscode.window.activeTextEditor?.document;
  if (doc && doc.uri.scheme === 'file') {
    return vscode.workspace.getWorkspaceFolder(doc.uri)?.uri ?? doc.uri;
  }
  return vscode.workspace.workspaceFolders?.[0]?.uri;
}

async function pythonExtensionInterpreter(): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension(PYTHON_EXTENSION_ID);
  if (!ext) {
    return undefined;
  }
  const api: unknown = ext.isActive ? ext.exports : await ext.activate();
  subscribeToPythonEnvironment(api);
  return withTimeout(interpreterFromPythonApi(api, activeResource()), PYTHON_API_TIMEOUT_MS, undefined);
}

function subscribeToPythonEnvironment(api: unknown): void {
  if (pythonEnvSubscribed || typeof api !== 'object' || api === null) {
    return;
  }
  const environments = (api as { environments?: { onDidChangeActiveEnvironmentPath?: unknown } }).environments;
  const event = environments?.onDidChangeActiveEnvironmentPath;
  if (typeof event !== 'function') {
    return;
  }
  try {
    const disposable = (event as vscode.Event<unknown>)(() => {
      log('The Python extension changed the active interpreter.');
      restarter?.trigger();
    });
    pythonEnvSubscribed = true;
    extensionContext?.subscriptions.push(disposable);
  } catch (err) {
    log(`Could not watch the Python extension's interpreter: ${describe(err)}`);
  }
}

function expandContext(): { workspaceFolder: string | undefined; home: string } {
  return { workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath, home: os.homedir() };
}

function resolve(): Promise<ResolvedInterpreter> {
  const folder = activeResource();
  return resolveInterpreter({
    setting: () => vscode.workspace.getConfiguration(SECTION, folder).get('interpreter'),
    pythonExtension: pythonExtensionInterpreter,
    fallback: process.platform === 'win32' ? 'python' : 'python3',
    expand: expandContext(),
    log,
  });
}

/** `prism.serverPackage`, expanded like `prism.interpreter`; '' when unset. */
function installSettings(): InstallSettings {
  const raw = vscode.workspace.getConfiguration(SECTION, activeResource()).get('serverPackage');
  const value = typeof raw === 'string' ? raw.trim() : '';
  return { serverPackage: value === '' ? '' : expandPath(value, expandContext()) };
}

function runProcess(command: string, args: string[]): Promise<ProcessResult> {
  return new Promise((done) => {
    cp.execFile(
      command,
      args,
      { timeout: IMPORT_CHECK_TIMEOUT_MS, windowsHide: true, cwd: serverCwd() },
      (error, stdout, stderr) => {
        if (!error) {
          done({ code: 0, stdout, stderr });
          return;
        }
        const e = error as NodeJS.ErrnoException & { killed?: boolean; code?: string | number };
        if (typeof e.code === 'string') {
          done({ code: null, stdout, stderr, spawnError: e.code });
        } else if (e.killed) {
          done({ code: null, stdout, stderr, timedOut: true });
        } else {
          done({ code: typeof e.code === 'number' ? e.code : 1, stdout, stderr });
        }
      },
    );
  });
}

function serverCwd(): string | undefined {
  const folder = vscode.workspace.workspaceFolders?.[0];
  return folder?.uri.scheme === 'file' ? folder.uri.fsPath : undefined;
}

function openSetting(key: string): Thenable<unknown> {
  return vscode.commands.executeCommand('workbench.action.openSettings', `${SECTION}.${key}`);
}

function restartServerNow(): Promise<void> {
  forceRestart = true;
  return restarter ? restarter.runNow() : Promise.resolve();
}

/** The notification for an interpreter that cannot import the server (see `installAdvice`). */
async function offerInstall(interpreter: string, message: string, command: string | undefined, actions: string[]): Promise<void> {
  log(message);
  const choice = await vscode.window.showErrorMessage(message, ...actions);
  switch (choice) {
    case INSTALL_ACTIONS.copy:
      if (command !== undefined) {
        await vscode.env.clipboard.writeText(command);
        void vscode.window.showInformationMessage(`Prism: copied "${command}". Run it in a terminal, then "Prism: Restart Server".`);
      }
      break;
    case INSTALL_ACTIONS.setInterpreter:
      log(`Opening the setting prism.interpreter (now resolved to ${interpreter}).`);
      await openSetting('interpreter');
      break;
    case INSTALL_ACTIONS.setServerPackage:
      await openSetting('serverPackage');
      break;
    case INSTALL_ACTIONS.retry:
      await restartServerNow();
      break;
    case INSTALL_ACTIONS.output:
      output.show(true);
      break;
    default:
      break;
  }
}

async function adviseInstall(interpreter: string, check: FailedCheck): Promise<string> {
  // Whether pip may install into this Python (PEP 668) decides whether a command is offered.
  const environment = check.reason === 'module-missing' || check.reason === 'import-failed' ? await probeEnvironment(interpreter, runProcess) : undefined;
  const advice = installAdvice(interpreter, installSettings(), process.platform, check, environment);
  void offerInstall(interpreter, advice.message, advice.command, advice.actions);
  return advice.message;
}

// ---------------------------------------------------------------- client

async function startClient(): Promise<void> {
  const interpreter = await resolve();
  log(`Interpreter: ${interpreter.command} (from ${interpreter.source}).`);
  const check = await checkServerImport(interpreter.command, runProcess);
  if (!check.ok) {
    running = interpreter;
    serverProblem = await adviseInstall(interpreter.command, check);
    updateStatusBar();
    return;
  }

  const serverOptions: ServerOptions = {
    command: interpreter.command,
    args: serverArgs(),
    // No `transport`: it defaults to stdio, whereas `TransportKind.stdio` would append
    // `--stdio` to the arguments, which `python -m prism_lsp` rejects.
    options: { cwd: serverCwd(), env: { ...process.env, PYTHONUNBUFFERED: '1' } },
  };

  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', language: 'python' }],
    synchronize: {
      // Push model on purpose: the server gets `workspace/didChangeConfiguration`
      // (rewritten by the middleware below) on every `prism.*` change.
      // eslint-disable-next-line @typescript-eslint/no-deprecated
      configurationSection: SECTION,
      fileEvents: vscode.workspace.createFileSystemWatcher('**/prism.toml'),
    },
    initializationOptions: currentSettings(),
    outputChannel: output,
    traceOutputChannel: output,
    errorHandler: {
      error: () => ({ action: ErrorAction.Continue }),
      closed: () => {
        statuses.clear();
        if (crashBudget.crashed()) {
          log('The server stopped unexpectedly; restarting it.');
          updateStatusBar();
          return { action: CloseAction.Restart };
        }
        serverProblem = 'The Prism server stopped several times. See "Prism: Show Output"; "Prism: Restart Server" starts it again.';
        updateStatusBar();
        return { action: CloseAction.DoNotRestart, message: serverProblem };
      },
    },
    middleware: {
      executeCommand: (command, args: unknown[], next): vscode.ProviderResult<unknown> => {
        if (command === SERVER_COMMANDS.runPanel || command === SERVER_COMMANDS.showCandidate || command === SERVER_COMMANDS.listCandidates) {
          const active = vscode.window.activeTextEditor?.document.uri.toString();
          return next(command, withDocumentUri(args, active));
        }
        return next(command, args);
      },
      workspace: {
        configuration: async (params, token, next) => {
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
              return settingsSection(item.section ?? SECTION, scope);
            }
            return answered[j++] ?? null;
          });
        },
        didChangeConfiguration: async (sections, next) => {
          if (!sections || !sections.includes(SECTION) || !client) {
            return next(sections);
          }
          await client.sendNotification(DidChangeConfigurationNotification.type, {
            settings: { [SECTION]: currentSettings() },
          });
        },
      },
    },
  };

  const next = new LanguageClient('prism', 'Prism', serverOptions, clientOptions);
  next.onNotification(STATUS_NOTIFICATION, (raw: unknown) => {
    const status = parseStatus(raw);
    if (!status) {
      log(`Ignored a malformed ${STATUS_NOTIFICATION}: ${JSON.stringify(raw)}`);
      return;
    }
    statuses.set(status);
    updateStatusBar();
  });
  next.onDidChangeState((e) => {
    if (e.newState === State.Running) {
      serverProblem = undefined;
      updateStatusBar();
    }
  });
  client = next;
  running = interpreter;
  serverProblem = undefined;
  try {
    await next.start();
    log(`Server started: ${interpreter.command} ${serverArgs().join(' ')}`);
  } catch (err) {
    serverProblem = `The Prism server failed to start: ${describe(err)}`;
    log(serverProblem);
    updateStatusBar();
    const choice = await vscode.window.showErrorMessage(`Prism: ${serverProblem}`, 'Show Output');
    if (choice === 'Show Output') {
      output.show(true);
    }
  }
}

async function stopClient(): Promise<void> {
  const old = client;
  client = undefined;
  running = undefined;
  statuses.clear();
  if (old) {
    try {
      await old.dispose(2000);
    } catch (err) {
      log(`Stopping the server: ${describe(err)}`);
    }
  }
}

async function restart(): Promise<void> {
  log('Restarting the server.');
  crashBudget.reset();
  await stopClient();
  await startClient();
  updateStatusBar();
}

let forceRestart = true;

/**
 * The one restart action (runs never overlap). Automatic restarts (interpreter
 * changes) are skipped when the interpreter is the same and the server runs;
 * `Prism: Restart Server` and the first start always restart.
 */
async function restartIfNeeded(): Promise<void> {
  if (forceRestart) {
    forceRestart = false;
    await restart();
    return;
  }
  const interpreter = await resolve();
  if (client && running && client.isRunning() && running.command === interpreter.command) {
    log(`Interpreter unchanged (${interpreter.command}); no restart.`);
    return;
  }
  await restart();
}

// ---------------------------------------------------------------- status bar

function updateStatusBar(): void {
  const editor = vscode.window.activeTextEditor;
  if (!editor) {
    statusItem.hide();
    return;
  }
  const uri = editor.document.uri.toString();
  const status = statuses.get(uri);
  if (status) {
    const view = formatStatus(status);
    statusItem.text = view.text;
    statusItem.tooltip = view.tooltip;
    statusItem.backgroundColor = status.state === 'error' ? new vscode.ThemeColor('statusBarItem.errorBackground') : undefined;
    statusItem.command =
      status.state === 'no-task' ? undefined : { title: 'Run Panel', command: CLIENT_COMMANDS.runPanel, arguments: [uri] };
    statusItem.show();
    return;
  }
  if (serverProblem && editor.document.languageId === 'python') {
    statusItem.text = '$(warning) Prism: server not running';
    statusItem.tooltip = serverProblem;
    statusItem.backgroundColor = new vscode.ThemeColor('statusBarItem.warningBackground');
    statusItem.command = { title: 'Show Output', command: CLIENT_COMMANDS.showOutput };
    statusItem.show();
    return;
  }
  statusItem.hide();
}

// ---------------------------------------------------------------- commands

function serverRunning(): boolean {
  return client?.isRunning() === true;
}

/** Says the server is down (and why, when known); offers to restart it. */
async function offerRestart(message: string): Promise<void> {
  const choice = await vscode.window.showWarningMessage(message, SERVER_DOWN_ACTIONS.restart, SERVER_DOWN_ACTIONS.output);
  if (choice === SERVER_DOWN_ACTIONS.restart) {
    await restartServerNow();
  } else if (choice === SERVER_DOWN_ACTIONS.output) {
    output.show(true);
  }
}

/** `Prism: Run Panel`: always registered; forwards to the server's `prism.runPanel` when it runs. */
async function runPanel(...args: unknown[]): Promise<unknown> {
  const plan = planRunPanel(serverRunning(), serverProblem, args, vscode.window.activeTextEditor?.document.uri.toString());
  switch (plan.kind) {
    case 'server-down':
      await offerRestart(plan.message);
      return undefined;
    case 'no-document':
      void vscode.window.showInformationMessage(plan.message);
      return undefined;
    case 'forward':
      if (!client) {
        return undefined;
      }
      try {
        return await client.sendRequest(ExecuteCommandRequest.type, { command: plan.command, arguments: plan.arguments });
      } catch (err) {
        void vscode.window.showErrorMessage(`Prism: Run Panel failed: ${describe(err)}`);
        return undefined;
      }
  }
}

async function pickCandidate(): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (!client || !serverRunning()) {
    await offerRestart(serverDownMessage(serverProblem));
    return;
  }
  if (!editor) {
    void vscode.window.showInformationMessage('Prism: open a test file of a task first.');
    return;
  }
  const documentUri = editor.document.uri.toString();
  let candidates;
  try {
    const raw: unknown = await client.sendRequest(ExecuteCommandRequest.type, {
      command: SERVER_COMMANDS.listCandidates,
      arguments: [documentUri],
    });
    candidates = parseCandidates(raw);
  } catch (err) {
    void vscode.window.showErrorMessage(`Prism: could not list the candidates: ${describe(err)}`);
    return;
  }
  if (candidates.length === 0) {
    void vscode.window.showInformationMessage('Prism: no candidates to show for this file (no task, or the panel is hidden).');
    return;
  }
  const picked = await vscode.window.showQuickPick(candidatePicks(candidates), {
    title: 'Prism: Show Candidate',
    placeHolder: 'Candidate of the panel',
    matchOnDescription: true,
    matchOnDetail: true,
  });
  if (!picked) {
    return;
  }
  let target = picked.candidate.uri ?? undefined;
  if (!target) {
    try {
      const raw: unknown = await client.sendRequest(ExecuteCommandRequest.type, {
        command: SERVER_COMMANDS.showCandidate,
        arguments: [documentUri, picked.candidate.id],
      });
      target = parseShowCandidate(raw);
    } catch (err) {
      void vscode.window.showErrorMessage(`Prism: could not show ${picked.candidate.id}: ${describe(err)}`);
      return;
    }
  }
  if (!target) {
    void vscode.window.showInformationMessage(`Prism: the server gave no file for ${picked.candidate.id}.`);
    return;
  }
  const uri = vscode.Uri.parse(target);
  try {
    const stat = await vscode.workspace.fs.stat(uri);
    if (stat.type & vscode.FileType.Directory) {
      await vscode.commands.executeCommand('revealInExplorer', uri);
      return;
    }
  } catch {
    // Let openTextDocument report it.
  }
  try {
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
  } catch (err) {
    void vscode.window.showErrorMessage(`Prism: could not open ${target}: ${describe(err)}`);
  }
}

// ---------------------------------------------------------------- lifecycle

let extensionContext: vscode.ExtensionContext | undefined;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  extensionContext = context;
  output = vscode.window.createOutputChannel('Prism');
  statusItem = vscode.window.createStatusBarItem('prism.status', vscode.StatusBarAlignment.Left, 50);
  statusItem.name = 'Prism';
  restarter = new DebouncedRunner(restartIfNeeded, RESTART_DEBOUNCE_MS, undefined, (err) => {
    log(`Restart failed: ${describe(err)}`);
  });

  context.subscriptions.push(
    output,
    statusItem,
    {
      dispose: () => {
        restarter?.dispose();
      },
    },
    vscode.commands.registerCommand(CLIENT_COMMANDS.runPanel, runPanel),
    vscode.commands.registerCommand(CLIENT_COMMANDS.pickCandidate, pickCandidate),
    vscode.commands.registerCommand(CLIENT_COMMANDS.restartServer, restartServerNow),
    vscode.commands.registerCommand(CLIENT_COMMANDS.showOutput, () => {
      output.show(true);
    }),
    vscode.workspace.onDidChangeConfiguration((e) => {
      const reaction = reactToConfigChange((section) => e.affectsConfiguration(section), serverRunning());
      if (reaction === 'restart' || reaction === 'retry') {
        log(reaction === 'restart' ? 'A setting that needs a new server process changed.' : 'Retrying the server start after a settings change.');
        restarter?.trigger();
      } else if (reaction === 'live') {
        // Sent to the running server by the language client (didChangeConfiguration middleware),
        // which applies `prism.trace.server` itself: no restart, the server keeps its warm runners.
        reportedProblems.clear();
        currentSettings();
      }
    }),
    vscode.window.onDidChangeActiveTextEditor(() => {
      updateStatusBar();
    }),
    vscode.workspace.onDidCloseTextDocument((doc) => {
      statuses.delete(doc.uri.toString());
      updateStatusBar();
    }),
  );

  registerPanelCommands(context, () => running?.command, () => output);
  await restartServerNow();
}

export async function deactivate(): Promise<void> {
  restarter?.dispose();
  await stopClient();
}
