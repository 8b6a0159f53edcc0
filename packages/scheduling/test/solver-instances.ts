/**
 * Seeded instances of the kind the contract's runs make (for the optimality tests and bench/solver-bench.mjs):
 * working days 09:00-17:00 with a 12:00-13:00 no-go window and busy events cut out, tasks of 15-120 minutes and
 * all five priorities, deadlines, earliest starts, parent/child blocks, a done task, all four dependency types
 * with lags, and a fixed predecessor outside the run. Every time lies on the 5-minute grid, so the exact
 * reference can index time by 5 minutes.
 */
import {
  type Dependency,
  type FixedSlot,
  type Interval,
  mergeIntervals,
  type SolverInput,
  type SolverTask,
  subtractIntervals,
} from '../src/index.js';

const DAY = 1440;
const T0 = Date.parse('2027-03-22T00:00:00Z');
const at = (min: number) => new Date(T0 + min * 60_000);
const TYPES = ['finish_to_start', 'start_to_start', 'finish_to_finish', 'start_to_finish'] as const;

/** mulberry32: a small seeded generator, so one seed always gives one instance. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface InstanceShape {
  tasks: number;
  days: number;
  /** Minutes of task time per minute of free time, roughly (above 1 is overload). */
  load: number;
  /** Dependencies per task. */
  deps?: number;
}

export function generateInstance(seed: number, shape: InstanceShape): SolverInput {
  const rnd = random(seed);
  const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));
  const grid = (lo: number, hi: number) => 5 * int(Math.ceil(lo / 5), Math.floor(hi / 5));
  const working: Interval[] = [];
  const busy: Interval[] = [];
  for (let d = 0; d < shape.days; d++) {
    working.push({ start: at(d * DAY + 540), end: at(d * DAY + 720) });
    working.push({ start: at(d * DAY + 780), end: at(d * DAY + 1020) });
    for (let k = int(0, 2); k > 0; k--) {
      const s = d * DAY + grid(540, 990);
      busy.push({ start: at(s), end: at(s + grid(15, 90)) });
    }
  }
  const free = subtractIntervals(working, mergeIntervals(busy));
  const capacity = free.reduce((sum, i) => sum + (i.end.getTime() - i.start.getTime()) / 60_000, 0);
  const mean = Math.max(15, Math.min(120, (capacity * shape.load) / shape.tasks));
  const horizon = shape.days * DAY;
  const tasks: SolverTask[] = [];
  for (let i = 0; i < shape.tasks; i++) {
    const parent = i > 0 && rnd() < 0.15 ? int(0, i - 1) : undefined;
    tasks.push({
      id: `t${i}`,
      durationMin: grid(Math.max(5, mean * 0.3), Math.min(240, mean * 1.7)),
      priority: int(1, 5),
      status: rnd() < 0.04 ? 'done' : 'pending',
      sortOrder: i,
      ...(parent !== undefined ? { parentId: `t${parent}` } : {}),
      ...(rnd() < 0.3 ? { deadline: at(grid(600, horizon)) } : {}),
      ...(rnd() < 0.2 ? { earliestStart: at(grid(0, horizon - 600)) } : {}),
    });
  }
  const dependencies: Dependency[] = [];
  const depCount = Math.round(shape.tasks * (shape.deps ?? 0.35));
  for (let k = 0; k < depCount; k++) {
    const a = int(1, shape.tasks - 1);
    const outside = rnd() < 0.1;
    dependencies.push({
      taskId: `t${a}`,
      dependsOnId: outside ? 'outside' : `t${int(0, a - 1)}`,
      type: TYPES[int(0, 3)] as Dependency['type'],
      lagMin: grid(-30, 120),
    });
  }
  const fixed: FixedSlot[] = [{ id: 'outside', start: at(600), end: at(660) }];
  return {
    tasks,
    dependencies,
    fixed,
    free,
    window: { start: at(0), end: at(horizon) },
    now: at(int(0, 1) * 600),
  };
}
