import { nameSchemas, timestampOut } from '@routinely/platform';
import { z } from 'zod';
import { JOB_STATUSES } from '../../domain/import/jobs.js';

const rowError = z.object({
  row: z.number().int().describe('1-based row number (CSV: data rows after the header)'),
  loc: z.array(z.union([z.string(), z.number()])).describe('field path inside the row'),
  msg: z.string(),
});

const flag = z.enum(['true', 'false']).transform((v) => v === 'true');

const jsonImport = z.object({
  rows: z
    .array(z.unknown())
    .describe(
      'task create fields plus ref, parent_ref, depends_on_refs; each row is validated on its own, as strictly as POST /tasks (a key it does not name is an error of the row)',
    ),
  commit: z.boolean().default(true),
  auto_schedule: z.boolean().default(false),
});
const CSV_EXAMPLE =
  'ref,title,duration_min,parent_ref,tags\nhome,Keep the house,,,\nplants,Water the plants,15,home,garden;weekly\n';
export const importBody = z.union([
  z.string().meta({ description: 'text/csv with a header row; list cells split on ";"', examples: [CSV_EXAMPLE] }),
  jsonImport,
]);
export const importQuery = z.object({
  commit: flag.optional().describe('CSV bodies only (JSON bodies carry it); default true'),
  auto_schedule: flag.optional(),
});

export const importResult = z.object({
  total: z.number().int(),
  valid: z.number().int(),
  invalid: z.number().int(),
  errors: z.array(rowError),
  committed: z.boolean(),
  created_ids: z.array(z.uuid()),
});

export const importJobRead = z.object({
  job_id: z.uuid(),
  status: z.enum(JOB_STATUSES),
  total: z.number().int(),
  valid: z.number().int(),
  invalid: z.number().int(),
  errors: z.array(rowError),
  created_ids: z.array(z.uuid()),
  auto_schedule: z.boolean(),
  schedule_run_id: z
    .uuid()
    .nullable()
    .describe('the scheduling run auto_schedule started once the job committed (null otherwise)'),
  created_at: timestampOut(),
  updated_at: timestampOut(),
});
export const importJobParams = z.object({ job_id: z.uuid() });

export const importJobAccepted = z.object({ job_id: z.uuid(), status: z.enum(JOB_STATUSES) });
export const importJobCommitBody = z.object({ auto_schedule: z.boolean().default(false) }).optional();
export const importJobCancelled = z.null().describe('Cancelled');

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  ImportRowError: rowError,
  ImportRequest: {
    schema: jsonImport,
    example: {
      rows: [
        { ref: 'home', title: 'Keep the house' },
        { ref: 'plants', parent_ref: 'home', title: 'Water the plants', duration_min: 15, tags: ['garden'] },
      ],
      commit: true,
      auto_schedule: false,
    },
  },
  ImportResult: importResult,
  ImportJob: importJobRead,
});
