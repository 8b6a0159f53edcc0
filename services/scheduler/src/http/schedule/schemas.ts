import { nameSchemas, timestampOut } from '@routinely/platform';
import { z } from 'zod';
import { PROVIDER_NAMES } from '../../domain/providers.js';

const instant = z.iso.datetime({ offset: true }).transform((value) => new Date(value));
const unscheduledReason = z.enum([
  'not_schedulable',
  'no_duration',
  'no_slot_in_window',
  'no_slot_before_deadline',
  'blocked_by_dependency',
]);

export const runRequest = z.object({
  task_ids: z.array(z.uuid()).min(1).max(200),
  provider: z.enum(PROVIDER_NAMES).optional(),
  window_start: instant.optional(),
  window_end: instant.optional(),
  dry_run: z.boolean().optional(),
});

export const reflowRequest = z.object({
  root_task_id: z.uuid(),
  provider: z.enum(PROVIDER_NAMES).optional(),
});

export const overrideBody = z.object({
  chosen_slot_start: instant,
  chosen_slot_end: instant,
  rationale: z.string().max(2000).optional(),
});

export const overrideAliasBody = overrideBody.extend({ decision_id: z.uuid() });

export const decisionOut = z.object({
  id: z.uuid(),
  run_id: z.uuid().nullable(),
  task_id: z.uuid(),
  chosen_slot_start: timestampOut(),
  chosen_slot_end: timestampOut(),
  rationale: z.string(),
  provider: z.string(),
  model: z.string(),
  source: z.enum(['agent', 'solver', 'override']),
  supersedes_id: z.uuid().nullable(),
  applied: z.boolean(),
  warnings: z.array(z.string()).describe('outside_working_hours, in_no_go_window (overrides only)'),
  created_by: z.uuid(),
  created_at: timestampOut(),
});

const unscheduled = z.array(z.object({ task_id: z.uuid(), reason: unscheduledReason }));
const usd = z.number().describe('USD, rounded to 6 decimals');

export const syncRunOut = z.object({
  run_id: z.uuid(),
  status: z.enum(['queued', 'running', 'completed', 'failed']),
  provider: z.string(),
  model: z.string(),
  decisions: z.array(decisionOut),
  unscheduled,
  cost_usd: usd,
  dry_run: z.boolean(),
});

export const queuedRunOut = z.object({ run_id: z.uuid(), status: z.literal('queued') });

export const runOut = z.object({
  id: z.uuid(),
  status: z.enum(['queued', 'running', 'completed', 'failed']),
  provider: z.string(),
  model: z.string(),
  task_ids: z.array(z.uuid()),
  decisions: z.array(decisionOut),
  unscheduled,
  cost_usd: usd,
  dry_run: z.boolean(),
  progress: z.object({ total: z.number().int(), done: z.number().int() }),
  error: z.string().nullable(),
  created_at: timestampOut(),
  started_at: timestampOut().nullable(),
  completed_at: timestampOut().nullable(),
});

export const runIdParams = z.object({ run_id: z.uuid() });
export const decisionIdParams = z.object({ decision_id: z.uuid() });

// Named in the OpenAPI document (components.schemas).
nameSchemas({
  ScheduleRequest: runRequest,
  ReflowRequest: reflowRequest,
  DecisionOverride: overrideBody,
  DecisionOverrideAlias: overrideAliasBody,
  Decision: decisionOut,
  ScheduleRunResult: syncRunOut,
  ScheduleRunQueued: queuedRunOut,
  ScheduleRun: runOut,
});
