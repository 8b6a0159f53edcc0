/** Data structures of the solver: the mutable free list it sweeps and a binary heap of ready tasks. */
import type { Interval } from './intervals.js';

/** Mutable free list as two parallel number arrays: cheap splits, binary search by end. */
export class FreeList {
  constructor(
    readonly starts: number[],
    readonly ends: number[],
    /** Milliseconds kept free on both sides of what is taken (the user's buffer between placements). */
    readonly gap = 0,
  ) {}

  static from(free: readonly Interval[], from: number, to: number, gap = 0): FreeList {
    const starts: number[] = [];
    const ends: number[] = [];
    for (const interval of free) {
      const s = Math.max(interval.start.getTime(), from);
      const e = Math.min(interval.end.getTime(), to);
      if (s < e) {
        starts.push(s);
        ends.push(e);
      }
    }
    return new FreeList(starts, ends, gap);
  }

  clone(): FreeList {
    return new FreeList(this.starts.slice(), this.ends.slice(), this.gap);
  }

  /** Index of the first interval ending after `t`. */
  firstEndingAfter(t: number): number {
    let lo = 0;
    let hi = this.ends.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((this.ends[mid] as number) <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Earliest start >= `from` of `duration` inside one interval, ending by `until`; -1 when none. */
  earliest(from: number, duration: number, until: number): number {
    for (let i = this.firstEndingAfter(from); i < this.starts.length; i++) {
      const start = Math.max(this.starts[i] as number, from);
      if (start + duration > until) return -1;
      if (start + duration <= (this.ends[i] as number)) return start;
    }
    return -1;
  }

  /** Every interval's earliest feasible start, in order (the candidate generator spreads over these). */
  feasibleStarts(from: number, duration: number, until: number): number[] {
    const out: number[] = [];
    for (let i = this.firstEndingAfter(from); i < this.starts.length; i++) {
      const start = Math.max(this.starts[i] as number, from);
      if (start + duration > until) break;
      if (start + duration <= (this.ends[i] as number)) out.push(start);
    }
    return out;
  }

  /** Cuts `[start, end)` (lying inside one interval) out of the list, and the gap around it. */
  take(start: number, end: number): void {
    if (this.gap > 0) {
      cutOut(this, start - this.gap, end + this.gap);
      return;
    }
    const i = this.firstEndingAfter(start);
    const s = this.starts[i] as number;
    const e = this.ends[i] as number;
    const pieces: [number, number][] = [];
    if (s < start) pieces.push([s, start]);
    if (end < e) pieces.push([end, e]);
    this.starts.splice(i, 1, ...pieces.map((p) => p[0]));
    this.ends.splice(i, 1, ...pieces.map((p) => p[1]));
  }
}

/** Removes any time of `[start, end)` from the list, whichever intervals it touches. */
export function cutOut(free: FreeList, start: number, end: number): void {
  let i = free.firstEndingAfter(start);
  while (i < free.starts.length && (free.starts[i] as number) < end) {
    const s = free.starts[i] as number;
    const e = free.ends[i] as number;
    const pieces: [number, number][] = [];
    if (s < start) pieces.push([s, start]);
    if (end < e) pieces.push([end, e]);
    free.starts.splice(i, 1, ...pieces.map((x) => x[0]));
    free.ends.splice(i, 1, ...pieces.map((x) => x[1]));
    i += pieces.length;
  }
}

/** Binary min-heap by `compare`. */
export class Heap<T> {
  private readonly items: T[] = [];
  constructor(
    private readonly compare: (a: T, b: T) => number,
    initial: readonly T[] = [],
  ) {
    for (const item of initial) this.push(item);
  }
  get size(): number {
    return this.items.length;
  }
  push(item: T): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.compare(a[i] as T, a[parent] as T) >= 0) break;
      [a[i], a[parent]] = [a[parent] as T, a[i] as T];
      i = parent;
    }
  }
  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.compare(a[l] as T, a[m] as T) < 0) m = l;
        if (r < a.length && this.compare(a[r] as T, a[m] as T) < 0) m = r;
        if (m === i) break;
        [a[i], a[m]] = [a[m] as T, a[i] as T];
        i = m;
      }
    }
    return top;
  }
}
