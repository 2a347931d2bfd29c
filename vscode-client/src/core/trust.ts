/**
 * Workspace Trust: which `prism.*` values a folder's own settings may set. Pure: no `vscode`.
 *
 * A folder is untrusted input (DESIGN.md, trust model): its `.vscode/settings.json` must not
 * pick the Python the extension starts (`prism.interpreter`), what gets installed
 * (`prism.serverPackage`) or the isolation of candidates (`prism.sandbox`). In a folder that
 * is not trusted these are read from the user's settings only, and the server is told
 * `staticOnly` (static hints, no panel run). In any folder, `prism.sandbox: "none"` counts only
 * when the user set it: a workspace can never turn the sandbox off.
 */
import { SettingGetter } from './settings';

/** Settings a folder that is not trusted cannot set (package.json `restrictedConfigurations`). */
export const RESTRICTED_KEYS = ['interpreter', 'serverPackage', 'sandbox'] as const;

/** The parts of `WorkspaceConfiguration.inspect()` this module reads. */
export interface Inspection {
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
  workspaceFolderLanguageValue?: unknown;
  workspaceLanguageValue?: unknown;
}

/** `inspect(key)` over the `prism` section (key relative to `prism.`). */
export type Inspector = (key: string) => Inspection | undefined;

export interface TrustedSettings {
  /** A getter to use instead of `get`: restricted values only from where they may come. */
  get: SettingGetter;
  /** One line per value of the folder that was set aside, for the log and the notice. */
  ignored: string[];
}

function fromWorkspace(inspection: Inspection | undefined): unknown {
  if (!inspection) {
    return undefined;
  }
  return (
    inspection.workspaceFolderLanguageValue ??
    inspection.workspaceFolderValue ??
    inspection.workspaceLanguageValue ??
    inspection.workspaceValue
  );
}

/**
 * The `prism.*` getter a client must use: `get` for everything a folder may set, the user's
 * (global) value for what it may not.
 *
 * @param trusted `vscode.workspace.isTrusted`.
 */
export function trustedSettings(get: SettingGetter, inspect: Inspector, trusted: boolean): TrustedSettings {
  const ignored: string[] = [];
  const restricted = new Set<string>(RESTRICTED_KEYS);
  const seen = new Set<string>();
  const note = (line: string): void => {
    if (!seen.has(line)) {
      seen.add(line);
      ignored.push(line);
    }
  };
  const trustedGet: SettingGetter = (key) => {
    if (!restricted.has(key)) {
      return get(key);
    }
    const inspection = inspect(key);
    const folderValue = fromWorkspace(inspection);
    const userValue = inspection?.globalValue;
    if (!trusted) {
      if (folderValue !== undefined) {
        note(`prism.${key} from this folder's settings (${JSON.stringify(folderValue)}) is ignored: the folder is not trusted.`);
      }
      return userValue;
    }
    if (key === 'sandbox' && folderValue === 'none') {
      note('prism.sandbox "none" from this folder\'s settings is ignored: only your User settings can turn the sandbox off.');
      return userValue;
    }
    return get(key);
  };
  // Evaluate the restricted keys once so `ignored` is complete before anyone reads it.
  for (const key of RESTRICTED_KEYS) {
    trustedGet(key);
  }
  return { get: trustedGet, ignored };
}

/** The notice shown once when Prism starts in a folder that is not trusted. */
export function untrustedNotice(ignored: readonly string[]): string {
  const lines = [
    'Prism: this folder is not trusted (Restricted Mode), so Prism shows static hints only and runs no panel.',
    'Trust the folder to run the suite against the panel.',
  ];
  if (ignored.length > 0) {
    lines.push(...ignored);
  }
  return lines.join(' ');
}

/** Why a panel command does nothing in a folder that is not trusted. */
export const UNTRUSTED_REASON =
  'Prism: this folder is not trusted (Restricted Mode): only static hints are shown, and no panel runs until you trust it.';

/** The status bar in a folder that is not trusted: what is shown and why. */
export const UNTRUSTED_STATUS = {
  text: '$(shield) Prism: static hints only',
  tooltip: `${UNTRUSTED_REASON} Click to manage Workspace Trust.`,
};

/** The button of the notice, and VS Code's command behind it. */
export const MANAGE_TRUST = { title: 'Manage Workspace Trust', command: 'workbench.trust.manage' };
