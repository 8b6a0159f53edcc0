import { addRpcService, type InternalAuth, ownerOfCaller, parseRequest } from '@routinely/grpc';
import type { RpcServiceRegistry } from '@routinely/platform';
import { task_v1 } from '@routinely/proto';
import { z } from 'zod';
import type { CalendarService } from '../domain/calendar/calendar.js';
import type { BusyBlock } from '../domain/calendar/free-busy.js';
import type { Dependency } from '../domain/dependencies.js';
import type { TaskRow } from '../domain/task-model.js';
import type { TaskService } from '../domain/tasks.js';

const MAX_IDS = 1000;

const iso = (d: Date | null) => (d ? d.toISOString() : '');

function toProtoTask(row: TaskRow, recurring = row.recurrence !== null): task_v1.Task {
  return {
    id: row.id,
    parentTaskId: row.parent_task_id ?? '',
    depth: row.depth,
    sortOrder: row.sort_order,
    title: row.title,
    status: row.status,
    priority: row.priority,
    durationMin: row.duration_min,
    deadlineAt: iso(row.deadline_at),
    earliestStartAt: iso(row.earliest_start_at),
    tags: row.tags,
    chosenSlotStart: iso(row.chosen_slot_start),
    chosenSlotEnd: iso(row.chosen_slot_end),
    reminderChannels: row.reminder_channels,
    reminderOffsetMin: row.reminder_offset_min,
    updatedAt: row.updated_at.toISOString(),
    recurring,
  };
}

const toProtoDependency = (row: Dependency): task_v1.Dependency => ({
  id: row.id,
  taskId: row.task_id,
  dependsOnId: row.depends_on_id,
  depType: row.dep_type,
  lagMin: row.lag_min,
});

/** An instant in a proto string field: '' means none; otherwise ISO-8601 with an offset (never local time). */
const protoInstant = z
  .union([z.literal(''), z.iso.datetime({ offset: true })])
  .transform((value) => (value === '' ? null : new Date(value)));

const getTasksRequest = z.object({ taskIds: z.array(z.uuid()).max(MAX_IDS), includeDescendants: z.boolean() });

const applySlotsRequest = z.object({
  assignments: z
    .array(z.object({ taskId: z.uuid(), chosenSlotStart: protoInstant, chosenSlotEnd: protoInstant }))
    .max(MAX_IDS),
  withoutTasks: z.boolean(),
});

const getBusyRequest = z.object({
  windowStart: z.iso.datetime({ offset: true }).transform((value) => new Date(value)),
  windowEnd: z.iso.datetime({ offset: true }).transform((value) => new Date(value)),
  excludeTaskIds: z.array(z.uuid()).max(MAX_IDS),
});

const toProtoBlock = (block: BusyBlock): task_v1.BusyBlock => ({
  start: block.start.toISOString(),
  end: block.end.toISOString(),
  source: block.source,
  sources: block.sources,
});

export function addTaskRpc(
  server: RpcServiceRegistry,
  auth: InternalAuth,
  tasks: TaskService,
  calendar: CalendarService,
): void {
  addRpcService(server, task_v1.TaskServiceService, auth, {
    getTasks: async (request, caller) => {
      const owner = ownerOfCaller(caller, ['SERVICE_TASK_READ', 'SERVICE_SCHEDULE_RUN']);
      const { taskIds, includeDescendants } = parseRequest(getTasksRequest, request);
      const { rows, edges, templateIds } = await tasks.withDependencies(owner, taskIds, includeDescendants);
      const found = new Set(rows.map((r) => r.id));
      return {
        tasks: rows.map((row) => toProtoTask(row, templateIds.has(row.id))),
        dependencies: edges.map(toProtoDependency),
        missingIds: taskIds.filter((id) => !found.has(id)),
      };
    },
    applySlots: async (request, caller) => {
      const owner = ownerOfCaller(caller, ['SERVICE_TASK_UPDATE', 'SERVICE_SCHEDULE_RUN']);
      const { assignments, withoutTasks } = parseRequest(applySlotsRequest, request);
      const rows = await tasks.applySlots(
        owner,
        assignments.map((a) => ({ taskId: a.taskId, start: a.chosenSlotStart, end: a.chosenSlotEnd })),
      );
      return { tasks: withoutTasks ? [] : rows.map((row) => toProtoTask(row)) };
    },
    getBusy: async (request, caller) => {
      const owner = ownerOfCaller(caller, ['SERVICE_TASK_READ', 'SERVICE_SCHEDULE_RUN']);
      const { windowStart, windowEnd, excludeTaskIds } = parseRequest(getBusyRequest, request);
      const blocks = await calendar.busy(owner, { from: windowStart, to: windowEnd }, excludeTaskIds);
      return { blocks: blocks.map(toProtoBlock) };
    },
  });
}
