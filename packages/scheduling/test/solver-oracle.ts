/**
 * Independent re-statements of the contract for the property tests: every hard rule and the block rule
 * checked from scratch, and plain earliest-deadline-first greedy over blocks (the baseline the solver must
 * never lose to). Written without the solver's modules on purpose; only the interval algebra is shared.
 */
import fc from 'fast-check';
import {
  type Dependency,
  findContainingInterval,
  type Interval,
  mergeIntervals,
  roundUpToFiveMinutes,
  type SolverInput,
  type SolverTask,
  subtractIntervals,
} from '../src/index.js';

const T0 = Date.parse('2027-03-22T00:00:00Z');
export const at = (min: number) => new Date(T0 + min * 60_000);
const DEP_TYPES = ['finish_to_start', 'start_to_start', 'finish_to_finish', 'start_to_finish'] as const;
const CLOSED = new Set(['done', 'skipped', 'cancelled']);
const MIN = 60_000;

export const instance = fc
  .record({
    n: fc.integer({ min: 1, max: 8 }),
    tasks: fc.array(
      fc.record({
        duration: fc.integer({ min: 0, max: 24 }),
        priority: fc.integer({ min: 1, max: 5 }),
        deadline: fc.option(fc.integer({ min: 0, max: 3000 }), { nil: undefined }),
        release: fc.option(fc.integer({ min: 0, max: 2500 }), { nil: undefined }),
        status: fc.constantFrom(
          'pending',
          'pending',
          'pending',
          'pending',
          'scheduled',
          'scheduled',
          'done',
          'skipped',
        ),
        // Index of the parent among the earlier tasks (none when >= own index), and the place among siblings.
        parent: fc.option(fc.integer({ min: 0, max: 7 }), { nil: undefined, freq: 2 }),
        sortOrder: fc.integer({ min: 0, max: 3 }),
      }),
      { minLength: 8, maxLength: 8 },
    ),
    deps: fc.array(
      fc.record({
        a: fc.integer({ min: 0, max: 7 }),
        b: fc.integer({ min: 0, max: 8 }),
        type: fc.constantFrom(...DEP_TYPES),
        lag: fc.integer({ min: -30, max: 120 }),
      }),
      { maxLength: 8 },
    ),
    // Working hours as (gap, length) pieces from T0, busy time cut out of them.
    hours: fc.array(fc.tuple(fc.constantFrom(0, 0, 15, 60, 240, 600), fc.integer({ min: 30, max: 480 })), {
      minLength: 4,
      maxLength: 12,
    }),
    busy: fc.array(fc.tuple(fc.integer({ min: 0, max: 3000 }), fc.integer({ min: 5, max: 120 })), { maxLength: 6 }),
    window: fc.tuple(fc.integer({ min: 0, max: 600 }), fc.integer({ min: 300, max: 3000 })),
    nowSec: fc.integer({ min: 0, max: 800 * 60 }),
    fixedPred: fc.option(fc.integer({ min: 0, max: 2800 }), { nil: undefined }),
  })
  .map((r): SolverInput => {
    const tasks: SolverTask[] = r.tasks.slice(0, r.n).map((t, i) => ({
      id: `t${i}`,
      durationMin: t.duration * 5,
      priority: t.priority,
      deadline: t.deadline === undefined ? undefined : at(t.deadline),
      earliestStart: t.release === undefined ? undefined : at(t.release),
      status: t.status,
      // Parents point to earlier tasks only, so trees have no cycles.
      parentId: t.parent !== undefined && t.parent < i ? `t${t.parent}` : undefined,
      sortOrder: t.sortOrder * 10 + i,
    }));
    // b = 8 names the predecessor outside the run; b = 7 a self-loop (a cycle); otherwise edges point to lower
    // indices.
    const dependencies: Dependency[] = r.deps
      .filter((d) => d.a < r.n)
      .map((d) => ({
        taskId: `t${d.a}`,
        dependsOnId: d.b === 8 || d.a === 0 ? 'outside' : d.b === 7 ? `t${d.a}` : `t${d.b % d.a}`,
        type: d.type,
        lagMin: d.lag,
      }));
    // Working-hours pieces laid end to end after gaps; a zero gap makes touching pieces a slot may not straddle.
    const pieces: Interval[] = [];
    let cursor = 0;
    for (const [gap, len] of r.hours) {
      pieces.push({ start: at(cursor + gap), end: at(cursor + gap + len) });
      cursor += gap + len;
    }
    const busy = mergeIntervals(r.busy.map(([s, len]) => ({ start: at(s), end: at(s + len) })));
    const [ws, wlen] = r.window;
    return {
      tasks,
      dependencies,
      fixed: r.fixedPred === undefined ? [] : [{ id: 'outside', start: at(r.fixedPred), end: at(r.fixedPred + 45) }],
      free: subtractIntervals(pieces, busy),
      window: { start: at(ws), end: at(ws + wlen) },
      now: new Date(T0 + r.nowSec * 1000),
    };
  });

/** Task tree facts: open children in sort order, spans (own + open children's spans), ancestry. */
export function treeOf(tasks: readonly SolverTask[]) {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const open = (t: SolverTask | undefined) => t !== undefined && !CLOSED.has(t.status);
  const kids = (id: string) =>
    tasks
      .filter((t) => t.parentId === id && open(t))
      .sort((a, b) => a.sortOrder - b.sortOrder || (a.id < b.id ? -1 : 1));
  const span = (t: SolverTask): number =>
    Math.max(0, t.durationMin) * MIN + kids(t.id).reduce((s, c) => s + span(c), 0);
  /** The open parent a task is placed inside, if any. */
  const blockParent = (t: SolverTask) =>
    t.parentId !== undefined && open(byId.get(t.parentId)) ? byId.get(t.parentId) : undefined;
  const isAncestor = (a: string, b: SolverTask): boolean => {
    for (let p = blockParent(b); p; p = blockParent(p)) if (p.id === a) return true;
    return false;
  };
  return { byId, open, kids, span, blockParent, isAncestor };
}

type Slot = { taskId: string; start: Date; end: Date };

/** Every hard rule of the contract and the block rule, checked from scratch against the input. */
export function violations(
  input: SolverInput,
  placements: readonly Slot[],
  extraSlots: readonly Slot[] = [],
): string[] {
  const out: string[] = [];
  const tree = treeOf(input.tasks);
  const slots = new Map<string, { start: number; end: number }>();
  for (const f of input.fixed ?? []) slots.set(f.id, { start: f.start.getTime(), end: f.end.getTime() });
  for (const p of [...extraSlots, ...placements])
    slots.set(p.taskId, { start: p.start.getTime(), end: p.end.getTime() });
  const done = new Set([
    ...(input.doneTaskIds ?? []),
    ...input.tasks.filter((t) => t.status === 'done').map((t) => t.id),
  ]);
  const seen = new Set<string>();
  for (const p of placements) {
    const s = p.start.getTime();
    const e = p.end.getTime();
    const task = tree.byId.get(p.taskId);
    if (seen.has(p.taskId)) out.push(`${p.taskId}: placed twice`);
    seen.add(p.taskId);
    if (!task) {
      out.push(`${p.taskId}: unknown`);
      continue;
    }
    if (!tree.open(task)) out.push(`${p.taskId}: closed`);
    if (e - s !== tree.span(task) || e <= s) out.push(`${p.taskId}: length`);
    if (p.start < input.window.start || p.end > input.window.end) out.push(`${p.taskId}: outside window`);
    if (s < roundUpToFiveMinutes(input.now)) out.push(`${p.taskId}: before now`);
    if (findContainingInterval(input.free, p) < 0) out.push(`${p.taskId}: not inside one free interval`);
    for (const q of [...extraSlots, ...placements])
      if (
        q !== p &&
        q.start < p.end &&
        p.start < q.end &&
        !tree.isAncestor(q.taskId, task) &&
        !(tree.byId.get(q.taskId) && tree.isAncestor(p.taskId, tree.byId.get(q.taskId) as SolverTask))
      )
        out.push(`${p.taskId}: overlaps ${q.taskId}`);
    if (task.earliestStart && p.start < task.earliestStart) out.push(`${p.taskId}: before earliest start`);
    if (task.deadline && p.end > task.deadline) out.push(`${p.taskId}: after deadline`);
    for (const d of input.dependencies.filter((x) => x.taskId === p.taskId)) {
      if (done.has(d.dependsOnId)) continue;
      const pred = slots.get(d.dependsOnId);
      const lag = d.lagMin * MIN;
      const ok =
        pred !== undefined &&
        {
          finish_to_start: s >= pred.end + lag,
          start_to_start: s >= pred.start + lag,
          finish_to_finish: e >= pred.end + lag,
          start_to_finish: e >= pred.start + lag,
        }[d.type];
      if (!ok) out.push(`${p.taskId}: ${d.type} on ${d.dependsOnId}`);
    }
    // Block rule: own duration first, then each open child's block in sort order, contiguously.
    let cursor = s + Math.max(0, task.durationMin) * MIN;
    for (const child of tree.kids(task.id)) {
      const c = slots.get(child.id);
      const childSpan = tree.span(child);
      if (childSpan === 0) continue;
      if (!c || c.start !== cursor || c.end !== cursor + childSpan)
        out.push(`${child.id}: not at its place in ${task.id}`);
      cursor += childSpan;
    }
  }
  return out;
}

export type OracleMember = { task: SolverTask; off: number; span: number };

/** The run's blocks, built from the contract's words (independently of solver-blocks.ts). */
export function oracleUnits(input: SolverInput) {
  const tree = treeOf(input.tasks);
  const done = new Set([
    ...(input.doneTaskIds ?? []),
    ...input.tasks.filter((t) => t.status === 'done').map((t) => t.id),
  ]);
  type Member = OracleMember;
  return input.tasks
    .filter((t) => tree.open(t) && !tree.blockParent(t) && tree.span(t) > 0)
    .map((root) => {
      const members: Member[] = [];
      const walk = (t: SolverTask, off: number) => {
        members.push({ task: t, off, span: tree.span(t) });
        let c = off + Math.max(0, t.durationMin) * MIN;
        for (const k of tree.kids(t.id)) {
          walk(k, c);
          c += tree.span(k);
        }
      };
      walk(root, 0);
      const timed = members.filter((m) => m.span > 0);
      const d = tree.span(root);
      const inside = new Map(timed.map((m) => [m.task.id, m]));
      const all = new Set(members.map((m) => m.task.id));
      const deps = input.dependencies.filter((x) => inside.has(x.taskId));
      const brokenInside = deps.some((x) => {
        if (!all.has(x.dependsOnId) || done.has(x.dependsOnId)) return false;
        const pr = inside.get(x.dependsOnId);
        const me = inside.get(x.taskId) as Member;
        if (!pr) return true;
        const need = {
          finish_to_start: pr.off + pr.span,
          start_to_start: pr.off,
          finish_to_finish: pr.off + pr.span - me.span,
          start_to_finish: pr.off - me.span,
        }[x.type];
        return me.off < need + x.lagMin * MIN;
      });
      return {
        root,
        timed,
        d,
        external: deps.filter((x) => !all.has(x.dependsOnId)),
        brokenInside,
        deadline: Math.min(
          ...timed.map((m) => (m.task.deadline?.getTime() ?? Number.POSITIVE_INFINITY) + d - m.off - m.span),
        ),
        release: Math.max(...timed.map((m) => (m.task.earliestStart?.getTime() ?? Number.NEGATIVE_INFINITY) - m.off)),
        priority: Math.min(...timed.map((m) => m.task.priority)),
      };
    })
    .filter((u) => !u.brokenInside);
}

/**
 * Plain EDF greedy over blocks, written independently of the solver: the baseline it must never lose to. Answers
 * the placed tasks per priority (index 0 is priority 1), the first part of the contract's objective.
 */
export function edfGreedyCounts(input: SolverInput): number[] {
  const done = new Set([
    ...(input.doneTaskIds ?? []),
    ...input.tasks.filter((t) => t.status === 'done').map((t) => t.id),
  ]);
  type Member = OracleMember;
  const units = oracleUnits(input);
  const unitOf = new Map<string, (typeof units)[number]>();
  for (const u of units) for (const m of u.timed) unitOf.set(m.task.id, u);
  const slots = new Map((input.fixed ?? []).map((f) => [f.id, { start: f.start.getTime(), end: f.end.getTime() }]));
  const settled = new Set<string>();
  let free = input.free.slice();
  const counts = [0, 0, 0, 0, 0];
  const from = Math.max(input.window.start.getTime(), roundUpToFiveMinutes(input.now));
  const key = (u: (typeof units)[number]) => [u.deadline, u.priority, u.release, u.root.sortOrder];
  for (;;) {
    const ready = units.filter(
      (u) =>
        !settled.has(u.root.id) &&
        u.external.every(
          (x) =>
            done.has(x.dependsOnId) ||
            !unitOf.has(x.dependsOnId) ||
            settled.has(unitOf.get(x.dependsOnId)?.root.id ?? ''),
        ),
    );
    if (ready.length === 0) return counts;
    ready.sort((a, b) => {
      const ka = key(a);
      const kb = key(b);
      for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return (ka[i] as number) < (kb[i] as number) ? -1 : 1;
      return a.root.id < b.root.id ? -1 : 1;
    });
    const u = ready[0] as (typeof units)[number];
    settled.add(u.root.id);
    let lb = Math.max(from, u.release);
    let blocked = false;
    for (const x of u.external.filter((y) => !done.has(y.dependsOnId))) {
      const pred = slots.get(x.dependsOnId);
      const me = u.timed.find((m) => m.task.id === x.taskId) as Member;
      if (!pred) blocked = true;
      else {
        const lag = x.lagMin * MIN;
        const need = {
          finish_to_start: pred.end + lag,
          start_to_start: pred.start + lag,
          finish_to_finish: pred.end + lag - me.span,
          start_to_finish: pred.start + lag - me.span,
        }[x.type];
        lb = Math.max(lb, need - me.off);
      }
    }
    if (blocked) continue;
    const until = Math.min(input.window.end.getTime(), u.deadline);
    const hit = free
      .map((f) => Math.max(f.start.getTime(), lb))
      .findIndex((s, i) => s + u.d <= until && s + u.d <= (free[i] as Interval).end.getTime());
    if (hit < 0) continue;
    const start = Math.max((free[hit] as Interval).start.getTime(), lb);
    for (const m of u.timed) slots.set(m.task.id, { start: start + m.off, end: start + m.off + m.span });
    free = subtractIntervals(free, [{ start: new Date(start), end: new Date(start + u.d) }]);
    for (const m of u.timed) counts[m.task.priority - 1] = (counts[m.task.priority - 1] as number) + 1;
  }
}

/** Placed tasks per priority (index 0 is priority 1). */
export function placedCounts(input: SolverInput, placements: readonly Slot[]): number[] {
  const counts = [0, 0, 0, 0, 0];
  const byId = new Map(input.tasks.map((t) => [t.id, t]));
  for (const p of placements) {
    const k = (byId.get(p.taskId)?.priority ?? 5) - 1;
    counts[k] = (counts[k] as number) + 1;
  }
  return counts;
}

/** Compares per-priority counts lexicographically: positive when `a` is better (more of a higher priority). */
export function compareCounts(a: readonly number[], b: readonly number[]): number {
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return (a[k] as number) - (b[k] as number);
  return 0;
}
