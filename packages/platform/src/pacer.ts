import type { Clock } from './clock.js';
import type { Logger } from './logger.js';

export interface PassResult {
  /** The pass hit its batch limit: run again at once. */
  more: boolean;
  /** When the next row becomes due, if any. */
  nextAt: Date | null;
}

/**
 * Runs a worker pass, then sleeps until the next row is due (never longer than `pollMs`, the safety net
 * for rows written by other processes). `wake()` runs a pass now: called after a commit that made work
 * due and on LISTEN/NOTIFY from other processes, so firing never waits for a slow poll.
 */
export class Pacer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  /** Callers of `wakeAndWait` whose pass has not begun yet. */
  private waiting: (() => void)[] = [];

  constructor(
    private readonly name: string,
    private readonly pass: () => Promise<PassResult>,
    private readonly clock: Clock,
    private readonly pollMs: number,
    private readonly logger: Logger,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.schedule(0);
  }

  /**
   * Wakes the worker and resolves once a pass that began after this call has ended, whatever it found (at
   * once when the pacer is stopped): the pass running now may have looked before the caller's work was there.
   */
  wakeAndWait(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    const passed = new Promise<void>((resolve) => this.waiting.push(resolve));
    this.wake();
    return passed;
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), Math.max(0, ms));
  }

  private async tick(): Promise<void> {
    if (this.stopped || this.running) return;
    const waiters = this.waiting.splice(0);
    this.running = (async () => {
      let delay = this.pollMs;
      try {
        const result = await this.pass();
        if (result.more) delay = 0;
        else if (result.nextAt) delay = Math.min(this.pollMs, result.nextAt.getTime() - this.clock.now().getTime());
      } catch (error) {
        this.logger.warn({ err: error, worker: this.name }, 'worker pass failed');
      }
      this.running = undefined;
      for (const resolve of waiters) resolve();
      if (this.stopped) return;
      this.schedule(this.again ? 0 : delay);
      this.again = false;
    })();
    await this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const resolve of this.waiting.splice(0)) resolve();
    await this.running?.catch(() => {});
  }
}
