import type { ModelAdapter } from '@routinely/llm';
import { type FixedSlot, reflowSubtree, type SolverInput, solve, type UnscheduledReason } from '@routinely/scheduling';
import type { RunRow } from '../../db/runs-sql.js';
import type { ModelPlacer } from './model-placer.js';
import { nextFamilies, type RunPlan } from './run-plan.js';

export interface BatchDecision {
  taskId: string;
  start: Date;
  end: Date;
  source: 'agent' | 'solver';
  rationale: string;
}

export interface BatchOutcome {
  taskIds: string[];
  decisions: BatchDecision[];
  unscheduled: { task_id: string; reason: UnscheduledReason }[];
}

/** What placing one batch of a language-model run needs besides the plan. */
export interface ModelBatchDeps {
  adapter: ModelAdapter;
  placeWithModel: ModelPlacer;
  timeoutMs: number;
  /** Today's spend is still under the hard cap (checked before each call; a reservation is held). */
  reserve(): Promise<{ allowed: boolean; reservationId: string | null }>;
  record(usage: { inputTokens: number; outputTokens: number }, reservationId: string | null): Promise<void>;
}

const solverRationale = (explanation: string, why?: string) =>
  `${why ? `${why}; ` : ''}the solver's best schedule for the run (higher priorities first, then earlier starts) ` +
  `puts it at its earliest feasible slot (bound by ${explanation})`;

/** The solver over every task left (so batches agree with each other), keeping the decisions of `slice`. */
function solverBatch(input: SolverInput, slice: Set<string>, why?: string): Omit<BatchOutcome, 'taskIds'> {
  const result = solve(input);
  return {
    decisions: result.placements
      .filter((p) => slice.has(p.taskId))
      .map((p) => ({ ...p, source: 'solver' as const, rationale: solverRationale(p.explanation, why) })),
    unscheduled: result.unscheduled
      .filter((u) => slice.has(u.taskId))
      .map((u) => ({ task_id: u.taskId, reason: u.reason })),
  };
}

/**
 * Places the next `size` tasks of the plan. Builtin: the solver. A language model: one call for the batch
 * when today's spend is under the hard cap (its usage recorded at once with the run id), else the solver with
 * the reason in the rationale. A task the placement left out is unscheduled, so every batch settles its tasks.
 */
export async function placeBatch(
  run: Pick<RunRow, 'provider' | 'kind'>,
  plan: RunPlan,
  size: number,
  model: ModelBatchDeps | null,
): Promise<BatchOutcome> {
  if (run.kind === 'reflow') return reflowBatch(plan);
  const sliceTasks = nextFamilies(plan.remaining, plan.input.dependencies, size);
  const slice = new Set(sliceTasks.map((t) => t.id));
  let outcome: Omit<BatchOutcome, 'taskIds'>;
  if (run.provider === 'builtin' || !model) {
    outcome = solverBatch(plan.input, slice);
  } else {
    const hold = await model.reserve();
    if (!hold.allowed) {
      outcome = solverBatch(plan.input, slice, "today's model spend reached the hard cap");
    } else {
      const placed: FixedSlot[] = plan.decided;
      const result = await model.placeWithModel({
        adapter: model.adapter,
        input: { ...plan.input, tasks: sliceTasks },
        placed,
        titles: plan.titles,
        timeoutMs: model.timeoutMs,
      });
      if (result.usage) await model.record(result.usage, hold.reservationId);
      outcome = {
        decisions: result.placements.filter((p) => slice.has(p.taskId)),
        unscheduled: result.unscheduled
          .filter((u) => slice.has(u.taskId))
          .map((u) => ({ task_id: u.taskId, reason: u.reason })),
      };
    }
  }
  return settle(slice, outcome);
}

/** A task the placement left out is unscheduled, so every batch settles its tasks and a run always ends. */
function settle(slice: Set<string>, outcome: Omit<BatchOutcome, 'taskIds'>): BatchOutcome {
  const settled = new Set([...outcome.decisions.map((d) => d.taskId), ...outcome.unscheduled.map((u) => u.task_id)]);
  for (const id of slice) {
    if (!settled.has(id)) outcome.unscheduled.push({ task_id: id, reason: 'no_slot_in_window' });
  }
  return { taskIds: [...slice], ...outcome };
}

/**
 * A reflow run in one batch: `reflowSubtree` keeps the root's current slot and lays the descendants out in
 * `sort_order` inside it (ADR 053). The layout is fixed by the contract, so no model is asked whatever the
 * run's provider. A root that lost its slot since the run started leaves every descendant unscheduled.
 */
function reflowBatch(plan: RunPlan): BatchOutcome {
  const slice = new Set(plan.remaining.map((t) => t.id));
  if (!plan.root) return settle(slice, { decisions: [], unscheduled: [] });
  const { task, start, end } = plan.root;
  const result = reflowSubtree({ ...plan.input, tasks: [task, ...plan.remaining], root: { id: task.id, start, end } });
  return settle(slice, {
    decisions: result.placements
      .filter((p) => slice.has(p.taskId))
      .map((p) => ({
        ...p,
        source: 'solver' as const,
        rationale: `reflowed inside the slot of its root task (bound by ${p.explanation})`,
      })),
    unscheduled: result.unscheduled
      .filter((u) => slice.has(u.taskId))
      .map((u) => ({ task_id: u.taskId, reason: u.reason })),
  });
}
