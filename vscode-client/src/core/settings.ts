/**
 * `prism.*` VS Code settings → the server settings object of DESIGN.md
 * ("Server settings"). This object is sent as `initializationOptions`, as the
 * `prism` section of `workspace/didChangeConfiguration`, and as the answer to
 * `workspace/configuration` for section `prism`.
 *
 * Pure: no `vscode` import. The caller passes a getter over the `prism`
 * configuration section (keys relative to `prism.`, e.g. `severity.rejects-valid`).
 */

export const RUN_ON = ['type', 'save'] as const;
export const REVEAL = ['full', 'labels', 'counts', 'sealed'] as const;
export const SANDBOX = ['auto', 'bubblewrap', 'docker', 'none'] as const;
export const LEVELS = ['error', 'warning', 'information', 'hint'] as const;
export const FINDING_KINDS = [
  'rejects-valid',
  'accepts-invalid',
  'misses-baseline',
  'execution-error',
  'weak-assertion',
] as const;

export type RunOn = (typeof RUN_ON)[number];
export type Reveal = (typeof REVEAL)[number];
export type Sandbox = (typeof SANDBOX)[number];
export type Level = (typeof LEVELS)[number];
export type FindingKind = (typeof FINDING_KINDS)[number];

export interface ServerSettings {
  runOn: RunOn;
  debounceMs: number;
  reveal: Reveal;
  sandbox: Sandbox;
  timeoutSeconds: number;
  severity: Record<FindingKind, Level>;
}

/** The configuration section every `prism.*` setting lives in. */
export const SECTION = 'prism';

export function defaultSettings(): ServerSettings {
  return {
    runOn: 'type',
    debounceMs: 400,
    reveal: 'full',
    sandbox: 'auto',
    timeoutSeconds: 10,
    severity: {
      'rejects-valid': 'warning',
      'accepts-invalid': 'information',
      'misses-baseline': 'warning',
      'execution-error': 'error',
      'weak-assertion': 'hint',
    },
  };
}

/** How each `prism.*` setting applies (live, or by a restart) is in `settingEffects.ts`. */

/** Reads one setting, key relative to the `prism` section. `undefined` = unset. */
export type SettingGetter = (key: string) => unknown;

export interface MappedSettings {
  settings: ServerSettings;
  /** One human-readable line per ignored (invalid) value; its default was used. */
  problems: string[];
}

function pickEnum<T extends string>(
  get: SettingGetter,
  key: string,
  allowed: readonly T[],
  fallback: T,
  problems: string[],
): T {
  const value = get(key);
  if (value === undefined || value === null) {
    return fallback;
  }
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) {
    return value as T;
  }
  problems.push(
    `prism.${key}: ${JSON.stringify(value)} is not one of ${allowed.map((a) => `"${a}"`).join(', ')}; using "${fallback}".`,
  );
  return fallback;
}

function pickNumber(
  get: SettingGetter,
  key: string,
  fallback: number,
  valid: (n: number) => boolean,
  expected: string,
  problems: string[],
): number {
  const value = get(key);
  if (value === undefined || value === null) {
    return fallback;
  }
  if (typeof value === 'number' && Number.isFinite(value) && valid(value)) {
    return value;
  }
  problems.push(`prism.${key}: ${JSON.stringify(value)} is not ${expected}; using ${fallback}.`);
  return fallback;
}

/** Maps the `prism.*` settings to the server settings object; always returns every key. */
export function toServerSettings(get: SettingGetter): MappedSettings {
  const d = defaultSettings();
  const problems: string[] = [];
  const severity = {} as Record<FindingKind, Level>;
  for (const kind of FINDING_KINDS) {
    severity[kind] = pickEnum(get, `severity.${kind}`, LEVELS, d.severity[kind], problems);
  }
  const settings: ServerSettings = {
    runOn: pickEnum(get, 'runOn', RUN_ON, d.runOn, problems),
    debounceMs: pickNumber(get, 'debounceMs', d.debounceMs, (n) => n >= 0, 'a number ≥ 0', problems),
    reveal: pickEnum(get, 'reveal', REVEAL, d.reveal, problems),
    sandbox: pickEnum(get, 'sandbox', SANDBOX, d.sandbox, problems),
    timeoutSeconds: pickNumber(get, 'timeoutSeconds', d.timeoutSeconds, (n) => n > 0, 'a number > 0', problems),
    severity,
  };
  return { settings, problems };
}

/**
 * Same mapping from flat `settings.json`-style keys (`"prism.runOn": "save"`).
 * Used by the shared fixture test; handy for anything that is not VS Code.
 */
export function fromFlatSettings(flat: Record<string, unknown>): MappedSettings {
  const prefix = `${SECTION}.`;
  return toServerSettings((key) => flat[prefix + key]);
}
