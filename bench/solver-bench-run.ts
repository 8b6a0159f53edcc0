// Run by solver-bench.mjs (see there). Bands of seeded instances with every rule kind (solver-instances.ts).
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type SolverInput, type SolverTask, solve, solveGreedy } from '../packages/scheduling/src/index.js';
import { generateInstance } from '../packages/scheduling/test/solver-instances.js';
import { violations } from '../packages/scheduling/test/solver-oracle.js';
import {
  compareObjectives,
  exactObjective,
  type Objective,
  objectiveOf,
  ReferenceUnproven,
} from '../packages/scheduling/test/solver-reference.js';

const count = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const cpu = <T>(f: () => T): [T, number] => {
  const t0 = process.cpuUsage();
  const out = f();
  const used = process.cpuUsage(t0);
  return [out, (used.user + used.system) / 1000];
};
const pct = (a: number, b: number) => `${((100 * a) / b).toFixed(1)}%`;
const q = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))] ?? 0;

// The reference's optima, kept between runs by a hash of the instance (bench/results/ is git-ignored): a 20-30-task
// instance can take HiGHS minutes, the solver milliseconds. `unproven` marks an instance the time limit cut short.
const cacheFile = join(dirname(fileURLToPath(import.meta.url)), 'results', 'solver-reference-cache.json');
type Cached = Objective | 'unproven';
const cache: Record<string, Cached> = (() => {
  try {
    return JSON.parse(readFileSync(cacheFile, 'utf8'));
  } catch {
    return {};
  }
})();
const REFERENCE_SECONDS = count('REFERENCE_SECONDS', 240);

async function reference(input: SolverInput): Promise<Cached | Error> {
  const key = createHash('sha256').update(JSON.stringify(input)).digest('hex');
  const known = cache[key];
  if (known && (known !== 'unproven' || process.env.RETRY_UNPROVEN !== '1')) return known;
  const found: Cached | Error = await exactObjective(input, { timeLimitSec: REFERENCE_SECONDS }).catch(
    (error: Error) => (error instanceof ReferenceUnproven ? 'unproven' : error),
  );
  if (found instanceof Error) return found;
  cache[key] = found;
  mkdirSync(dirname(cacheFile), { recursive: true });
  // Only this entry is added to what is on disk: another bench process may have proved an instance this one read
  // as unproven when it started, and its stale copy must not overwrite that.
  let written: Record<string, Cached> = {};
  try {
    written = JSON.parse(readFileSync(cacheFile, 'utf8'));
  } catch {}
  writeFileSync(cacheFile, JSON.stringify({ ...written, [key]: found }));
  return found;
}

const BANDS = new Set((process.env.BANDS ?? 'small,mid,medium,overload,scale,chain').split(','));

async function optimality(label: string, seeds: number, lo: number, hi: number, days: number, base: number, first = 0) {
  if (seeds <= first) return;
  let atOptimum = 0;
  let countsMatch = 0;
  let broken = 0;
  let unproven = 0;
  let failed = 0;
  const times: number[] = [];
  for (let k = first; k < seeds; k++) {
    const seed = base + k;
    const tasks = lo + (k % (hi - lo + 1));
    const input = generateInstance(seed, { tasks, days, load: 1.4 });
    const [result, ms] = cpu(() => solve(input));
    times.push(ms);
    if (violations(input, result.placements).length > 0) broken++;
    const mine = objectiveOf(input, result.placements);
    const ref = await reference(input);
    if (ref instanceof Error) {
      console.log(`  seed ${seed}: the reference failed (${ref.message}); left out`);
      failed++;
      continue;
    }
    if (ref === 'unproven') {
      console.log(
        `  seed ${seed} (${tasks} tasks): the reference did not prove an optimum in ${REFERENCE_SECONDS} s; left out`,
      );
      unproven++;
      continue;
    }
    if (compareObjectives(mine, ref) < 0) throw new Error(`seed ${seed}: solver above the reference`);
    if (compareObjectives(mine, ref) === 0) atOptimum++;
    else
      console.log(
        `  seed ${seed} (${tasks} tasks) misses: counts ${mine.counts.join('/')} vs ${ref.counts.join('/')}, start sums ${mine.startSums.join('/')} vs ${ref.startSums.join('/')}`,
      );
    if (JSON.stringify(mine.counts) === JSON.stringify(ref.counts)) countsMatch++;
  }
  const proven = seeds - first - unproven - failed;
  console.log(
    `${label.padEnd(14)} ${String(proven).padStart(5)}  at optimum ${atOptimum} (${pct(atOptimum, proven)})  counts ${pct(countsMatch, proven)}  rule breaches ${broken}  CPU ms p50 ${q(times, 0.5).toFixed(1)} p95 ${q(times, 0.95).toFixed(1)} max ${Math.max(...times).toFixed(1)}  (reference unproven ${unproven}, failed ${failed})`,
  );
}

function overload(seeds: number) {
  if (seeds === 0) return;
  let neverWorse = 0;
  const ratios: number[] = [];
  for (let k = 0; k < seeds; k++) {
    const tasks = k % 2 === 0 ? 200 : 1000;
    const input = generateInstance(9000 + k, { tasks, days: k % 2 === 0 ? 5 : 10, load: 13.5, deps: 0.2 });
    const [result, ms] = cpu(() => solve(input));
    const mine = objectiveOf(input, result.placements);
    const greedy = (['edf', 'priority', 'shortest'] as const).map((r) =>
      objectiveOf(input, solveGreedy(input, r).placements),
    );
    const bestGreedy = greedy.sort(compareObjectives)[0] as ReturnType<typeof objectiveOf>;
    if (compareObjectives(mine, bestGreedy) <= 0) neverWorse++;
    ratios.push((mine.counts[0] as number) / Math.max(1, bestGreedy.counts[0] as number));
    console.log(
      `  overload ${tasks} tasks: p1..p5 placed ${mine.counts.join('/')} vs best greedy ${bestGreedy.counts.join('/')}  CPU ${ms.toFixed(0)} ms`,
    );
  }
  console.log(
    `overload: not worse than the best greedy in ${neverWorse}/${seeds}; p1 ratio to it min ${Math.min(...ratios).toFixed(2)}`,
  );
}

function scale(tasks: number, days: number) {
  const input = generateInstance(500 + tasks, { tasks, days, load: 1.5, deps: 0.2 });
  solve(input); // warm-up
  const runs: number[] = [];
  let placed = 0;
  for (let k = 0; k < 5; k++) {
    const [r, ms] = cpu(() => solve(input));
    placed = r.placements.length;
    runs.push(ms);
  }
  console.log(
    `scale ${String(tasks).padStart(5)} tasks over ${days} days: CPU ms median ${q(runs, 0.5).toFixed(1)} (placed ${placed})`,
  );
}

function chain(n: number) {
  const T0 = Date.parse('2027-03-22T00:00:00Z');
  const at = (m: number) => new Date(T0 + m * 60_000);
  const tasks: SolverTask[] = Array.from({ length: n }, (_, i) => ({
    id: `c${i}`,
    durationMin: 5,
    priority: 3,
    status: 'pending',
    sortOrder: i,
  }));
  const input: SolverInput = {
    tasks,
    dependencies: tasks
      .slice(1)
      .map((t, i) => ({ taskId: t.id, dependsOnId: `c${i}`, type: 'finish_to_start', lagMin: 0 })),
    free: Array.from({ length: 90 }, (_, d) => ({ start: at(d * 1440 + 540), end: at(d * 1440 + 1020) })),
    window: { start: at(0), end: at(90 * 1440) },
    now: at(0),
  };
  const [r, ms] = cpu(() => solve(input));
  console.log(
    `chain of ${n}: placed ${r.placements.length}, unscheduled ${r.unscheduled.length}, CPU ${ms.toFixed(0)} ms`,
  );
}

console.log('solver-bench: share at the optimum of the contract objective (HiGHS reference), per band');
if (BANDS.has('small')) await optimality('6-9 tasks', count('SMALL', 40), 6, 9, 2, 1000);
if (BANDS.has('mid')) await optimality('10-14 tasks', count('SMALL', 40), 10, 14, 2, 2000);
if (BANDS.has('medium')) await optimality('20-30 tasks', count('MEDIUM', 24), 20, 30, 3, 3000, count('MEDIUM_FROM', 0));
if (BANDS.has('overload')) overload(count('OVERLOAD', 10));
if (BANDS.has('scale'))
  for (const [n, d] of [
    [100, 28],
    [1000, 28],
    [5000, 28],
  ] as const)
    scale(n, d);
if (BANDS.has('chain')) chain(10_000);
