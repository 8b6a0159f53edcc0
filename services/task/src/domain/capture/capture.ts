import { type Orm, Sql } from '@routinely/db';
import { type Clock, fieldError, type Owner } from '@routinely/platform';
import { findTimezone } from '../../db/calendar-sql.js';
import { recurrenceInput, type TaskCreateBody } from '../task-input.js';
import { type CapturedTask, parseTaskText } from './parse-text.js';

/** What `POST /tasks/parse` answers: the fields the text says, and who read them at what cost. */
export interface CaptureAnswer {
  fields: CapturedTask;
  provider: 'builtin';
  model: null;
  cost_usd: number;
}

/**
 * Capture from text with the builtin parser, in the user's timezone (deterministic, free). Model providers are
 * not wired here yet: every answer is the builtin parser's.
 */
export class Capture {
  constructor(
    private readonly orm: Orm,
    private readonly clock: Clock,
  ) {}

  async parse(owner: Owner, text: string): Promise<CaptureAnswer> {
    const timezone = (await findTimezone(Sql.pool(this.orm), owner)) ?? 'UTC';
    return {
      fields: parseTaskText(text, { now: this.clock.now(), timezone }),
      provider: 'builtin',
      model: null,
      cost_usd: 0,
    };
  }

  /**
   * A create body without a title, filled from the builtin parse of its `raw_input`: a field given in the body
   * wins over the parsed one. No title left is 422 naming `body.title`.
   */
  async fill(owner: Owner, body: TaskCreateBody): Promise<TaskCreateBody & { title: string }> {
    if (body.title !== undefined) return { ...body, title: body.title };
    const { fields } = await this.parse(owner, body.raw_input ?? '');
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
