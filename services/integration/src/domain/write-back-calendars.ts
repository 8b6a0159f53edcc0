import { integrationById, updateIntegration } from '../db/integrations-sql.js';
import { calendarWorkDue, forgetWrittenEvents } from '../db/write-back-sql.js';
import type { IntegrationContext } from './context.js';
import { apiFor } from './credentials.js';
import { loadIntegration, saveIntegration } from './integration-rows.js';
import { describeFailure } from './log-safe.js';
import { markReauthRequired } from './sync.js';
import { calendarMarker, DEFAULT_CALENDAR_NAME } from './write-back.js';
import { classifyFailure } from './write-back-errors.js';

/**
 * The dedicated calendars: one is made (or found again by its private marker, after a reconnect or an answer
 * lost to a crash) for an integration that writes back without one; one whose integration stopped writing back
 * is deleted upstream with every event in it. Each runs under the integration's lease (one at a time).
 */
export async function calendarPass(ctx: IntegrationContext, limit: number): Promise<number> {
  const due = await calendarWorkDue(ctx.db, ctx.clock.now(), limit);
  let done = 0;
  for (const id of due) {
    const lease = await ctx.leases.take(id);
    if (!lease) continue;
    try {
      if (await settleCalendar(ctx, id)) done += 1;
    } finally {
      await ctx.leases.release(lease);
    }
  }
  return done;
}

async function settleCalendar(ctx: IntegrationContext, id: string): Promise<boolean> {
  const row = await loadIntegration(ctx, id);
  if (row?.status !== 'active') return false;
  const writer = ctx.adapters[row.provider].writer;
  const api = apiFor(ctx, id);
  try {
    if (row.writeBackUser !== null && row.writeBackCalendarId === null) {
      const marker = calendarMarker(row);
      const calendarId =
        (await writer.findCalendar(api, marker)) ??
        (await writer.createCalendar(api, row.writeBackCalendarName ?? DEFAULT_CALENDAR_NAME, marker));
      await saveIntegration(ctx, row, {
        writeBackCalendarId: calendarId,
        writeBackLastError: null,
        writeBackThrottles: 0,
        updatedAt: ctx.clock.now(),
      });
      return true;
    }
    const leftOver = row.writeBackCalendarId;
    if (row.writeBackUser === null && leftOver) {
      await writer.deleteCalendar(api, leftOver);
      await ctx.db.transaction(async (sql) => {
        await forgetWrittenEvents(sql, id);
        // Turned on again meanwhile: the next pass makes (or finds) a calendar again.
        const fresh = await integrationById(sql, id);
        if (fresh) await updateIntegration(sql, fresh, { writeBackCalendarId: null, updatedAt: ctx.clock.now() });
      });
      return true;
    }
    return false;
  } catch (error) {
    await noteFailure(ctx, row.id, classifyFailure(ctx, row, error), error);
    return false;
  }
}

/** Records a failed write-back call on its integration (reauth: the integration needs the user; see sync.ts). */
export async function noteFailure(
  ctx: IntegrationContext,
  id: string,
  failure: ReturnType<typeof classifyFailure>,
  error: unknown,
): Promise<void> {
  const row = await loadIntegration(ctx, id);
  if (!row) return;
  const now = ctx.clock.now();
  if (failure.kind === 'reauth') {
    await saveIntegration(ctx, row, { writeBackLastError: 'reauth_required', updatedAt: now });
    await markReauthRequired(ctx, id);
    return;
  }
  if (failure.kind === 'throttled') {
    await saveIntegration(ctx, row, {
      writeBackLastError: 'provider_throttled',
      writeBackRetryAt: failure.retryAt,
      writeBackThrottles: row.writeBackThrottles + 1,
      updatedAt: now,
    });
    return;
  }
  ctx.logger.warn({ integration_id: id, provider: row.provider, err: describeFailure(error) }, 'write-back failed');
  await saveIntegration(ctx, row, { writeBackLastError: failure.code, updatedAt: now });
}
