import * as fs from 'fs';
import * as path from 'path';

/** The vscode-client folder (tests run from out/test/unit). */
export const PACKAGE_ROOT = path.resolve(__dirname, '..', '..', '..');

export function readJson(relative: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(PACKAGE_ROOT, relative), 'utf8')) as unknown;
}
