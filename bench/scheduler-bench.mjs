#!/usr/bin/env node
// The builtin solver alone (packages/scheduling, built: `pnpm exec turbo run build --filter=@routinely/scheduling`):
// 1. time per run for 100 / 1,000 / 5,000 tasks over 4 weeks of working hours with 1,000 busy intervals;
// 2. the solver's placed count against an exact brute-force optimum on 200 random 6-task instances.
//
//   npm run bench -- scheduler-bench.mjs        (optional env: SEED, RUNS_SMALL=200)
//
// The optimum tries every order of the 6 tasks, placing each at its earliest feasible start and skipping what
// does not fit: any feasible schedule, taken in start order and shifted left, is one of these, so the best
// count is exact. That argument needs every dependency to force the successor after the predecessor's start,
// hence lags of at least 5 minutes here.
import { mergeIntervals, solve, subtractIntervals } from '../packages/scheduling/dist/index.js';

const MIN = 60_000;
const DAY = 1440 * MIN;
const T0 = Date.UTC(2027, 0, 4); // a Monday
let seed = Number(process.env.SEED ?? 13);
const rand = () => {
  // mulberry32: reproducible instances for a given SEED
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const int = (lo, hi) => lo + Math.floor(rand() * (hi - lo + 1));
const at = (ms) => new Date(ms);

function largeInstance(taskCount) {
  const hours = [];
  for (let d = 0; d < 28; d++)
    if (d % 7 < 5) hours.push({ start: at(T0 + d * DAY + 9 * 60 * MIN), end: at(T0 + d * DAY + 17 * 60 * MIN) });
  const busy = Array.from({ length: 1000 }, () => {
    const s = T0 + int(0, 28 * 96 - 1) * 15 * MIN;
    return { start: at(s), end: at(s + int(1, 3) * 15 * MIN) };
  });
  const tasks = Array.from({ length: taskCount }, (_, i) => ({
    id: `t${i}`,
    durationMin: int(1, 24) * 5,
    priority: int(1, 5),
    deadline: rand() < 0.3 ? at(T0 + int(1, 28) * DAY) : undefined,
    earliestStart: rand() < 0.2 ? at(T0 + int(0, 20) * DAY) : undefined,
    status: 'pending',
    sortOrder: i,
  }));
  const dependencies = [];
  for (let i = 1; i < taskCount; i++)
    if (rand() < 0.1)
      dependencies.push({
        taskId: `t${i}`,
        dependsOnId: `t${int(0, i - 1)}`,
        type: 'finish_to_start',
        lagMin: int(0, 60),
      });
  return {
    tasks,
    dependencies,
    free: subtractIntervals(hours, mergeIntervals(busy)),
    window: { start: at(T0), end: at(T0 + 28 * DAY) },
    now: at(T0),
  };
}

const TYPES = ['finish_to_start', 'start_to_start', 'finish_to_finish', 'start_to_finish'];
function smallInstance() {
  const free = [];
  let cursor = 0;
  for (let k = int(2, 5); k > 0; k--) {
    const s = cursor + int(0, 6) * 15;
    const len = int(2, 12) * 15;
    free.push({ start: at(T0 + s * MIN), end: at(T0 + (s + len) * MIN) });
    cursor = s + len;
  }
  const tasks = Array.from({ length: 6 }, (_, i) => ({
    id: `t${i}`,
    durationMin: int(2, 18) * 5,
    priority: int(1, 5),
    deadline: rand() < 0.5 ? at(T0 + int(30, cursor) * MIN) : undefined,
    earliestStart: rand() < 0.3 ? at(T0 + int(0, cursor) * MIN) : undefined,
    status: 'pending',
    sortOrder: i,
  }));
  const dependencies = [];
  for (let i = 1; i < 6; i++)
    if (rand() < 0.25)
      dependencies.push({
        taskId: `t${i}`,
        dependsOnId: `t${int(0, i - 1)}`,
        type: TYPES[int(0, 3)],
        lagMin: int(1, 12) * 5,
      });
  return { tasks, dependencies, free, window: { start: at(T0), end: at(T0 + cursor * MIN) }, now: at(T0) };
}

function earliestStartFor(input, task, slots) {
  let lb = Math.max(input.window.start.getTime(), task.earliestStart?.getTime() ?? 0);
  const dur = task.durationMin * MIN;
  for (const d of input.dependencies) {
    if (d.taskId !== task.id) continue;
    const p = slots.get(d.dependsOnId);
    if (!p) return undefined;
    const lag = d.lagMin * MIN;
    const need = {
      finish_to_start: p.end + lag,
      start_to_start: p.start + lag,
      finish_to_finish: p.end + lag - dur,
      start_to_finish: p.start + lag - dur,
    }[d.type];
    lb = Math.max(lb, need);
  }
  return lb;
}

function placedInOrder(input, order) {
  let free = input.free;
  const slots = new Map();
  for (const task of order) {
    const lb = earliestStartFor(input, task, slots);
    if (lb === undefined) continue;
    const dur = task.durationMin * MIN;
    const until = Math.min(input.window.end.getTime(), task.deadline?.getTime() ?? Number.POSITIVE_INFINITY);
    for (const f of free) {
      const s = Math.max(f.start.getTime(), lb);
      if (s + dur <= f.end.getTime() && s + dur <= until) {
        slots.set(task.id, { start: s, end: s + dur });
        free = subtractIntervals(free, [{ start: at(s), end: at(s + dur) }]);
        break;
      }
    }
  }
  return slots.size;
}

function optimum(input) {
  let best = 0;
  const walk = (rest, order) => {
    if (rest.length === 0) {
      best = Math.max(best, placedInOrder(input, order));
      return;
    }
    for (let i = 0; i < rest.length; i++) walk([...rest.slice(0, i), ...rest.slice(i + 1)], [...order, rest[i]]);
  };
  walk(input.tasks, []);
  return best;
}

console.log('scheduler-bench: solver time per run, 4 weeks (Mon-Fri 09-17 UTC), 1,000 busy intervals');
const timing = [];
for (const [count, runs] of [
  [100, 20],
  [1000, 7],
  [5000, 3],
]) {
  const input = largeInstance(count);
  solve(input); // warm-up
  const times = [];
  let placed = 0;
  for (let r = 0; r < runs; r++) {
    const t = performance.now();
    placed = solve(input).placements.length;
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  const row = {
    tasks: count,
    free_intervals: input.free.length,
    runs,
    median_ms: +times[runs >> 1].toFixed(1),
    max_ms: +times[runs - 1].toFixed(1),
    placed,
  };
  timing.push(row);
  console.log(JSON.stringify(row));
}

const instances = Number(process.env.RUNS_SMALL ?? 200);
let matches = 0;
let below = 0;
for (let i = 0; i < instances; i++) {
  const input = smallInstance();
  const got = solve(input).placements.length;
  const best = optimum(input);
  if (got > best) throw new Error(`instance ${i}: solver ${got} above the optimum ${best}: the brute force is wrong`);
  if (got === best) matches++;
  else below++;
}
console.log(
  JSON.stringify({
    small_instances: instances,
    tasks_each: 6,
    matches_optimum: matches,
    below_optimum: below,
    share_matching: `${((100 * matches) / instances).toFixed(1)}%`,
  }),
);
