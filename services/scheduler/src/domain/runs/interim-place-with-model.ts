/**
 * INTERIM, replaced at merge by `placeWithModel` of @routinely/llm (the agent of issue 13, built on another
 * branch): a minimal implementation of the `ModelPlacer` seam so model runs work and are tested end to end
 * against the fake model server. It asks the model once, takes a pick only when it is one of the task's
 * candidates, overlaps no other pick and satisfies the dependencies between picks, and lets the solver place
 * every other task.
 */
import { type ChooseSlotsRequest, ModelCallError, matchPicks } from '@routinely/llm';
import {
  candidatesFor,
  type Dependency,
  dependencySatisfied,
  type FixedSlot,
  mergeIntervals,
  type SolverInput,
  solve,
  subtractIntervals,
} from '@routinely/scheduling';
import type { ModelPlacement, ModelPlacementArgs, ModelPlacementResult } from './model-placer.js';

const ms = (s: { start: Date; end: Date }) => ({ start: s.start.getTime(), end: s.end.getTime() });
const overlaps = (a: { start: Date; end: Date }, b: { start: Date; end: Date }) => a.start < b.end && b.start < a.end;

function withTaken(input: SolverInput, taken: readonly FixedSlot[]): SolverInput {
  const busy = mergeIntervals(taken.map((s) => ({ start: s.start, end: s.end })));
  return { ...input, fixed: [...(input.fixed ?? []), ...taken], free: subtractIntervals(input.free, busy) };
}

function depsHold(deps: readonly Dependency[], slot: FixedSlot, known: Map<string, FixedSlot>): boolean {
  return deps
    .filter((d) => d.taskId === slot.id)
    .every((d) => {
      const pred = known.get(d.dependsOnId);
      return pred ? dependencySatisfied(d, ms(pred), ms(slot)) : true;
    });
}

export async function interimPlaceWithModel(args: ModelPlacementArgs): Promise<ModelPlacementResult> {
  const placed = args.placed ?? [];
  const base = withTaken(args.input, placed);
  const request: ChooseSlotsRequest = { tasks: [] };
  for (const task of base.tasks) {
    const candidates = candidatesFor(task, base, []);
    if (candidates.length === 0) continue;
    request.tasks.push({
      task_id: task.id,
      title: args.titles.get(task.id) ?? '',
      priority: task.priority,
      duration_min: task.durationMin,
      deadline_at: task.deadline?.toISOString() ?? null,
      candidates: candidates.map((c, index) => ({ index, start: c.start.toISOString(), end: c.end.toISOString() })),
    });
  }
  const accepted: ModelPlacement[] = [];
  const why = new Map<string, string>();
  let usage: ModelPlacementResult['usage'] = null;
  let failure: string | undefined;
  if (request.tasks.length > 0) {
    try {
      const answer = await args.adapter.chooseSlots(request, {
        timeoutMs: args.timeoutMs,
        ...(args.signal ? { signal: args.signal } : {}),
      });
      usage = answer.usage;
      const known = new Map([...(base.fixed ?? []), ...placed].map((s) => [s.id, s]));
      for (const pick of matchPicks(request, answer.answer)) {
        if (pick.status !== 'picked') {
          why.set(pick.task_id, pick.detail);
          continue;
        }
        const slot = { id: pick.task_id, start: new Date(pick.candidate.start), end: new Date(pick.candidate.end) };
        if (accepted.some((a) => overlaps(a, slot)) || !depsHold(base.dependencies, slot, known)) {
          why.set(pick.task_id, 'the model chose a slot that breaks a hard rule');
          continue;
        }
        known.set(slot.id, slot);
        accepted.push({
          taskId: slot.id,
          start: slot.start,
          end: slot.end,
          source: 'agent',
          rationale: pick.rationale,
        });
      }
    } catch (error) {
      if (!(error instanceof ModelCallError)) throw error;
      failure = `model call failed (${error.failure})`;
      if (error.extra.usage) usage = error.extra.usage;
    }
  }
  const rest = base.tasks.filter((t) => !accepted.some((a) => a.taskId === t.id));
  const fallback = solve({
    ...withTaken(
      base,
      accepted.map((a) => ({ id: a.taskId, start: a.start, end: a.end })),
    ),
    tasks: rest,
  });
  const solverPlacements = fallback.placements.map(
    (p): ModelPlacement => ({
      taskId: p.taskId,
      start: p.start,
      end: p.end,
      source: 'solver',
      rationale: `${failure ?? why.get(p.taskId) ?? 'the model had no candidate to choose'}; the solver placed it (bound by ${p.explanation})`,
    }),
  );
  return {
    placements: [...accepted, ...solverPlacements],
    unscheduled: fallback.unscheduled,
    usage,
    ...(failure ? { failure } : {}),
  };
}
