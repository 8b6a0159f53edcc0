/** Time source injected everywhere time matters, so tests can move time instead of sleeping. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/** A clock tests advance by hand. */
export class ManualClock implements Clock {
  private current: number;
  constructor(start: Date | string = '2026-11-21T08:00:00.000Z') {
    this.current = new Date(start).getTime();
  }
  now(): Date {
    return new Date(this.current);
  }
  advance(ms: number): void {
    this.current += ms;
  }
  set(at: Date | string): void {
    this.current = new Date(at).getTime();
  }
}
