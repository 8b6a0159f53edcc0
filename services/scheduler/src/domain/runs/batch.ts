import type { Sql } from '@routinely/db';
import type { ModelAdapter, placeWithModel, Usage } from '@routinely/llm';
import { reflowSubtree, type SolverInput, solve, type UnscheduledReason } from '@routinely/scheduling';
import type { RunRow } from '../../db/runs-sql.js';
import { nextFamilies, type RunPlan } from './run-plan.js';

interface BatchDecision {
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
  /** What the batch's model call billed, with the reservation it settles: recorded with the decisions. */
  usage?: BilledCall | undefined;
}

interface BilledCall extends Usage {
  reservationId: string | null;
}

/** What placing one batch of a language-model run needs besides the plan. */
export interface ModelBatchDeps {
  adapter: ModelAdapter;
  placeWithModel: typeof placeWithModel;
  timeoutMs: number;
  /**
   * Holds the call's budget (the most it can bill, priced) against the hard cap just before the call; refused
   * once today's spend and open holds reached the cap.
   */
  reserve(budget: Usage): Promise<{ allowed: boolean; reservationId: string | null }>;
  /** Gives back the hold of a call that billed nothing (no answer came). */
  release(reservationId: string): Promise<void>;
  /** Records what the call billed, settling its hold, inside the transaction that writes the batch. */
  record(sql: Sql, call: BilledCall): Promise<void>;
}

const HARD_CAP_REACHED = "today's model spend reached the hard cap";

const solverRationale = (explanation: string) =>
  "the solver's best schedule for the run (higher priorities first, then earlier starts) puts it at its " +
  `earliest feasible slot (bound by ${explanation})`;

/** The solver over every task left (so batches agree with each other), keeping the decisions of `slice`. */
function solverBatch(input: SolverInput, slice: Set<string>): Omit<BatchOutcome, 'taskIds'> {
  const result = solve(input);
  return {
    decisions: result.placements
      .filter((p) => slice.has(p.taskId))
      .map((p) => ({ ...p, source: 'solver' as const, rationale: solverRationale(p.explanation) })),
    unscheduled: result.unscheduled
      .filter((u) => slice.has(u.taskId))
      .map((u) => ({ task_id: u.taskId, reason: u.reason })),
  };
}

/**
 * Places the next `size` tasks of the plan. Builtin: the solver. A language model: one call for the batch
 * when its budget can be held under the hard cap (what it billed comes back in `usage`, for the engine to
 * record with the decisions), else the solver's plan with the reason in the rationale. A task the placement
 * left out is unscheduled, so every batch settles its tasks.
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
  let usage: BilledCall | undefined;
  if (run.provider === 'builtin' || !model) {
    outcome = solverBatch(plan.input, slice);
  } else {
    let reservationId: string | null = null;
    const result = await model.placeWithModel({
      adapter: model.adapter,
      input: { ...plan.input, tasks: sliceTasks },
      placed: plan.decided,
      titles: plan.titles,
      timeoutMs: model.timeoutMs,
      admit: async (budget) => {
        const hold = await model.reserve(budget);
        if (!hold.allowed) return { allowed: false, reason: HARD_CAP_REACHED };
        reservationId = hold.reservationId;
        return { allowed: true };
      },
    });
    if (result.usage) usage = { ...result.usage, reservationId };
    else if (reservationId) await model.release(reservationId);
    outcome = {
      decisions: result.placements.filter((p) => slice.has(p.taskId)),
      unscheduled: result.unscheduled
        .filter((u) => slice.has(u.taskId))
        .map((u) => ({ task_id: u.taskId, reason: u.reason })),
    };
  }
  return { ...settle(slice, outcome), usage };
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
