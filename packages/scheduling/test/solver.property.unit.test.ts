import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  candidatesFor,
  checkProposal,
  type Interval,
  reflowSubtree,
  type SolverInput,
  type SolverTask,
  solve,
  solveGreedy,
  subtractIntervals,
} from '../src/index.js';
import { seeded } from './property-seed.js';
import { generateInstance } from './solver-instances.js';
import { at, compareCounts, edfGreedyCounts, instance, placedCounts, treeOf, violations } from './solver-oracle.js';
import { compareObjectives, objectiveOf } from './solver-reference.js';

const reflowProperty = fc.property(instance, fc.integer({ min: -30, max: 30 }), (input, shift) => {
  const result = solve(input);
  const tree = treeOf(input.tasks);
  const root = input.tasks.find(
    (t) => !tree.blockParent(t) && tree.kids(t.id).length > 0 && result.placements.some((p) => p.taskId === t.id),
  );
  if (!root) return;
  const rootSlot = result.placements.find((p) => p.taskId === root.id) as (typeof result.placements)[number];
  const inBlock = (id: string) => {
    const task = tree.byId.get(id);
    return task !== undefined && tree.isAncestor(root.id, task);
  };
  const others = result.placements.filter((p) => p.taskId !== root.id && !inBlock(p.taskId));
  // Free time without the other placements (the subtree's own slots are being replaced); the root's end
  // moved by `shift` minutes so children sometimes no longer fit.
  const free = subtractIntervals(
    input.free,
    others.map((p): Interval => ({ start: p.start, end: p.end })),
  );
  const end = new Date(Math.max(rootSlot.start.getTime(), rootSlot.end.getTime() + shift * 60_000));
  const reflowInput = {
    ...input,
    free,
    fixed: [...(input.fixed ?? []), ...others.map((p) => ({ id: p.taskId, start: p.start, end: p.end }))],
    root: { id: root.id, start: rootSlot.start, end },
  };
  const r = reflowSubtree(reflowInput);
  const descendants = input.tasks
    .filter((t) => inBlock(t.id))
    .map((t) => t.id)
    .sort();
  expect([...r.placements.map((p) => p.taskId), ...r.unscheduled.map((u) => u.taskId)].sort()).toEqual(
    expect.arrayContaining(descendants.filter((id) => tree.open(tree.byId.get(id)))),
  );
  for (const p of r.placements) {
    expect(p.start.getTime()).toBeGreaterThanOrEqual(rootSlot.start.getTime() + root.durationMin * 60_000);
    expect(p.end.getTime()).toBeLessThanOrEqual(end.getTime());
  }
  // Children of the root: in sort order, never overlapping.
  const kids = tree.kids(root.id).flatMap((k) => r.placements.filter((p) => p.taskId === k.id));
  for (let i = 1; i < kids.length; i++)
    expect((kids[i] as (typeof kids)[number]).start.getTime()).toBeGreaterThanOrEqual(
      (kids[i - 1] as (typeof kids)[number]).end.getTime(),
    );
  // Hard rules (the independent checker's block rule holds for the children's own blocks).
  const rootPlacement = { taskId: root.id, start: rootSlot.start, end };
  const ruleInput = {
    ...input,
    fixed: reflowInput.fixed,
    free,
  };
  expect(violations(ruleInput, r.placements, [rootPlacement])).toEqual([]);
  // With its own slot kept, every descendant the solver placed fits again, unless a dependency points forward
  // or (when the slot grew) a descendant depends on the root's finish: that dependency holds against the slot
  // the root keeps, so a longer slot moves the descendant's earliest start later by `shift`, and it may then
  // miss the end of working time (seed -1342299445: a child finish-to-finish on its parent).
  const forward = input.dependencies.some((d) => inBlock(d.taskId) && inBlock(d.dependsOnId));
  const onRootFinish = input.dependencies.some(
    (d) =>
      inBlock(d.taskId) && d.dependsOnId === root.id && (d.type === 'finish_to_start' || d.type === 'finish_to_finish'),
  );
  if (shift >= 0 && !forward && (shift === 0 || !onRootFinish))
    expect(r.placements.length).toBe(result.placements.filter((p) => inBlock(p.taskId)).length);
});

describe('solver properties', () => {
  it('never breaks a hard rule or the block rule and accounts for every task exactly once', () => {
    const outcomes = new Map<string, number>();
    const bump = (k: string) => outcomes.set(k, (outcomes.get(k) ?? 0) + 1);
    fc.assert(
      fc.property(instance, (input) => {
        const result = solve(input);
        expect(violations(input, result.placements)).toEqual([]);
        const seen = [...result.placements.map((p) => p.taskId), ...result.unscheduled.map((u) => u.taskId)].sort();
        expect(seen).toEqual(input.tasks.map((t) => t.id).sort());
        for (const p of result.placements) {
          expect(p.explanation).toMatch(
            /^(now|window_start|earliest_start|busy_or_working_hours|dependency:.+|after:.+|block:.+)$/,
          );
          bump(p.explanation.replace(/:.*/, ''));
        }
        for (const u of result.unscheduled) bump(u.reason);
      }),
      seeded(500),
    );
    // The generator must reach every outcome, or the property above proves little.
    for (const k of [
      'block',
      'after',
      'dependency',
      'earliest_start',
      'busy_or_working_hours',
      'now',
      'no_slot_in_window',
      'no_slot_before_deadline',
      'blocked_by_dependency',
      'not_schedulable',
      'no_duration',
    ])
      expect(outcomes.get(k) ?? 0, k).toBeGreaterThan(0);
  });

  it('places at least what earliest-deadline-first greedy over blocks places, priority by priority', () => {
    fc.assert(
      fc.property(instance, (input) => {
        const counts = placedCounts(input, solve(input).placements);
        expect(compareCounts(counts, edfGreedyCounts(input))).toBeGreaterThanOrEqual(0);
      }),
      seeded(500),
    );
  });

  it('on 20-30-task runs (where the neighbourhood search decides) keeps every rule and no greedy baseline beats it', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 31 - 1 }), fc.integer({ min: 20, max: 30 }), (seed, tasks) => {
        const input = generateInstance(seed, { tasks, days: 3, load: 1.4 });
        const result = solve(input);
        expect(violations(input, result.placements)).toEqual([]);
        const mine = objectiveOf(input, result.placements);
        for (const rule of ['edf', 'priority', 'shortest'] as const)
          expect(compareObjectives(mine, objectiveOf(input, solveGreedy(input, rule).placements))).toBeLessThanOrEqual(
            0,
          );
      }),
      seeded(4),
    );
  }, 60_000);

  it('the rule checker itself catches a broken placement and a broken block', () => {
    const input: SolverInput = {
      tasks: [
        { id: 'a', durationMin: 30, priority: 3, status: 'pending', sortOrder: 0, deadline: at(100) },
        { id: 'b', durationMin: 10, priority: 3, status: 'pending', sortOrder: 0, parentId: 'a' },
      ],
      dependencies: [],
      free: [
        { start: at(0), end: at(60) },
        { start: at(60), end: at(200) },
      ],
      window: { start: at(0), end: at(200) },
      now: at(0),
    };
    const slot = (taskId: string, from: number, to: number) => ({ taskId, start: at(from), end: at(to) });
    expect(violations(input, [slot('a', 30, 70), slot('b', 60, 70)])).toEqual(['a: not inside one free interval']);
    expect(violations(input, [slot('a', 70, 110), slot('b', 100, 110)])).toEqual(['a: after deadline']);
    expect(violations(input, [slot('a', 0, 40), slot('b', 20, 30)])).toEqual(['b: not at its place in a']);
    expect(violations(input, [slot('a', 0, 40), slot('b', 30, 45)])).toEqual(['b: not at its place in a', 'b: length']);
  });

  it('offers only candidates that keep every hard rule next to the placed tasks, and checkProposal agrees', () => {
    fc.assert(
      fc.property(instance, fc.integer({ min: 1, max: 24 }), (input, units) => {
        const placed = solve(input).placements;
        const extra: SolverTask = {
          id: 'extra',
          durationMin: units * 5,
          priority: 3,
          status: 'pending',
          sortOrder: 99,
        };
        const fixed = placed.map((p) => ({ id: p.taskId, start: p.start, end: p.end }));
        const slots = candidatesFor(extra, input, fixed);
        expect(slots.length).toBeLessThanOrEqual(5);
        const withExtra = { ...input, tasks: [...input.tasks, extra] };
        for (const slot of slots) {
          expect(violations(withExtra, [...placed, { taskId: 'extra', ...slot }])).toEqual([]);
          expect(checkProposal(withExtra, 'extra', slot.start, fixed).breaches).toEqual([]);
        }
      }),
      seeded(200),
    );
  });

  it('checkProposal finds a breach exactly when the independent checker does', () => {
    fc.assert(
      fc.property(instance, fc.integer({ min: 0, max: 3000 }), (input, minute) => {
        const result = solve(input);
        const tree = treeOf(input.tasks);
        const placedIds = new Set(result.placements.map((p) => p.taskId));
        // Move one placed root block to a random start and compare both checkers' verdicts.
        const root = input.tasks.find((t) => placedIds.has(t.id) && !tree.blockParent(t));
        if (!root) return;
        const inBlock = (id: string) => id === root.id || tree.isAncestor(root.id, tree.byId.get(id) as SolverTask);
        const others = result.placements.filter((p) => !inBlock(p.taskId));
        const taken = others.map((p) => ({ id: p.taskId, start: p.start, end: p.end }));
        const check = checkProposal(input, root.id, at(minute), taken);
        const proposed = check.slots.map((s) => ({ taskId: s.id, start: s.start, end: s.end }));
        const independent = violations(input, proposed, others);
        expect(check.breaches.length === 0).toBe(independent.length === 0);
      }),
      seeded(300),
    );
  });

  it('reflow keeps descendants inside the root slot, in sort order, under every hard rule', () => {
    fc.assert(reflowProperty, seeded(400));
  });

  it('reflow property, regression seed -1342299445: a child finish-to-finish on its root when the kept slot grew', () => {
    fc.assert(reflowProperty, seeded(400, -1342299445));
  });
});
