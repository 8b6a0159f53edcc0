import type { Sql } from '@routinely/db';
import { type EventEnvelope, enqueue, makeEvent, taskImportEvents } from '@routinely/events';
import type { Owner } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';

/** Most task ids one scheduling run takes (the task service's gRPC reads at most 1,000 ids at once). */
const MAX_RUN_TASKS = 1_000;

/**
 * Asks for the runs of an import with `auto_schedule`, in the import's own transaction: one
 * `task.import.schedule_requested` per 1,000 tasks, each naming the run id the scheduler will create it under.
 * Answers the first run's id (the job's `schedule_run_id`). The scheduler is never called: it starts the runs
 * when the events reach it, so an import commits and answers whether or not the scheduler is up (ADR 056).
 */
export async function requestAutoSchedule(
  sql: Sql,
  owner: Owner,
  taskIds: readonly string[],
  at: Date,
): Promise<string> {
  const requests: EventEnvelope[] = [];
  let first: string | undefined;
  for (let i = 0; i < taskIds.length; i += MAX_RUN_TASKS) {
    const runId = uuidv7();
    first ??= runId;
    requests.push(
      makeEvent(
        taskImportEvents.scheduleRequested,
        { ...owner, at },
        { run_id: runId, task_ids: taskIds.slice(i, i + MAX_RUN_TASKS) },
      ),
    );
  }
  if (!first) throw new Error('an auto_schedule request needs at least one task');
  await enqueue(sql, ...requests);
  return first;
}
