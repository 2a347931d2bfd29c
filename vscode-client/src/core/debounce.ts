/**
 * Debounced, serialised restarts. Pure: timers are injected.
 *
 * `trigger()` (re)arms a timer; when it fires, the action runs once, however
 * many triggers came before. A trigger while the action is running schedules
 * exactly one more run after it ends; runs never overlap.
 */

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

export class DebouncedRunner {
  private timer: unknown = undefined;
  private armed = false;
  private running: Promise<void> | undefined;
  private pendingAfterRun = false;
  private disposed = false;

  constructor(
    private readonly action: () => Promise<void>,
    private readonly delayMs: number,
    private readonly timers: Timers = realTimers,
    private readonly onError: (err: unknown) => void = () => undefined,
  ) {}

  /** Asks for a run after `delayMs` of quiet. */
  trigger(): void {
    if (this.disposed) {
      return;
    }
    if (this.armed) {
      this.timers.clearTimeout(this.timer);
    }
    this.armed = true;
    this.timer = this.timers.setTimeout(() => {
      this.armed = false;
      this.timer = undefined;
      void this.fire();
    }, this.delayMs);
  }

  /** Runs now (cancelling a pending timer); resolves when this run ends. */
  runNow(): Promise<void> {
    if (this.armed) {
      this.timers.clearTimeout(this.timer);
      this.armed = false;
      this.timer = undefined;
    }
    return this.fire();
  }

  get pending(): boolean {
    return this.armed || this.pendingAfterRun;
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  dispose(): void {
    this.disposed = true;
    if (this.armed) {
      this.timers.clearTimeout(this.timer);
      this.armed = false;
    }
    this.pendingAfterRun = false;
  }

  private fire(): Promise<void> {
    if (this.disposed) {
      return Promise.resolve();
    }
    if (this.running) {
      this.pendingAfterRun = true;
      return this.running;
    }
    const run = (async () => {
      try {
        await this.action();
      } catch (err) {
        this.onError(err);
      }
    })();
    this.running = run.then(() => {
      this.running = undefined;
      if (this.pendingAfterRun && !this.disposed) {
        this.pendingAfterRun = false;
        return this.fire();
      }
      return undefined;
    });
    return this.running;
  }
}

/**
 * Restart-after-crash budget: at most `maxRestarts` automatic restarts within
 * `windowMs`; after that the server stays down until "Prism: Restart Server".
 */
export class CrashBudget {
  private crashes: number[] = [];

  constructor(
    private readonly maxRestarts = 3,
    private readonly windowMs = 3 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records a crash; true when the server should be restarted automatically. */
  crashed(): boolean {
    const t = this.now();
    this.crashes = this.crashes.filter((c) => t - c < this.windowMs);
    this.crashes.push(t);
    return this.crashes.length <= this.maxRestarts;
  }

  reset(): void {
    this.crashes = [];
  }
}
