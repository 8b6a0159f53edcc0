import type { Sql } from '@routinely/db';
import type { OutboxRelay } from '@routinely/events';
import type { Owner } from '@routinely/platform';
import { AppError, Batcher, type Clock, notFound } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import {
  insertChildTaskWithEvent,
  insertRootTasksWithEvents,
  type RootCreate,
  rootCreateOwner,
} from '../db/task-create-sql.js';
import { findTask, lockOwnerTree } from '../db/task-sql.js';
import { taskEvent } from './events.js';
import { MAX_DEPTH, type NewTask, newTaskRow, type TaskRow } from './task-model.js';

/**
 * Task creation, the hottest write. A root task is one statement (its task and outbox rows
 * together) outside any transaction, shared with the root creates of other requests arriving meanwhile; a
 * child needs the owner's tree lock and its parent's depth first, so it runs its own statement in a
 * transaction. Either way the answer and the event are built from the input: only the position comes back.
 */
export class TaskCreates {
  /**
   * Root creates of one owner arriving together share a statement (one commit, one round trip). At most four
   * statements run at once, one per owner: PostgreSQL shares the machine's cores anyway, and what waits
   * meanwhile goes out together when one ends (at most 64 tasks per statement).
   */
  private readonly roots: Batcher<RootCreate, number>;

  constructor(
    private readonly db: Sql,
    private readonly clock: Clock,
    private readonly relay: Pick<OutboxRelay, 'kick'>,
  ) {
    this.roots = new Batcher((creates) => insertRootTasksWithEvents(db, creates), {
      maxInFlight: 4,
      maxBatch: 64,
      keyOf: rootCreateOwner,
      // One statement per owner at a time, so concurrent root creates of one owner (on one instance) get
      // distinct positions: each statement sees the last root the previous one wrote.
      onePerKey: true,
    });
  }

  /** `afterChild` runs in a child's transaction once it is written (a routine's template carries it on). */
  async create(
    owner: Owner,
    input: NewTask,
    afterChild?: (sql: Sql, child: TaskRow) => Promise<void>,
  ): Promise<TaskRow> {
    const now = this.clock.now();
    const { parent_task_id: parentId } = input;
    let row: TaskRow;
    if (parentId) {
      row = await this.db.transaction(async (sql) => {
        await lockOwnerTree(sql, owner);
        const parent = await findTask(sql, owner, parentId);
        if (!parent) throw notFound('Parent task');
        const depth = parent.depth + 1;
        if (depth > MAX_DEPTH) throw new AppError('depth_exceeded', `Tasks nest at most ${MAX_DEPTH} levels deep`);
        const child = newTaskRow(owner, input, { id: uuidv7(), depth }, now);
        child.sort_order = await insertChildTaskWithEvent(sql, child, taskEvent('taskCreated', child, now));
        await afterChild?.(sql, child);
        return child;
      });
    } else {
      row = newTaskRow(owner, input, { id: uuidv7(), depth: 1 }, now);
      // The snapshot in the event has no sort_order, so the event is complete before the insert.
      row.sort_order = await this.roots.submit({ row, event: taskEvent('taskCreated', row, now) });
    }
    this.relay.kick();
    return row;
  }
}
