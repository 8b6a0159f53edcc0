import type { DecisionRow, RunRow } from '../../db/runs-sql.js';
import { iso, usd } from '../answer-values.js';

export const decisionView = (d: DecisionRow) => ({
  id: d.id,
  run_id: d.run_id,
  task_id: d.task_id,
  chosen_slot_start: iso(d.chosen_slot_start),
  chosen_slot_end: iso(d.chosen_slot_end),
  rationale: d.rationale,
  provider: d.provider,
  model: d.model,
  source: d.source,
  supersedes_id: d.supersedes_id,
  applied: d.applied,
  warnings: d.warnings,
  created_by: d.created_by,
  created_at: iso(d.created_at),
});

export const runView = (run: RunRow, decisions: readonly DecisionRow[]) => ({
  id: run.id,
  status: run.status,
  provider: run.provider,
  model: run.model,
  task_ids: run.task_ids,
  decisions: decisions.map(decisionView),
  unscheduled: run.unscheduled,
  cost_usd: usd(run.cost_usd),
  dry_run: run.dry_run,
  progress: { total: run.progress_total, done: run.progress_done },
  error: run.error,
  created_at: iso(run.created_at),
  started_at: run.started_at ? iso(run.started_at) : null,
  completed_at: run.completed_at ? iso(run.completed_at) : null,
});

/** The answer of a synchronous run (POST /schedule with up to 10 tasks, reflow). */
export const syncRunView = (run: RunRow, decisions: readonly DecisionRow[]) => ({
  run_id: run.id,
  status: run.status,
  provider: run.provider,
  model: run.model,
  decisions: decisions.map(decisionView),
  unscheduled: run.unscheduled,
  cost_usd: usd(run.cost_usd),
  dry_run: run.dry_run,
});
