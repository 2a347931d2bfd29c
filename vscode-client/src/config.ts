/**
 * The `prism.*` configuration as the folder's Workspace Trust allows it (see `trust.ts`): every
 * reader of a `prism.*` setting goes through `prismConfig`, never `getConfiguration` itself.
 */
import * as vscode from 'vscode';

import { SECTION } from './core/settings';
import { TrustedSettings, trustedSettings } from './core/trust';

export function isTrusted(): boolean {
  return vscode.workspace.isTrusted;
}

export function prismConfig(scope?: vscode.Uri): TrustedSettings {
  const config = vscode.workspace.getConfiguration(SECTION, scope);
  return trustedSettings(
    (key) => config.get(key),
    (key) => config.inspect(key),
    isTrusted(),
  );
}
