import { createHash } from 'node:crypto';
import ical, { ICalEventStatus, ICalEventTransparency } from 'ical-generator';

/** A scheduled task as the calendar feed shows it (a skipped one stays, cancelled, so apps remove it). */
export interface FeedTask {
  id: string;
  title: string;
  status: 'scheduled' | 'done' | 'skipped';
  start: Date;
  end: Date;
  updatedAt: Date;
  /** The row's version: one more with every change of the task (its revision). */
  version: number;
}

/** How far the feed reaches, as the contract fixes it: 30 days back, 90 ahead. */
export const FEED_DAYS_BACK = 30;
export const FEED_DAYS_AHEAD = 90;
/** The most events one feed holds: every upcoming one first (soonest first), then the latest past ones. */
export const FEED_MAX_EVENTS = 5000;

/** Control characters RFC 5545 TEXT cannot hold, line breaks aside (those are written `\n`). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g;

/**
 * A title as RFC 5545 TEXT can carry it: a line break (CR LF, CR or LF) is one `\n` escape, the only line
 * break the format has (it has no escape for a CR of its own); other control characters are dropped, as TEXT
 * allows none and a raw one makes the file unreadable to strict parsers.
 */
const summaryOf = (title: string) => title.replace(CONTROL, '').replace(/\r\n?/g, '\n');

/**
 * The user's plan as RFC 5545 text (ical-generator writes the escaping and folding): one VEVENT per task with
 * `UID` `{task_id}@routinely`, start and end in UTC, `STATUS` CONFIRMED or CANCELLED for skipped, `TRANSP`
 * TRANSPARENT once done or skipped (no longer busy, as the unified calendar says), `LAST-MODIFIED` and
 * `DTSTAMP` the task's last change, and `SEQUENCE` its revision. DTSTAMP has whole seconds only, so two
 * changes within one second would otherwise write the same bytes: SEQUENCE makes every change of a task a
 * change of the body, and the ETag is a hash of the body, so it changes whenever any byte does.
 */
export function renderFeed(tasks: readonly FeedTask[]): { body: string; etag: string } {
  const calendar = ical({
    name: 'Routinely',
    prodId: { company: 'Routinely', product: 'Routinely', language: 'EN' },
  });
  for (const task of tasks) {
    calendar.createEvent({
      id: `${task.id}@routinely`,
      sequence: Math.max(0, task.version - 1),
      start: task.start,
      end: task.end,
      summary: summaryOf(task.title),
      status: task.status === 'skipped' ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
      transparency: task.status === 'scheduled' ? ICalEventTransparency.OPAQUE : ICalEventTransparency.TRANSPARENT,
      stamp: task.updatedAt,
      lastModified: task.updatedAt,
    });
  }
  const body = calendar.toString();
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { body, etag };
}
