import { z } from 'zod';
import { MAX_OCCURRENCE_RANGE_DAYS } from '../../domain/routines/routines.js';
import { localDateIn } from '../../domain/task-input.js';
import { taskRead } from '../tasks/schemas.js';

export const occurrencesQuery = z.object({
  from: localDateIn().optional().describe("first local date (default: 30 days before today in the user's timezone)"),
  to: localDateIn()
    .optional()
    .describe(
      `last local date, inclusive (default: 90 days after from; at most ${MAX_OCCURRENCE_RANGE_DAYS} after it)`,
    ),
});

export const routineOccurrences = z.object({ series_id: z.uuid(), items: z.array(taskRead) });
