/**
 * Checks the packaged extension: run after `npm run package` (`npm run test:vsix`).
 * Reads prism-<version>.vsix (a zip) and inspects extension/package.json in it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import * as yauzl from 'yauzl';

const ROOT = path.resolve(__dirname, '..', '..', '..');

interface Manifest {
  name: string;
  version: string;
  publisher: string;
  license: string;
  main: string;
  engines: { vscode: string };
  activationEvents: string[];
  extensionDependencies?: string[];
  contributes: {
    commands: { command: string; title: string }[];
    configuration: { properties: Record<string, { description?: string; default?: unknown }> };
  };
}

/** All entries of a zip file: name → contents. */
function readZip(file: string): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err) {
        reject(err);
        return;
      }
      const entries = new Map<string, Buffer>();
      zip.on('error', reject);
      zip.on('end', () => {
        resolve(entries);
      });
      zip.on('entry', (entry: yauzl.Entry) => {
        if (entry.fileName.endsWith('/')) {
          zip.readEntry();
          return;
        }
        zip.openReadStream(entry, (streamErr, stream) => {
          if (streamErr) {
            reject(streamErr);
            return;
          }
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('error', reject);
          stream.on('end', () => {
            entries.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

const source = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as Manifest;
const vsixPath = path.join(ROOT, `${source.name}-${source.version}.vsix`);

describe(`packaged ${path.basename(vsixPath)}`, () => {
  let files: Map<string, Buffer>;
  let manifest: Manifest;

  before(async () => {
    assert.ok(fs.existsSync(vsixPath), `${vsixPath} is missing: run \`npm run package\` first`);
    files = await readZip(vsixPath);
    const raw = files.get('extension/package.json');
    assert.ok(raw, 'extension/package.json is not in the vsix');
    manifest = JSON.parse(raw.toString('utf8')) as Manifest;
  });

  it('is named prism-<version>.vsix after the manifest', () => {
    assert.equal(manifest.name, 'prism');
    assert.equal(manifest.version, source.version);
    assert.ok(manifest.publisher);
    assert.equal(manifest.license, 'MIT');
    assert.match(manifest.engines.vscode, /^\^1\.\d+\.\d+$/);
  });

  it('activates on prism.toml and on Python, without depending on the Python extension', () => {
    assert.ok(manifest.activationEvents.includes('workspaceContains:**/prism.toml'));
    assert.ok(manifest.activationEvents.includes('onLanguage:python'));
    assert.equal(manifest.extensionDependencies, undefined);
  });

  it('contributes the seven commands', () => {
    const ids = manifest.contributes.commands.map((c) => c.command).sort();
    assert.deepEqual(ids, ['prism.buildPanel', 'prism.checkPanel', 'prism.pickCandidate', 'prism.restartServer', 'prism.run',
      'prism.showKillMatrix', 'prism.showOutput']);
    const titles = Object.fromEntries(manifest.contributes.commands.map((c) => [c.command, c.title]));
    assert.equal(titles['prism.run'], 'Run Panel');
    assert.equal(titles['prism.pickCandidate'], 'Show Candidate…');
    assert.equal(titles['prism.showKillMatrix'], 'Show Kill Matrix');
    assert.equal(titles['prism.buildPanel'], 'Build Panel');
    assert.equal(titles['prism.checkPanel'], 'Check Panel');
  });

  it('contributes every prism.* setting with a description', () => {
    const keys = Object.keys(manifest.contributes.configuration.properties).sort();
    assert.deepEqual(keys, [
      'prism.debounceMs',
      'prism.interpreter',
      'prism.reveal',
      'prism.runOn',
      'prism.sandbox',
      'prism.serverPackage',
      'prism.severity.accepts-invalid',
      'prism.severity.execution-error',
      'prism.severity.misses-baseline',
      'prism.severity.rejects-valid',
      'prism.severity.weak-assertion',
      'prism.testResults.inline',
      'prism.timeoutSeconds',
      'prism.trace.server',
    ]);
    for (const [key, prop] of Object.entries(manifest.contributes.configuration.properties)) {
      const p = prop as { description?: string; markdownDescription?: string };
      assert.ok(p.description ?? p.markdownDescription, `${key} has no description`);
    }
  });

  it('main points to a bundled file in the vsix that exports activate', () => {
    const main = path.posix.normalize(path.posix.join('extension', manifest.main));
    const candidates = [main, `${main}.js`];
    const found = candidates.find((name) => files.has(name));
    assert.ok(found, `main ${manifest.main} is not in the vsix (looked for ${candidates.join(', ')})`);
    const code = files.get(found)?.toString('utf8') ?? '';
    assert.match(code, /activate/);
    assert.doesNotMatch(code, /require\(["']vscode-languageclient/, 'the language client must be bundled');
  });

  it('ships no sources, tests or node_modules', () => {
    for (const name of files.keys()) {
      assert.doesNotMatch(name, /^extension\/(src|test|out|node_modules)\//, name);
    }
    assert.ok(files.has('extension/LICENSE.txt') || files.has('extension/LICENSE'));
  });
});
