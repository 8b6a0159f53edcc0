import { type Orm, Sql } from '@routinely/db';
import { plainText } from '@routinely/llm';
import type { Clock, Logger } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import {
  type DecisionRow,
  decisionsOfRun,
  findRun,
  finishRun,
  insertDecision,
  markApplied,
  type RunRow,
  recordBatch,
  unappliedDecisions,
} from '../../db/runs-sql.js';
import type { PlacementLock } from '../placement-lock.js';
import { type ModelBatchDeps, placeBatch } from './batch.js';
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
  orm: Orm;
  clock: Clock;
  logger: Logger;
  batchSize: number;
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
    const sql = Sql.pool(this.deps.orm);
    for (;;) {
      const run = await findRun(sql, runId);
      if (!run || run.status === 'completed' || run.status === 'failed') return;
      // One batch at a time per user: reading busy time through applying the slots, no other placement of the
      // user runs, so none places into the slots this batch takes (and this batch sees every earlier one's).
      const finished = await this.deps.placements.run(run.user_id, () => this.batch(run));
      if (finished) return;
    }
  }

  /** Places and applies the run's next batch; true when nothing was left to place (the run is completed). */
  private async batch(run: RunRow): Promise<boolean> {
    const sql = Sql.pool(this.deps.orm);
    await this.applyPending(run);
    const decisions = await decisionsOfRun(sql, run.id);
    const window = { start: new Date(run.window_start), end: new Date(run.window_end) };
    const plan = await loadRunPlan(this.deps, run, decisions, window);
    if (plan.remaining.length === 0) {
      await finishRun(sql, run.id, this.deps.clock.now());
      return true;
    }
    const model = this.deps.modelFor(run);
    const batch = await placeBatch(run, plan, this.deps.batchSize, model);
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
      supersedes_id: null,
      dry_run: run.dry_run,
      applied: false,
      warnings: [],
      created_by: run.created_by,
      created_at: now,
    }));
    // The call's cost, the decisions it chose and the progress commit together: a batch that fails before
    // this point bills nothing (its hold stays until it expires), one that fails after is never placed again.
    await Sql.transaction(this.deps.orm, async (tx) => {
      if (batch.usage && model) await model.record(tx, batch.usage);
      await this.deps.hooks?.beforeBatchWrite?.({ id: run.id, done: run.progress_done });
      for (const row of rows) await insertDecision(tx, row);
      await recordBatch(tx, run.id, {
        unscheduled: batch.unscheduled,
        done: batch.taskIds.length,
        leaseUntil: new Date(now.getTime() + this.deps.leaseMs),
      });
    });
    if (batch.usage) this.deps.kick();
    await this.deps.hooks?.afterBatch?.({ id: run.id, done: run.progress_done + batch.taskIds.length });
    await this.applyPending(run);
    return false;
  }

  /** Sets the slots of written, not yet applied decisions (idempotent: a retry sets the same slots). */
  private async applyPending(run: RunRow): Promise<void> {
    if (run.dry_run) return;
    const sql = Sql.pool(this.deps.orm);
    const pending = await unappliedDecisions(sql, run.id);
    if (pending.length === 0) return;
    await this.deps.tasks.applySlots(
      { tenantId: run.tenant_id, userId: run.user_id },
      pending.map((d) => ({
        taskId: d.task_id,
        start: new Date(d.chosen_slot_start),
        end: new Date(d.chosen_slot_end),
      })),
    );
    await markApplied(
      sql,
      pending.map((d) => d.id),
    );
  }
}

/** Longest rationale a decision keeps (what an override may give; a model's is cut to 500 before). */
const MAX_RATIONALE = 2_000;

/** Every rationale is stored clean, whoever wrote it: no NUL or lone surrogate reaches a text column. */
export const storableRationale = (text: string) => plainText(text, MAX_RATIONALE);
