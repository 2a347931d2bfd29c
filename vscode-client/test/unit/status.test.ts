import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { StatusParams, StatusStore, formatStatus, parseStatus, runPanelMessage } from '../../src/core/status';

const base: StatusParams = {
  uri: 'file:///w/tests/test_minutes.py',
  state: 'idle',
  metrics: null,
  valid: null,
  invalid: null,
  done: null,
  total: null,
  message: null,
  unjudged: [],
  stale: false,
  summary: null,
};

const metrics = { detects_baseline: true, rar: true, jsf: false, valid_acceptance: 0.75, invalid_rejection: 1, h: 0.8571 };

describe('formatStatus', () => {
  it('idle with results: JSF ✗ and the counts', () => {
    const v = formatStatus({
      ...base,
      metrics,
      valid: { accepted: 3, total: 4 },
      invalid: { rejected: 5, total: 5 },
      summary: 'valid 3/4 besides the reference · invalid 5/5',
    });
    assert.equal(v.text, 'Prism: JSF ✗ · valid 3/4 besides the reference · invalid 5/5');
    assert.match(v.tooltip, /3 of 4 \(the reference not counted/);
    assert.match(v.tooltip, /Reference accepted \(RAR\): yes/);
    assert.match(v.tooltip, /H: 0\.86/);
    assert.match(v.tooltip, /Valid acceptance: 75%/);
    assert.match(v.tooltip, /Invalid rejection: 100%/);
  });

  it('idle with joint success: JSF ✓', () => {
    const v = formatStatus({
      ...base,
      metrics: { ...metrics, jsf: true, valid_acceptance: 1, h: 1 },
      valid: { accepted: 4, total: 4 },
      invalid: { rejected: 5, total: 5 },
      summary: 'valid 4/4 besides the reference · invalid 5/5',
    });
    assert.equal(v.text, 'Prism: JSF ✓ · valid 4/4 besides the reference · invalid 5/5');
  });

  it("shows the server's summary as it is (the one wording of lenses and quick fixes), not counts of its own", () => {
    const wire = parseStatus({
      uri: base.uri,
      state: 'idle',
      metrics,
      valid: { accepted: 1, total: 4 },
      invalid: { rejected: 3, total: 5 },
      summary: 'valid 1/4 besides the reference · invalid 3/5',
    });
    assert.ok(wire);
    assert.equal(formatStatus(wire).text, 'Prism: JSF ✗ · valid 1/4 besides the reference · invalid 3/5');
    // Without one (an older server) the counts still say the reference is left out.
    assert.equal(formatStatus({ ...wire, summary: null }).text, 'Prism: JSF ✗ · valid 1/4 besides the reference · invalid 3/5');
  });

  it('a reference-only panel: no tick, says what it cannot judge, and clicking builds a panel', () => {
    const v = formatStatus({
      ...base,
      metrics: { ...metrics, jsf: true, valid_acceptance: null, invalid_rejection: null, h: null },
      valid: { accepted: 0, total: 0 },
      invalid: { rejected: 0, total: 0 },
      unjudged: ['under-assertion (no invalid candidate)'],
      summary: 'valid 0/0 besides the reference · invalid 0/0',
    });
    assert.equal(v.text, '$(warning) Prism: JSF ? · valid 0/0 besides the reference · invalid 0/0 · panel too small');
    assert.doesNotMatch(v.text, /✓/);
    assert.match(v.tooltip, /cannot judge under-assertion \(no invalid candidate\)/);
    assert.match(v.tooltip, /Build Panel/);
    const parsed = parseStatus({ uri: base.uri, state: 'idle', unjudged: ['under-assertion (no invalid candidate)', 3] });
    assert.deepEqual(parsed?.unjudged, ['under-assertion (no invalid candidate)']);
  });

  it('the last run\'s counts during a syntax error are marked as old', () => {
    const v = formatStatus({
      ...base,
      metrics,
      valid: { accepted: 1, total: 4 },
      invalid: { rejected: 3, total: 5 },
      stale: true,
      summary: 'valid 1/4 besides the reference · invalid 3/5',
      message: 'not run: a syntax error; the counts are from the last run (version 3)',
    });
    assert.equal(v.text, '$(history) Prism (last run): JSF ✗ · valid 1/4 besides the reference · invalid 3/5');
    assert.match(v.tooltip, /^These counts are from an earlier version/);
  });

  it('a file that cannot run yet says why instead of a bare "Prism"', () => {
    assert.equal(formatStatus({ ...base, message: 'not run: no tests yet' }).text, 'Prism: not run: no tests yet');
  });

  it('idle with undefined rates says n/a', () => {
    const v = formatStatus({ ...base, metrics: { ...metrics, valid_acceptance: null, h: null } });
    assert.equal(v.text, 'Prism: JSF ✗');
    assert.match(v.tooltip, /H: n\/a/);
    assert.match(v.tooltip, /Valid acceptance: n\/a/);
  });

  it('idle without metrics (e.g. reveal=counts before a run)', () => {
    assert.equal(formatStatus(base).text, 'Prism');
  });

  it('running with progress', () => {
    const v = formatStatus({ ...base, state: 'running', done: 4, total: 11 });
    assert.equal(v.text, '$(sync~spin) Prism: running 4/11');
  });

  it('running without progress', () => {
    assert.equal(formatStatus({ ...base, state: 'running' }).text, '$(sync~spin) Prism: running');
  });

  it('no task', () => {
    const v = formatStatus({ ...base, state: 'no-task' });
    assert.equal(v.text, 'Prism: no task');
    assert.match(v.tooltip, /prism\.toml/);
  });

  it('error carries the message in the tooltip', () => {
    const v = formatStatus({ ...base, state: 'error', message: 'bubblewrap not found' });
    assert.equal(v.text, '$(error) Prism: error');
    assert.match(v.tooltip, /bubblewrap not found/);
  });
});

describe('parseStatus', () => {
  it('accepts the documented payload', () => {
    const raw = { ...base, metrics, valid: { accepted: 3, total: 4 }, invalid: { rejected: 5, total: 5 }, done: 11, total: 11 };
    assert.deepEqual(parseStatus(raw), raw);
  });

  it('fills missing optional members with null', () => {
    assert.deepEqual(parseStatus({ uri: 'file:///a.py', state: 'no-task' }), { ...base, uri: 'file:///a.py', state: 'no-task' });
  });

  it('rejects payloads without uri or with an unknown state', () => {
    assert.equal(parseStatus({ state: 'idle' }), undefined);
    assert.equal(parseStatus({ uri: 'file:///a.py', state: 'sleeping' }), undefined);
    assert.equal(parseStatus(null), undefined);
    assert.equal(parseStatus([]), undefined);
  });
});

describe('StatusStore', () => {
  it('keeps the last status per (normalised) uri', () => {
    const store = new StatusStore((u) => u.toLowerCase());
    store.set({ ...base, uri: 'file:///A.py', state: 'running' });
    store.set({ ...base, uri: 'file:///b.py', state: 'no-task' });
    store.set({ ...base, uri: 'file:///a.py', state: 'idle' });
    assert.equal(store.get('file:///a.py')?.state, 'idle');
    assert.equal(store.get('file:///B.py')?.state, 'no-task');
    assert.equal(store.size, 2);
    store.delete('file:///A.PY');
    assert.equal(store.get('file:///a.py'), undefined);
    store.clear();
    assert.equal(store.size, 0);
  });
});

describe('runPanelMessage', () => {
  it('says the verdict and how the run was served, even when everything came from the cache', () => {
    const answer = {
      uri: 'file:///t/test_x.py',
      state: 'idle',
      metrics: { detects_baseline: true, rar: true, jsf: false, valid_acceptance: 0.25, invalid_rejection: 0.6, h: 0.35 },
      valid: { accepted: 1, total: 4 },
      invalid: { rejected: 3, total: 5 },
      done: null,
      total: null,
      message: '0 test(s) run, 3 from cache',
      summary: 'valid 1/4 besides the reference · invalid 3/5',
    };
    assert.equal(runPanelMessage(answer), 'Prism: JSF ✗ · valid 1/4 besides the reference · invalid 3/5 (0 test(s) run, 3 from cache)');
  });

  it('shows nothing for an answer that is not a status', () => {
    assert.equal(runPanelMessage({ arguments: ['file:///x.py'] }), undefined);
    assert.equal(runPanelMessage(null), undefined);
  });

  it('drops the icon of an error status', () => {
    const answer = { uri: 'file:///x.py', state: 'error', metrics: null, valid: null, invalid: null, done: null, total: null, message: 'no sandbox' };
    assert.equal(runPanelMessage(answer), 'Prism: error (no sandbox)');
  });
});
