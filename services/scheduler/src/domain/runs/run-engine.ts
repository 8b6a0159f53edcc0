import type { Sql } from '@routinely/db';
import { plainText } from '@routinely/llm';
import type { Clock, Logger } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import {
  type DecisionRow,
  decisionsOfRun,
  findRun,
  finishRun,
  insertDecisions,
  type RunRow,
  recordBatch,
} from '../../db/runs-sql.js';
import type { PlacementLock } from '../placement-lock.js';
import { type ModelBatchDeps, placeBatch } from './batch.js';
import { applyComputed, applyPending, type StalePlan } from './pending-decisions.js';
import { loadRunPlan, type PlanDeps } from './run-plan.js';

export interface RunEngineHooks {
  /**
   * Test hook: runs after a batch's decisions and progress committed and before they are applied. Throwing
   * here is a process dying mid-run: the run keeps its lease and resumes from the database afterwards.
   */
  afterBatch?: (run: { id: string; done: number }) => Promise<void>;
  /**
   * Test hook: runs inside a batch's transaction after its model call was recorded and before its decisions
   * are written. Throwing here is a write failing: nothing of the batch (its bill included) is kept.
   */
  beforeBatchWrite?: (run: { id: string; done: number }) => Promise<void>;
}

export interface RunEngineDeps extends PlanDeps {
  db: Sql;
  clock: Clock;
  logger: Logger;
  /** Tasks per batch of a language-model run (one call each). */
  batchSize: number;
  /** Tasks per batch of a builtin run: the solver plans every task left at once, so a run is one batch. */
  solverBatchSize: number;
  leaseMs: number;
  /** The model side of a run of a language-model provider (null for builtin or when unavailable). */
  modelFor(run: RunRow): ModelBatchDeps | null;
  /** Pushes events the batch enqueued. */
  kick(): void;
  /** Serialises the placements of one user (ADR 055). */
  placements: PlacementLock;
  hooks?: RunEngineHooks;
}

/**
 * Executes a run batch by batch until every task is decided or unscheduled. Each batch re-reads the tasks,
 * settings and busy time, places the next tasks with earlier decisions fixed, and writes its decisions in the
 * transaction that advances `progress`; the slots are then applied through the task service. A process dying
 * anywhere leaves a state this method resumes from: decided tasks are never placed again, and decisions not
 * yet applied are applied first.
 */
export class RunEngine {
  constructor(private readonly deps: RunEngineDeps) {}

  async execute(runId: string): Promise<void> {
    const sql = this.deps.db;
    for (;;) {
      const run = await findRun(sql, runId);
      if (!run || run.status === 'completed' || run.status === 'failed') return;
      // One batch at a time per user: reading busy time through applying the slots, no other placement of the
      // user runs, so none places into the slots this batch takes (and this batch sees every earlier one's).
      const finished = await this.deps.placements.run(run.user_id, () => this.batch(run));
      if (finished) return;
    }
  }

  private batchSizeOf(run: RunRow): number {
    return run.provider === 'builtin' ? this.deps.solverBatchSize : this.deps.batchSize;
  }

  /**
   * The run as a batch starts it: whatever an earlier pass wrote and did not apply is applied first, or found
   * stale and placed again in this batch; and the decisions that hold time. Decisions commit with the progress
   * they make, so a run that has settled nothing has none to apply or check (a routine placement's only batch
   * skips those reads).
   */
  private async resume(runId: string) {
    const sql = this.deps.db;
    const read = (await findRun(sql, runId)) as RunRow;
    if (read.progress_done === 0 && read.unscheduled.length === 0) {
      return { current: read, stale: new Map() as StalePlan, decisions: [] };
    }
    const stale = await applyPending(this.deps, runId, true);
    const current = (await findRun(sql, runId)) as RunRow;
    const staleIds = new Set([...stale.values()].map((d) => d.id));
    const answered = new Set(current.unscheduled.map((u) => u.task_id));
    // A stale plan's slots, and a decision of a task the run answered unscheduled since, hold no time.
    const decisions = (await decisionsOfRun(sql, runId)).filter(
      (d) => !staleIds.has(d.id) && (d.applied || !answered.has(d.task_id)),
    );
    return { current, stale, decisions };
  }

  /** Places and applies the run's next batch; true when nothing was left to place (the run is completed). */
  private async batch(run: RunRow): Promise<boolean> {
    const sql = this.deps.db;
    const { current, stale, decisions } = await this.resume(run.id);
    const window = { start: current.window_start, end: current.window_end };
    const plan = await loadRunPlan(this.deps, current, decisions, window);
    if (plan.remaining.length === 0 && plan.missing.length === 0) {
      await finishRun(sql, run.id, this.deps.clock.now());
      return true;
    }
    const model = this.deps.modelFor(current);
    const batch =
      plan.remaining.length > 0
        ? await placeBatch(current, plan, this.batchSizeOf(current), model)
        : { taskIds: [], decisions: [], unscheduled: [], usage: undefined };
    const now = this.deps.clock.now();
    const rows: DecisionRow[] = batch.decisions.map((d) => ({
      id: uuidv7(),
      tenant_id: run.tenant_id,
      user_id: run.user_id,
      run_id: run.id,
      task_id: d.taskId,
      chosen_slot_start: d.start,
      chosen_slot_end: d.end,
      rationale: storableRationale(d.rationale),
      provider: run.provider,
      model: run.model,
      source: d.source,
      // A task placed again after its old plan went stale: the new decision supersedes the one never applied.
      supersedes_id: stale.get(d.taskId)?.id ?? null,
      dry_run: run.dry_run,
      applied: false,
      warnings: [],
      created_by: run.created_by,
      created_at: now,
    }));
    // A task deleted before it was placed is answered unscheduled: the run still ends with every task settled.
    const gone = plan.missing.map((taskId) => ({ task_id: taskId, reason: 'not_schedulable' as const }));
    // Tasks of a stale plan were counted when it was written.
    const done = batch.taskIds.filter((id) => !stale.has(id)).length + gone.length;
    // The call's cost, the decisions it chose and the progress commit together: a batch that fails before
    // this point bills nothing (its hold stays until it expires), one that fails after is never placed again.
    await this.deps.db.transaction(async (tx) => {
      if (batch.usage && model) await model.record(tx, batch.usage);
      await this.deps.hooks?.beforeBatchWrite?.({ id: run.id, done: current.progress_done });
      await insertDecisions(tx, rows);
      await recordBatch(tx, run.id, {
        unscheduled: [...batch.unscheduled, ...gone],
        done,
        leaseUntil: new Date(now.getTime() + this.deps.leaseMs),
      });
    });
    if (batch.usage) this.deps.kick();
    await this.deps.hooks?.afterBatch?.({ id: run.id, done: current.progress_done + done });
    // Computed under this lock: applied as it is (a task deleted meanwhile is left out). A stale plan not placed
    // again in this batch is still pending beside it.
    if (stale.size === 0) await applyComputed(this.deps, current, rows);
    else await applyPending(this.deps, run.id, false);
    // This batch settled every task left (a builtin run's one batch): the run is over, without reading its tasks
    // again only to find none left (a third of a routine placement run's round trips).
    if (batch.taskIds.length === plan.remaining.length) {
      await finishRun(sql, run.id, this.deps.clock.now());
      return true;
    }
    return false;
  }
}

/** Longest rationale a decision keeps (what an override may give; a model's is cut to 500 before). */
const MAX_RATIONALE = 2_000;

/** Every rationale is stored clean, whoever wrote it: no NUL or lone surrogate reaches a text column. */
export const storableRationale = (text: string) => plainText(text, MAX_RATIONALE);
