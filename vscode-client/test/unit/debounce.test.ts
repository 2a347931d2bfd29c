import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { CrashBudget, DebouncedRunner, Timers } from '../../src/core/debounce';

/** Manual clock: only the surface DebouncedRunner takes. */
class FakeTimers implements Timers {
  now = 0;
  private next = 1;
  private readonly pending = new Map<number, { at: number; fn: () => void }>();

  setTimeout(fn: () => void, ms: number): unknown {
    const id = this.next++;
    this.pending.set(id, { at: this.now + ms, fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.pending.delete(handle as number);
  }

  advance(ms: number): void {
    this.now += ms;
    for (const [id, t] of [...this.pending.entries()].sort((a, b) => a[1].at - b[1].at)) {
      if (t.at <= this.now) {
        this.pending.delete(id);
        t.fn();
      }
    }
  }

  get armed(): number {
    return this.pending.size;
  }
}

const flush = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('DebouncedRunner', () => {
  it('coalesces several changes into one restart', async () => {
    const timers = new FakeTimers();
    let runs = 0;
    const r = new DebouncedRunner(() => {
      runs++;
      return Promise.resolve();
    }, 500, timers);
    r.trigger();
    timers.advance(200);
    r.trigger();
    timers.advance(499);
    r.trigger();
    assert.equal(runs, 0);
    assert.equal(timers.armed, 1);
    timers.advance(500);
    await flush();
    assert.equal(runs, 1);
    timers.advance(5000);
    await flush();
    assert.equal(runs, 1);
  });

  it('a change during a restart gives exactly one more restart, never overlapping', async () => {
    const timers = new FakeTimers();
    let active = 0;
    let maxActive = 0;
    let runs = 0;
    const releases: (() => void)[] = [];
    const r = new DebouncedRunner(
      () =>
        new Promise<void>((resolve) => {
          runs++;
          active++;
          maxActive = Math.max(maxActive, active);
          releases.push(() => {
            active--;
            resolve();
          });
        }),
      500,
      timers,
    );
    r.trigger();
    timers.advance(500);
    assert.equal(runs, 1);
    assert.ok(r.isRunning);
    r.trigger();
    timers.advance(500);
    r.trigger();
    timers.advance(500);
    assert.equal(runs, 1, 'no second run while the first is going');
    assert.ok(r.pending);
    releases.shift()?.();
    await flush();
    assert.equal(runs, 2);
    releases.shift()?.();
    await flush();
    assert.equal(runs, 2);
    assert.equal(maxActive, 1);
    assert.ok(!r.isRunning);
  });

  it('runNow cancels the pending timer and runs once', async () => {
    const timers = new FakeTimers();
    let runs = 0;
    const r = new DebouncedRunner(() => {
      runs++;
      return Promise.resolve();
    }, 500, timers);
    r.trigger();
    await r.runNow();
    assert.equal(runs, 1);
    assert.equal(timers.armed, 0);
    timers.advance(1000);
    await flush();
    assert.equal(runs, 1);
  });

  it('reports a failing restart and keeps working', async () => {
    const timers = new FakeTimers();
    const errors: unknown[] = [];
    let runs = 0;
    const r = new DebouncedRunner(
      () => {
        runs++;
        return Promise.reject(new Error('spawn failed'));
      },
      10,
      timers,
      (e) => errors.push(e),
    );
    await r.runNow();
    r.trigger();
    timers.advance(10);
    await flush();
    assert.equal(runs, 2);
    assert.equal(errors.length, 2);
  });

  it('does nothing after dispose', async () => {
    const timers = new FakeTimers();
    let runs = 0;
    const r = new DebouncedRunner(() => {
      runs++;
      return Promise.resolve();
    }, 10, timers);
    r.trigger();
    r.dispose();
    timers.advance(100);
    r.trigger();
    await r.runNow();
    assert.equal(runs, 0);
  });
});

describe('CrashBudget', () => {
  it('allows three automatic restarts per three minutes, then stops', () => {
    let now = 0;
    const budget = new CrashBudget(3, 180_000, () => now);
    assert.equal(budget.crashed(), true);
    now += 1000;
    assert.equal(budget.crashed(), true);
    now += 1000;
    assert.equal(budget.crashed(), true);
    now += 1000;
    assert.equal(budget.crashed(), false);
    now += 180_000;
    assert.equal(budget.crashed(), true, 'old crashes leave the window');
    budget.reset();
    assert.equal(budget.crashed(), true);
  });
});
