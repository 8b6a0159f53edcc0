import type { PassResult } from '@routinely/platform';
import type { ApiCall } from '../adapters/adapter.js';
import type { CalendarWriter, EventContent } from '../adapters/calendar-writer.js';
import type { IntegrationRow } from '../db/entities.js';
import {
  type ClaimedTask,
  claimPendingTasks,
  completeTask,
  nextWriteBackRetry,
  releaseTasks,
  type WrittenState,
} from '../db/write-back-sql.js';
import type { IntegrationContext } from './context.js';
import { apiFor } from './credentials.js';
import { loadIntegration, saveIntegration } from './integration-rows.js';
import { observeWriteLag } from './metrics.js';
import { calendarPass, noteFailure } from './write-back-calendars.js';
import { classifyFailure } from './write-back-errors.js';

const BATCH = 200;
/** Integrations written at once in a pass: their provider calls overlap, their rows are disjoint. */
const WRITERS_AT_ONCE = 16;
/** A call that failed for another reason than a rate limit or the grant is tried again after this. */
const FAILED_RETRY_MS = 30_000;

/**
 * One pass of calendar write-back: calendars to make or delete, then pending task changes, oldest first,
 * grouped per writing integration. Each task is written as it is now (the last slot wins) and stays pending
 * when a newer change came in while it was written.
 */
export async function writeBackPass(ctx: IntegrationContext): Promise<PassResult & { written: number }> {
  await calendarPass(ctx, 10);
  const now = ctx.clock.now();
  const claimed = await claimPendingTasks(
    ctx.db,
    now,
    new Date(now.getTime() + ctx.config.INTEGRATION_WRITE_BACK_CLAIM_MS),
    BATCH,
  );
  const byWriter = new Map<string, ClaimedTask[]>();
  for (const task of claimed) byWriter.set(task.writerId, [...(byWriter.get(task.writerId) ?? []), task]);
  // Integrations are written side by side (each its own provider account); one integration's tasks in turn.
  const groups = [...byWriter];
  let written = 0;
  await Promise.all(
    Array.from({ length: Math.min(WRITERS_AT_ONCE, groups.length) }, async () => {
      for (let group = groups.shift(); group; group = groups.shift()) written += await writeTasks(ctx, ...group);
    }),
  );
  return {
    more: claimed.length === BATCH,
    nextAt: await nextWriteBackRetry(ctx.db, ctx.clock.now()),
    written,
  };
}

async function writeTasks(ctx: IntegrationContext, writerId: string, tasks: ClaimedTask[]): Promise<number> {
  const row = await loadIntegration(ctx, writerId);
  const calendarId = row?.writeBackCalendarId;
  if (row?.status !== 'active' || row.writeBackUser === null || !calendarId) {
    await releaseTasks(
      ctx.db,
      tasks.map((t) => t.taskId),
      null,
    );
    return 0;
  }
  const api = apiFor(ctx, writerId);
  const writer = ctx.adapters[row.provider].writer;
  let written = 0;
  for (const [i, task] of tasks.entries()) {
    try {
      const state = await writeTask(ctx, { row, calendarId, api, writer }, task);
      await completeTask(ctx.db, task, state);
      observeWriteLag(row.provider, ctx.clock.now().getTime() - task.changedAt.getTime());
      written += 1;
    } catch (error) {
      const failure = classifyFailure(ctx, row, error);
      if (failure.kind === 'failed') {
        await releaseTasks(ctx.db, [task.taskId], new Date(ctx.clock.now().getTime() + FAILED_RETRY_MS));
        await noteFailure(ctx, writerId, failure, error);
        continue;
      }
      // Rate limited, or the grant is gone: nothing more for this integration now; the rest stays pending.
      await releaseTasks(
        ctx.db,
        tasks.slice(i).map((t) => t.taskId),
        null,
      );
      await noteFailure(ctx, writerId, failure, error);
      return written;
    }
  }
  if (written > 0) {
    await saveIntegration(ctx, row, {
      writeBackLastWrittenAt: ctx.clock.now(),
      writeBackLastError: null,
      writeBackThrottles: 0,
    });
  }
  return written;
}

interface Target {
  row: IntegrationRow;
  calendarId: string;
  api: ApiCall;
  writer: CalendarWriter;
}

/** Brings one task's event in line with its newest state; answers where the event is now. */
async function writeTask(ctx: IntegrationContext, target: Target, task: ClaimedTask): Promise<WrittenState> {
  const { row, calendarId, api, writer } = target;
  const here = task.integrationId === row.id && task.calendarId === calendarId;
  // An event written into a calendar since deleted (write-back turned off, or moved to another connection).
  const externalId = here ? task.externalId : null;
  const upstreamDeleted = here && task.upstreamDeleted;
  const none = { integrationId: null, calendarId: null, externalId: null, generation: task.generation };
  if (task.deleted || !task.slotStart || !task.slotEnd) {
    if (externalId) await writer.deleteEvent(api, calendarId, externalId);
    return { ...none, upstreamDeleted: false };
  }
  // Deleted by the user upstream: not written again until the task's slot changes (the consumer lifts the flag).
  if (upstreamDeleted) return { ...none, generation: task.generation, upstreamDeleted: true };
  const content = eventContent(ctx, row, task, task.slotStart, task.slotEnd);
  const outcome = externalId
    ? await writer.updateEvent(api, calendarId, externalId, content)
    : await writer.createEvent(api, calendarId, content);
  if (outcome === 'gone') return { ...none, generation: task.generation + 1, upstreamDeleted: true };
  return {
    integrationId: row.id,
    calendarId,
    externalId: outcome.id,
    generation: task.generation,
    upstreamDeleted: false,
  };
}

/** `show_as: "busy"` sends neither title nor description; "details" the task's, with a link to it. */
function eventContent(ctx: IntegrationContext, row: IntegrationRow, task: ClaimedTask, start: Date, end: Date) {
  const base = { taskId: task.taskId, generation: task.generation, start, end };
  if (row.writeBackShowAs !== 'details') return { ...base, title: 'Busy', description: null } satisfies EventContent;
  const link = `${ctx.config.PUBLIC_BASE_URL}/calendar?task=${task.taskId}`;
  const description = task.description ? `${task.description}\n\n${link}` : link;
  return { ...base, title: task.title, description } satisfies EventContent;
}
