import type { Sql } from '@routinely/db';
import { type EventEnvelope, enqueue, type OutboxRelay } from '@routinely/events';
import type { Owner } from '@routinely/platform';
import { AppError, type Batcher, type Clock, fieldError, notFound, oneCallAtATime } from '@routinely/platform';
import { type DependencyRow, dependenciesTouching } from '../db/dependency-sql.js';
import {
  countOwnerTasks,
  findTask,
  findTasks,
  findTasksByKeys,
  listTasks,
  lockOwnerTree,
  nextSortOrder,
  ownerTreeRows,
  renumberSiblings,
  saveSlots,
  saveTask,
  shiftDepths,
  siblingIds,
  subtreeRows,
  subtreeShape,
  type TaskFilters,
  type TaskKey,
} from '../db/task-sql.js';
import { emitTaskEvent, eventForChange } from './events.js';
import { templateRows } from './routines/template-rows.js';
import { applyStatusAndSlot, type StatusAndSlotPatch } from './scheduling.js';
import { TaskCreates } from './task-create.js';
import { MAX_DEPTH, type NewTask, type TaskRow } from './task-model.js';

export interface TaskPatch extends StatusAndSlotPatch {
  title?: string | undefined;
  description?: string | null | undefined;
  raw_input?: string | null | undefined;
  priority?: number | undefined;
  duration_min?: number | undefined;
  deadline_at?: Date | null | undefined;
  earliest_start_at?: Date | null | undefined;
  reminder_channels?: TaskRow['reminder_channels'] | undefined;
  reminder_offset_min?: number | undefined;
  tags?: string[] | undefined;
}

/** More writes in a tree change's transaction once it is done (a routine's template carries it on). */
export type AfterWrite = (sql: Sql, outbox: EventEnvelope[], before: TaskRow, saved: TaskRow) => Promise<void>;

export interface UpdateOptions {
  /** Calendar commands act only on a task that is on the calendar (see `update`). */
  requireSlot?: boolean;
  /**
   * The recurrence the saved row carries, decided under the row's lock before it is written (a PATCH that sets,
   * changes or removes a routine's rule): written with the rest of the row, in one statement and one event.
   */
  recurrence?: (sql: Sql, before: TaskRow) => Promise<TaskRow['recurrence']>;
  /** More writes in the same transaction once the row is saved (a routine's series carries its edit on). */
  afterSave?: (sql: Sql, outbox: EventEnvelope[], before: TaskRow, saved: TaskRow) => Promise<TaskRow>;
}

export interface SlotAssignment {
  taskId: string;
  start: Date | null;
  end: Date | null;
}

const PLAIN_FIELDS = [
  'title',
  'description',
  'raw_input',
  'priority',
  'duration_min',
  'deadline_at',
  'earliest_start_at',
  'reminder_channels',
  'reminder_offset_min',
  'tags',
] as const;

/**
 * Runs `work` in a transaction whose outbox rows commit with it, then wakes the relay. Raw SQL only: the
 * events `work` emits are inserted in one statement before the commit, with no ORM unit of work to fork
 * and flush (a third of a create's CPU went there).
 */
export async function writeWithOutbox<T>(
  db: Sql,
  relay: Pick<OutboxRelay, 'kick'>,
  work: (sql: Sql, outbox: EventEnvelope[]) => Promise<T>,
): Promise<T> {
  const result = await db.transaction(async (sql) => {
    const outbox: EventEnvelope[] = [];
    const value = await work(sql, outbox);
    await enqueue(sql, ...outbox);
    return value;
  });
  relay.kick();
  return result;
}

/** The task store of one service instance: every method acts for one owner (tenant and user). */
export class TaskService {
  private readonly creates: TaskCreates;
  /** Single-task reads arriving together share one statement (one statement at a time). */
  private readonly byId: Batcher<TaskKey, TaskRow | undefined>;

  constructor(
    private readonly db: Sql,
    private readonly clock: Clock,
    private readonly relay: Pick<OutboxRelay, 'kick'>,
  ) {
    this.creates = new TaskCreates(db, clock, relay);
    this.byId = oneCallAtATime((keys) => findTasksByKeys(db, keys));
  }

  private write<T>(work: (sql: Sql, outbox: EventEnvelope[]) => Promise<T>): Promise<T> {
    return writeWithOutbox(this.db, this.relay, work);
  }

  /** See `TaskCreates`: one statement per root create (shared under load), a transaction per child. */
  create(owner: Owner, input: NewTask, afterChild?: Parameters<TaskCreates['create']>[2]): Promise<TaskRow> {
    return this.creates.create(owner, input, afterChild);
  }

  async get(owner: Owner, id: string): Promise<TaskRow> {
    const row = await this.find(owner, id);
    if (!row) throw notFound('Task');
    return row;
  }

  /** The owner's task, or undefined (callers that answer something other than a task 404 decide). */
  find(owner: Owner, id: string): Promise<TaskRow | undefined> {
    return this.byId.submit({ tenantId: owner.tenantId, userId: owner.userId, id });
  }

  list(owner: Owner, filters: TaskFilters): Promise<TaskRow[]> {
    return listTasks(this.db, owner, filters);
  }

  /** The owner's tasks among `ids` with every dependency edge touching them (the scheduler's read). */
  async withDependencies(
    owner: Owner,
    ids: readonly string[],
    includeDescendants = false,
  ): Promise<{ rows: TaskRow[]; edges: DependencyRow[]; templateIds: Set<string> }> {
    const sql = this.db;
    const rows = includeDescendants ? await this.subtrees(sql, owner, ids) : await findTasks(sql, owner, ids);
    const rowIds = rows.map((row) => row.id);
    const [edges, templateIds] = await Promise.all([dependenciesTouching(sql, owner, rowIds), templateRows(sql, rows)]);
    return { rows, edges, templateIds };
  }

  /** The tasks and all their descendants, each once (parents before their children). */
  private async subtrees(sql: Sql, owner: Owner, ids: readonly string[]): Promise<TaskRow[]> {
    const seen = new Map<string, TaskRow>();
    for (const id of ids) {
      if (seen.has(id)) continue;
      for (const row of await subtreeRows(sql, owner, id)) if (!seen.has(row.id)) seen.set(row.id, row);
    }
    return [...seen.values()];
  }

  /** One page of the owner's depth-first tree, with the total number of tasks. */
  async ownerTree(owner: Owner, page: { limit: number; offset: number }): Promise<{ rows: TaskRow[]; total: number }> {
    const sql = this.db;
    const [rows, total] = await Promise.all([ownerTreeRows(sql, owner, page), countOwnerTasks(sql, owner)]);
    return { rows, total };
  }

  /**
   * Applies a patch under the row lock. `requireSlot` (calendar commands) acts only on a task that is on the
   * calendar, i.e. has a slot and is not cancelled, checked under the same lock: anything else is 404.
   */
  async update(owner: Owner, id: string, patch: TaskPatch, options: UpdateOptions = {}): Promise<TaskRow> {
    const now = this.clock.now();
    return this.write(async (sql, outbox) => {
      const before = await findTask(sql, owner, id, true);
      if (!before) throw notFound(options.requireSlot ? 'Event' : 'Task');
      if (options.requireSlot && (before.chosen_slot_start === null || before.status === 'cancelled')) {
        throw notFound('Event');
      }
      if (before.recurrence !== null && patch.chosen_slot_start) {
        throw fieldError(['body', 'chosen_slot_start'], "a routine's series is never scheduled: its occurrences are");
      }
      const changes = Object.fromEntries(
        PLAIN_FIELDS.filter((field) => patch[field] !== undefined).map((field) => [field, patch[field]]),
      );
      const recurrence = options.recurrence ? { recurrence: await options.recurrence(sql, before) } : {};
      const next = applyStatusAndSlot({ ...before, ...changes, ...recurrence }, patch, now);
      next.updated_at = now;
      const saved = await saveTask(sql, next, { recurrence: options.recurrence !== undefined });
      emitTaskEvent(outbox, eventForChange(before, saved), saved, now);
      return options.afterSave ? options.afterSave(sql, outbox, before, saved) : saved;
    });
  }

  /**
   * Re-parents a task (null: makes it a root). Under the owner's lock, so two racing moves see each
   * other's result: the second fails with 409 instead of closing a cycle or nesting to depth 6.
   */
  async move(owner: Owner, id: string, parentId: string | null, afterWrite?: AfterWrite): Promise<TaskRow> {
    const now = this.clock.now();
    return this.write(async (sql, outbox) => {
      await lockOwnerTree(sql, owner);
      const task = await findTask(sql, owner, id);
      if (!task) throw notFound('Task');
      if (task.recurrence !== null && parentId !== null) {
        throw fieldError(['body', 'parent_task_id'], "a routine's series stays a root task");
      }
      let newDepth = 1;
      if (parentId !== null) {
        const parent = await findTask(sql, owner, parentId);
        if (!parent) throw notFound('Parent task');
        newDepth = parent.depth + 1;
      }
      const shape = await subtreeShape(sql, owner, id);
      if (parentId !== null && shape.some((node) => node.id === parentId)) {
        throw new AppError('cycle_detected', 'A task cannot move under itself or one of its descendants');
      }
      const height = Math.max(...shape.map((node) => node.depth)) - task.depth;
      if (newDepth + height > MAX_DEPTH) {
        throw new AppError('depth_exceeded', `The moved subtree would nest deeper than ${MAX_DEPTH} levels`);
      }
      if (task.parent_task_id === parentId) return task;
      const sortOrder = await nextSortOrder(sql, owner, parentId);
      await shiftDepths(
        sql,
        shape.map((node) => node.id),
        newDepth - task.depth,
      );
      const saved = await saveTask(sql, {
        ...task,
        parent_task_id: parentId,
        depth: newDepth,
        sort_order: sortOrder,
        updated_at: now,
      });
      emitTaskEvent(outbox, 'taskUpdated', saved, now);
      await afterWrite?.(sql, outbox, task, saved);
      return saved;
    });
  }

  /**
   * Sets or clears the slots of many tasks in one transaction (the scheduler's write). All or nothing:
   * an unknown id or a task that is done, skipped or cancelled fails the whole call.
   */
  async applySlots(owner: Owner, assignments: SlotAssignment[]): Promise<TaskRow[]> {
    const now = this.clock.now();
    return this.write(async (sql, outbox) => {
      await lockOwnerTree(sql, owner);
      const ids = [...new Set(assignments.map((a) => a.taskId))];
      const rows = new Map((await findTasks(sql, owner, ids)).map((row) => [row.id, row]));
      const changes: { before: TaskRow; next: TaskRow }[] = [];
      for (const [index, assignment] of assignments.entries()) {
        const before = rows.get(assignment.taskId);
        if (!before) throw notFound(`Task ${assignment.taskId}`);
        if (before.recurrence !== null) {
          throw new AppError('conflict', `Task ${before.id} is a routine's series: its occurrences are scheduled`);
        }
        if (before.status !== 'pending' && before.status !== 'scheduled') {
          throw new AppError('conflict', `Task ${before.id} is ${before.status} and cannot be scheduled`);
        }
        const next = applyStatusAndSlot(
          before,
          { chosen_slot_start: assignment.start, chosen_slot_end: assignment.end },
          now,
          ['request', 'assignments', String(index)],
        );
        const row = { ...next, updated_at: now };
        rows.set(row.id, row);
        changes.push({ before, next: row });
      }
      // One statement for every slot (a run applies a whole routine fill at once); a task named twice is
      // written once with its last slot, each assignment keeping its event.
      const last = [...new Map(changes.map((c) => [c.next.id, c.next])).values()];
      const saved = new Map((await saveSlots(sql, owner, last)).map((row) => [row.id, row]));
      return changes.map(({ before, next }) => {
        const row = saved.get(next.id) as TaskRow;
        emitTaskEvent(outbox, eventForChange(before, row), row, now);
        return row;
      });
    });
  }

  /** Puts the task at position `sortOrder` (0-based, clamped) among its siblings and renumbers them. */
  async reorder(owner: Owner, id: string, sortOrder: number, afterWrite?: AfterWrite): Promise<TaskRow> {
    const now = this.clock.now();
    return this.write(async (sql, outbox) => {
      await lockOwnerTree(sql, owner);
      const task = await findTask(sql, owner, id);
      if (!task) throw notFound('Task');
      const ids = (await siblingIds(sql, owner, task.parent_task_id)).filter((s) => s !== id);
      ids.splice(Math.min(sortOrder, ids.length), 0, id);
      await renumberSiblings(sql, ids, now);
      const saved = await findTask(sql, owner, id);
      if (!saved) throw notFound('Task');
      await afterWrite?.(sql, outbox, task, saved);
      return saved;
    });
  }
}
