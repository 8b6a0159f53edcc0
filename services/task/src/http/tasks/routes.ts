import { ownerOf, problemAnswers } from '@routinely/platform';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Capture } from '../../domain/capture/capture.js';
import { MAX_ROUTINES_PER_USER, type Routines } from '../../domain/routines/routines.js';
import { taskCreateBody, toNewTask, withCreateDefaults } from '../../domain/task-input.js';
import { type TaskRow, toTaskRead } from '../../domain/task-model.js';
import type { TaskPatch, TaskService } from '../../domain/tasks.js';
import type { TaskTreeAnswers } from '../../domain/tree-answers.js';
import {
  moveBody,
  reorderBody,
  taskDeleted,
  taskIdParams,
  taskList,
  taskListQuery,
  taskPatchBody,
  taskRead,
  taskReadWithStats,
  taskTreeNode,
} from './schemas.js';

const tags = ['tasks'];
const date = (value: string | null | undefined) =>
  value === undefined ? undefined : value === null ? null : new Date(value);

export interface TaskRouteDeps {
  tasks: TaskService;
  trees: TaskTreeAnswers;
  routines: Routines;
  capture: Capture;
}

export function taskRoutes({ tasks, trees, routines, capture }: TaskRouteDeps): FastifyPluginAsync {
  /** A single task's answer; a routine's series adds its series_stats. */
  const withStats = async (owner: ReturnType<typeof ownerOf>, row: TaskRow) => {
    const stats = (await routines.stats(owner, [row])).get(row.id);
    return stats ? { ...toTaskRead(row), series_stats: stats } : toTaskRead(row);
  };

  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post(
      '/service/tasks',
      {
        config: { permission: 'SERVICE_TASK_CREATE' },
        schema: {
          operationId: 'createTask',
          description: `Only \`title\` is required, or \`raw_input\` alone: the builtin capture parser then fills title, duration, priority, tags, dates and recurrence from it (a field given in the body wins). Defaults: \`priority\` 3, \`duration_min\` 30, \`reminder_channels\` ["inapp"], \`reminder_offset_min\` 10. A task nests at most 5 levels (409 \`depth_exceeded\`). With \`recurrence\` the task is a routine: its occurrences through \`horizon_days\` are created at once. A user has at most ${MAX_ROUTINES_PER_USER} routines (422 \`routine_limit\` naming \`body.recurrence\` beyond).`,
          tags,
          summary: 'Create a task (or a routine, or a task from text)',
          body: taskCreateBody,
          response: {
            ...problemAnswers({
              not_found: "`parent_task_id` is not one of the caller's tasks",
              depth_exceeded: 'the parent is at depth 5 (a task nests at most 5 levels)',
            }),
            201: taskReadWithStats,
          },
        },
      },
      async (request, reply) => {
        const owner = ownerOf(request);
        const body = await capture.fill(owner, request.body);
        const input = toNewTask(withCreateDefaults(body));
        const row = body.recurrence
          ? await routines.create(owner, input, body.recurrence)
          : await routines.createTask(owner, input);
        return reply.status(201).send(await withStats(owner, row));
      },
    );

    r.get(
      '/service/tasks',
      {
        config: { permission: 'SERVICE_TASK_READ' },
        schema: {
          operationId: 'listTasks',
          description:
            "The caller's tasks as a JSON array. Unknown query parameters are refused (422 naming `query.<name>`), so a misspelt filter never widens the answer.",
          tags,
          summary: 'List tasks',
          querystring: taskListQuery,
          response: { 200: taskList },
        },
      },
      async (request) => {
        const q = request.query;
        const rows = await tasks.list(ownerOf(request), {
          status: q.status,
          parentTaskId: q.parent_task_id,
          tag: q.tag,
          seriesId: q.series_id,
          limit: q.limit,
          offset: q.offset,
        });
        return rows.map(toTaskRead);
      },
    );

    r.get(
      '/service/tasks/:task_id',
      {
        config: { permission: 'SERVICE_TASK_READ' },
        schema: {
          operationId: 'getTask',
          tags,
          summary: 'Get a task',
          params: taskIdParams,
          response: { 200: taskReadWithStats },
        },
      },
      async (request) => withStats(ownerOf(request), await tasks.get(ownerOf(request), request.params.task_id)),
    );

    r.get(
      '/service/tasks/:task_id/tree',
      {
        config: { permission: 'SERVICE_TASK_READ' },
        schema: {
          operationId: 'getTaskTree',
          description:
            "The task with its descendants; `rolled_up_duration_min` is the task's own duration plus its children's roll-ups.",
          tags,
          summary: 'A task with its whole subtree and rolled-up duration',
          params: taskIdParams,
          response: { 200: taskTreeNode },
        },
      },
      async (request, reply) => {
        // The schema documents the shape; the answer is JSON.stringify of what toTaskRead/buildTree built
        // (tree-answers.ts), sent as bytes: re-validating 500 nested nodes with zod cost more than the query.
        const answer = await trees.read(ownerOf(request), request.params.task_id);
        // Already JSON: the untyped reply sends the bytes as they are (a Buffer skips the serializer).
        const untyped: FastifyReply = reply;
        return untyped.type('application/json; charset=utf-8').send(answer.body);
      },
    );

    r.patch(
      '/service/tasks/:task_id',
      {
        config: { permission: 'SERVICE_TASK_UPDATE' },
        schema: {
          operationId: 'updateTask',
          description: `Setting \`chosen_slot_start\`/\`chosen_slot_end\` schedules the task by hand (end after start, at most 31 days long) and moves its reminder; clearing them returns it to \`pending\`. On a routine's series, an edit (and a changed \`recurrence\`) carries to its future occurrences that are neither done, skipped nor started; history never changes. On an occurrence it stays local. Setting \`recurrence\` on a task that is not yet a routine counts towards the ${MAX_ROUTINES_PER_USER} routines a user may have (422 \`routine_limit\` naming \`body.recurrence\` beyond).`,
          tags,
          summary: 'Update a task (also manual scheduling and status changes)',
          params: taskIdParams,
          body: taskPatchBody,
          response: {
            ...problemAnswers({ conflict: 'a slot set on a task that is done, skipped or cancelled' }),
            200: taskReadWithStats,
          },
        },
      },
      async (request) => {
        const { deadline_at, earliest_start_at, chosen_slot_start, chosen_slot_end, recurrence, ...rest } =
          request.body;
        const patch: TaskPatch = {
          ...rest,
          deadline_at: date(deadline_at),
          earliest_start_at: date(earliest_start_at),
          chosen_slot_start: date(chosen_slot_start),
          chosen_slot_end: date(chosen_slot_end),
        };
        const owner = ownerOf(request);
        return withStats(owner, await routines.update(owner, request.params.task_id, patch, recurrence));
      },
    );

    r.delete(
      '/service/tasks/:task_id',
      {
        config: { permission: 'SERVICE_TASK_DELETE' },
        schema: {
          response: { 204: taskDeleted },
          operationId: 'deleteTask',
          tags,
          summary: 'Delete a task and its subtree (a routine keeps its history)',
          params: taskIdParams,
        },
      },
      async (request, reply) => {
        await routines.remove(ownerOf(request), request.params.task_id);
        return reply.status(204).send(null);
      },
    );

    r.post(
      '/service/tasks/:task_id/move',
      {
        config: { permission: 'SERVICE_TASK_UPDATE' },
        schema: {
          operationId: 'moveTask',
          description:
            'Moves the task and its subtree under another parent (`null`: to the root). The moved subtree must stay within 5 levels and cannot go under itself.',
          tags,
          summary: 'Re-parent a task (null makes it a root)',
          params: taskIdParams,
          body: moveBody,
          response: {
            ...problemAnswers({
              depth_exceeded: 'the moved subtree would nest deeper than 5 levels',
              cycle_detected: 'the new parent is the task itself or one of its descendants',
            }),
            200: taskRead,
          },
        },
      },
      async (request) =>
        toTaskRead(await routines.move(ownerOf(request), request.params.task_id, request.body.parent_task_id)),
    );

    r.post(
      '/service/tasks/:task_id/reorder',
      {
        config: { permission: 'SERVICE_TASK_UPDATE' },
        schema: {
          operationId: 'reorderTask',
          tags,
          summary: 'Set the position of a task among its siblings',
          params: taskIdParams,
          body: reorderBody,
          response: { 200: taskRead },
        },
      },
      async (request) =>
        toTaskRead(await routines.reorder(ownerOf(request), request.params.task_id, request.body.sort_order)),
    );
  };
}
