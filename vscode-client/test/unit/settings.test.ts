import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { FINDING_KINDS, defaultSettings, fromFlatSettings, toServerSettings } from '../../src/core/settings';
import { readJson } from './helpers';

const DESIGN_DEFAULTS = {
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

describe('settings → initializationOptions', () => {
  it('sends every key with the DESIGN.md defaults when nothing is set', () => {
    const { settings, problems } = toServerSettings(() => undefined);
    assert.deepEqual(settings, DESIGN_DEFAULTS);
    assert.deepEqual(problems, []);
    assert.deepEqual(defaultSettings(), DESIGN_DEFAULTS);
  });

  it('maps the shared fixture exactly (the object the Python end-to-end tests feed the server)', () => {
    const fixture = readJson('test/fixtures/initialization-options.json') as {
      settings: Record<string, unknown>;
      initializationOptions: unknown;
    };
    const { settings, problems } = fromFlatSettings(fixture.settings);
    assert.deepEqual(problems, []);
    assert.deepEqual(settings, fixture.initializationOptions);
    // Exactly the DESIGN.md keys, nothing of the client (interpreter, trace) leaks through.
    assert.deepEqual(Object.keys(settings).sort(), ['debounceMs', 'reveal', 'runOn', 'sandbox', 'severity', 'timeoutSeconds']);
    assert.deepEqual(Object.keys(settings.severity).sort(), [...FINDING_KINDS].sort());
  });

  it('the fixture uses non-default values for every server key', () => {
    const fixture = readJson('test/fixtures/initialization-options.json') as { initializationOptions: typeof DESIGN_DEFAULTS };
    const o = fixture.initializationOptions;
    assert.notEqual(o.runOn, DESIGN_DEFAULTS.runOn);
    assert.notEqual(o.debounceMs, DESIGN_DEFAULTS.debounceMs);
    assert.notEqual(o.reveal, DESIGN_DEFAULTS.reveal);
    assert.notEqual(o.sandbox, DESIGN_DEFAULTS.sandbox);
    assert.notEqual(o.timeoutSeconds, DESIGN_DEFAULTS.timeoutSeconds);
    assert.notDeepEqual(o.severity, DESIGN_DEFAULTS.severity);
  });

  it('replaces invalid values with their default and reports each once', () => {
    const { settings, problems } = fromFlatSettings({
      'prism.runOn': 'keystroke',
      'prism.debounceMs': -5,
      'prism.reveal': 3,
      'prism.sandbox': 'podman',
      'prism.timeoutSeconds': 0,
      'prism.severity.rejects-valid': 'fatal',
      'prism.severity.weak-assertion': 'warning',
    });
    assert.deepEqual(settings, {
      ...DESIGN_DEFAULTS,
      severity: { ...DESIGN_DEFAULTS.severity, 'weak-assertion': 'warning' },
    });
    assert.equal(problems.length, 6);
    assert.ok(problems.some((p) => p.startsWith('prism.runOn:') && p.includes('"keystroke"')));
    assert.ok(problems.some((p) => p.startsWith('prism.debounceMs:') && p.includes('using 400')));
    assert.ok(problems.some((p) => p.startsWith('prism.severity.rejects-valid:') && p.includes('using "warning"')));
  });

  it('rejects numbers that are not finite or given as strings', () => {
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, '400', true]) {
      const { settings, problems } = fromFlatSettings({ 'prism.debounceMs': bad, 'prism.timeoutSeconds': bad });
      assert.equal(settings.debounceMs, 400);
      assert.equal(settings.timeoutSeconds, 10);
      assert.equal(problems.length, 2);
    }
  });

  it('accepts debounceMs 0 (run at once) and fractional timeouts', () => {
    const { settings, problems } = fromFlatSettings({ 'prism.debounceMs': 0, 'prism.timeoutSeconds': 2.5 });
    assert.equal(settings.debounceMs, 0);
    assert.equal(settings.timeoutSeconds, 2.5);
    assert.deepEqual(problems, []);
  });

  it('treats null like unset', () => {
    const { settings, problems } = fromFlatSettings({ 'prism.runOn': null, 'prism.timeoutSeconds': null });
    assert.deepEqual(settings, DESIGN_DEFAULTS);
    assert.deepEqual(problems, []);
  });

  it('returns a fresh object each time (callers may mutate it)', () => {
    const a = toServerSettings(() => undefined).settings;
    a.severity['rejects-valid'] = 'error';
    assert.equal(toServerSettings(() => undefined).settings.severity['rejects-valid'], 'warning');
  });
});
