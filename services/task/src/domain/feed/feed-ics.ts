import { createHash } from 'node:crypto';
import ical, { ICalEventStatus } from 'ical-generator';

/** A scheduled task as the calendar feed shows it (a skipped one stays, cancelled, so apps remove it). */
export interface FeedTask {
  id: string;
  title: string;
  status: 'scheduled' | 'done' | 'skipped';
  start: Date;
  end: Date;
  updatedAt: Date;
}

/** How far the feed reaches, as the contract fixes it: 30 days back, 90 ahead. */
export const FEED_DAYS_BACK = 30;
export const FEED_DAYS_AHEAD = 90;

/**
 * The user's plan as RFC 5545 text (ical-generator writes the escaping and folding): one VEVENT per task with
 * `UID` `{task_id}@routinely`, start and end in UTC, `STATUS` CONFIRMED or CANCELLED for skipped, and
 * `LAST-MODIFIED`. `DTSTAMP` is the task's last change too, so the same plan is the same bytes and its ETag
 * lets polling calendar apps get 304s.
 */
export function renderFeed(tasks: readonly FeedTask[]): { body: string; etag: string } {
  const calendar = ical({
    name: 'Routinely',
    prodId: { company: 'Routinely', product: 'Routinely', language: 'EN' },
  });
  for (const task of tasks) {
    calendar.createEvent({
      id: `${task.id}@routinely`,
      start: task.start,
      end: task.end,
      summary: task.title,
      status: task.status === 'skipped' ? ICalEventStatus.CANCELLED : ICalEventStatus.CONFIRMED,
      stamp: task.updatedAt,
      lastModified: task.updatedAt,
    });
  }
  const body = calendar.toString();
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { body, etag };
}
