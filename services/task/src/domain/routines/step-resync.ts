import type { Sql } from '@routinely/db';
import type { EventEnvelope } from '@routinely/events';
import type { Clock, Owner } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import { copyDependencies, futureOpenOccurrences, insertOccurrenceRows, templateRootOf } from '../../db/series-sql.js';
import { bumpVersions, deleteTasks, saveTask, subtreeRows, subtreesRows } from '../../db/task-sql.js';
import { emitTaskEvent, eventForChange } from '../events.js';
import { applyStatusAndSlot } from '../scheduling.js';
import type { TaskRow } from '../task-model.js';
import { fillContext, type PlacementBlock, requestPlacement } from './series-fill.js';
import { occurrenceCopy } from './series-plan.js';

/**
 * After a change to a routine's template steps (the routine holding `taskId`, if any): each future open
 * occurrence drops its step copies and gets fresh copies of the template's steps under the same root.
 */
export async function resyncSteps(sql: Sql, outbox: EventEnvelope[], owner: Owner, taskId: string, clock: Clock) {
  const series = await templateRootOf(sql, owner, taskId);
  if (!series?.recurrence) return;
  const context = await fillContext(sql, owner, clock);
  const future = await futureOpenOccurrences(sql, owner, series.id, context.today.toString(), context.now);
  if (future.length === 0) return;
  const template = await subtreeRows(sql, owner, series.id);
  const replaced: PlacementBlock[] = [];
  for (const occurrence of future) {
    const steps = (await subtreeRows(sql, owner, occurrence.id)).filter((row) => row.parent_task_id === occurrence.id);
    await deleteTrees(
      sql,
      outbox,
      owner,
      steps.map((row) => row.id),
      context.now,
    );
    const copy = occurrenceCopy(template, series.recurrence, occurrence.occurrence_date as string, {
      timezone: context.timezone,
      rootSortOrder: occurrence.sort_order,
      newId: uuidv7,
      rootId: occurrence.id,
    });
    const written = await insertOccurrenceRows(sql, owner, copy.rows.slice(1), context.now);
    await copyDependencies(sql, owner, copy.copies);
    for (const row of written) emitTaskEvent(outbox, 'taskCreated', row, context.now);
    replaced.push({ ids: [occurrence.id, ...written.map((row) => row.id)], deadlineAt: occurrence.deadline_at });
  }
  // The new steps have no slots yet: the occurrence's block is placed again with them.
  requestPlacement(outbox, series, replaced, context.now);
}

/**
 * The steps of a task made a routine lose their slots as the task did (the template is never scheduled).
 * Answers the template (the task's subtree) as it is now, for the fill that follows.
 */
export async function unscheduleSteps(sql: Sql, outbox: EventEnvelope[], owner: Owner, seriesId: string, now: Date) {
  const template: TaskRow[] = [];
  for (const row of await subtreeRows(sql, owner, seriesId)) {
    if (row.id === seriesId || row.chosen_slot_start === null) {
      template.push(row);
      continue;
    }
    const cleared = applyStatusAndSlot(row, { chosen_slot_start: null, chosen_slot_end: null }, now);
    const saved = await saveTask(sql, { ...cleared, updated_at: now });
    emitTaskEvent(outbox, eventForChange(row, saved), saved, now);
    template.push(saved);
  }
  return template;
}

/**
 * Deletes whole subtrees (roots not nested in each other) with one deleted event per removed task, as a task
 * DELETE does: three statements however many (a series' 60 days of occurrences go at once).
 */
export async function deleteTrees(
  sql: Sql,
  outbox: EventEnvelope[],
  owner: Owner,
  rootIds: readonly string[],
  now: Date,
) {
  const rows = await subtreesRows(sql, owner, rootIds);
  const versions = await bumpVersions(
    sql,
    rows.map((row) => row.id),
  );
  await deleteTasks(sql, owner, rootIds);
  for (const row of rows) {
    emitTaskEvent(outbox, 'taskDeleted', { ...row, version: versions.get(row.id) ?? row.version + 1 }, now);
  }
}
