import type { Sql } from '@routinely/db';
import { type Clock, fieldError, type Owner } from '@routinely/platform';
import { type CapturedTask, parseTaskText } from '@routinely/scheduling';
import { findTimezone } from '../../db/calendar-sql.js';
import { recurrenceInput, type TaskCreateBody } from '../task-input.js';

/**
 * A create body's `raw_input` read by the builtin parser, in the user's timezone (deterministic, free).
 * `POST /tasks/parse` itself is the scheduler's: it also reads text with a model provider, which the task service
 * cannot reach.
 */
export class Capture {
  constructor(
    private readonly db: Sql,
    private readonly clock: Clock,
  ) {}

  private async parse(owner: Owner, text: string): Promise<CapturedTask> {
    const timezone = (await findTimezone(this.db, owner)) ?? 'UTC';
    return parseTaskText(text, { now: this.clock.now(), timezone });
  }

  /**
   * A create body without a title, filled from the builtin parse of its `raw_input`: a field given in the body
   * wins over the parsed one. No title left is 422 naming `body.title`.
   */
  async fill(owner: Owner, body: TaskCreateBody): Promise<TaskCreateBody & { title: string }> {
    if (body.title !== undefined) return { ...body, title: body.title };
    const fields = await this.parse(owner, body.raw_input ?? '');
    const title = fields.title?.trim();
    if (!title) throw fieldError(['body', 'title'], 'raw_input leaves no title: give one');
    const recurrence = fields.recurrence ? recurrenceInput.safeParse(fields.recurrence) : undefined;
    return {
      ...body,
      title: title.slice(0, 500),
      priority: body.priority ?? fields.priority,
      duration_min: body.duration_min ?? fields.duration_min,
      tags: body.tags ?? fields.tags,
      deadline_at: body.deadline_at !== undefined ? body.deadline_at : fields.deadline_at,
      earliest_start_at: body.earliest_start_at !== undefined ? body.earliest_start_at : fields.earliest_start_at,
      recurrence:
        body.recurrence !== undefined || body.parent_task_id
          ? body.recurrence
          : recurrence?.success
            ? recurrence.data
            : undefined,
    };
  }
}
