import type { Owner } from '@routinely/platform';

/** Most task ids one scheduling run takes (the task service's gRPC reads at most 1,000 ids at once). */
export const MAX_RUN_TASKS = 1_000;

/** Starts a background scheduling run of freshly imported tasks (the scheduler's StartRun, ADR 057). */
export interface ScheduleStarter {
  /** Answers the run id. */
  startRun(owner: Owner, taskIds: readonly string[]): Promise<string>;
}

/**
 * Starts the runs of an import with `auto_schedule`: one per 1,000 tasks, answering the first run's id (the
 * job's `schedule_run_id`). The tasks are committed whatever happens here: a scheduler that cannot answer
 * leaves the id null and the user schedules them with POST /schedule.
 */
export async function autoSchedule(
  starter: ScheduleStarter,
  owner: Owner,
  taskIds: readonly string[],
  warn: (error: unknown) => void,
): Promise<string | null> {
  let first: string | null = null;
  try {
    for (let i = 0; i < taskIds.length; i += MAX_RUN_TASKS) {
      const id = await starter.startRun(owner, taskIds.slice(i, i + MAX_RUN_TASKS));
      first ??= id;
    }
  } catch (error) {
    warn(error);
  }
  return first;
}
