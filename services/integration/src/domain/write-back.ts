import { AppError, notFound, type Owner } from '@routinely/platform';
import type { IntegrationRow, ShowAs } from '../db/entities.js';
import { ownerIntegration, updateIntegration } from '../db/integrations-sql.js';
import { markOwnerTasksPending } from '../db/write-back-sql.js';
import type { IntegrationContext } from './context.js';
import type { IntegrationPatch } from './integration-rows.js';

/** The contract's defaults: a calendar named "Routinely" showing tasks as "Busy". */
export const DEFAULT_CALENDAR_NAME = 'Routinely';
const DEFAULT_SHOW_AS: ShowAs = 'busy';

export interface WriteBackInput {
  enabled: boolean;
  calendar_name?: string | undefined;
  show_as?: ShowAs | undefined;
}

/** The row was connected with the write scope (rows from before write-back have no granted scopes recorded). */
function canWriteBack(ctx: IntegrationContext, row: IntegrationRow): boolean {
  const granted = (row.grantedScopes ?? '').split(' ');
  return granted.includes(ctx.adapters[row.provider].writeScope);
}

/** The private marker by which the dedicated calendar is found again (after a reconnect, or a lost answer). */
export function calendarMarker(row: Pick<IntegrationRow, 'userId'>): string {
  return `routinely-write-back:${row.userId}`;
}

const isOneWriterViolation = (error: unknown) =>
  error instanceof Error && error.message.includes('integrations_one_write_back_unique');

/**
 * PATCH write_back: turns write-back on or off for one integration of the owner, at most one of a user at a
 * time (the unique key on `write_back_user` settles two concurrent switches). Turning it on (or changing what
 * it shows) makes every task of the owner pending, so the worker writes them; turning it off leaves the
 * calendar id, which tells the worker to delete the calendar upstream. No provider call happens here.
 */
export async function configureWriteBack(
  ctx: IntegrationContext,
  owner: Owner,
  id: string,
  input: WriteBackInput,
): Promise<IntegrationRow> {
  try {
    const row = await ctx.db.transaction(async (sql) => {
      const row = await ownerIntegration(sql, owner, id);
      if (!row) throw notFound('Integration');
      const now = ctx.clock.now();
      let change: IntegrationPatch;
      if (input.enabled) {
        if (row.status !== 'active') {
          throw new AppError('conflict', `The integration is ${row.status}: connect it before writing back`);
        }
        if (!canWriteBack(ctx, row)) {
          throw new AppError(
            'reconnect_required',
            'The integration was connected without calendar write access: reconnect it to grant it',
          );
        }
        const showAs = input.show_as ?? row.writeBackShowAs ?? DEFAULT_SHOW_AS;
        const wasOn = row.writeBackUser !== null;
        change = {
          writeBackUser: row.userId,
          writeBackCalendarName: input.calendar_name ?? row.writeBackCalendarName ?? DEFAULT_CALENDAR_NAME,
          writeBackShowAs: showAs,
          updatedAt: now,
        };
        if (!wasOn) Object.assign(change, { writeBackLastError: null, writeBackRetryAt: null, writeBackThrottles: 0 });
        if (!wasOn || showAs !== row.writeBackShowAs) await markOwnerTasksPending(sql, owner, now);
      } else {
        change = { writeBackUser: null, updatedAt: now };
      }
      await updateIntegration(sql, row, change);
      return { ...row, ...change };
    });
    ctx.wakeWriteBack();
    return row;
  } catch (error) {
    if (isOneWriterViolation(error)) throw writeBackInUse();
    throw error;
  }
}

function writeBackInUse(): AppError {
  return new AppError('write_back_in_use', 'Another integration of yours already writes back: turn it off first');
}

/** The integration's `write_back` as the API shows it. */
export function writeBackView(row: IntegrationRow) {
  return {
    enabled: row.writeBackUser !== null,
    calendar_name: row.writeBackCalendarName ?? DEFAULT_CALENDAR_NAME,
    show_as: row.writeBackShowAs ?? DEFAULT_SHOW_AS,
    calendar_id: row.writeBackCalendarId ?? null,
    last_written_at: row.writeBackLastWrittenAt?.toISOString() ?? null,
    last_error: row.writeBackLastError ?? null,
  };
}
