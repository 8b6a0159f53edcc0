import ICAL from 'ical.js';
import { describe, expect, it } from 'vitest';
import { type FeedTask, renderFeed } from './feed-ics.js';

const task = (id: string, overrides: Partial<FeedTask> = {}): FeedTask => ({
  id,
  title: `Task ${id}`,
  status: 'scheduled',
  start: new Date('2026-11-27T14:00:00Z'),
  end: new Date('2026-11-27T14:30:00Z'),
  updatedAt: new Date('2026-11-26T10:00:00Z'),
  ...overrides,
});

function events(body: string) {
  const calendar = new ICAL.Component(ICAL.parse(body));
  return calendar.getAllSubcomponents('vevent').map((component) => {
    const event = new ICAL.Event(component);
    return {
      uid: event.uid,
      summary: event.summary,
      start: event.startDate.toJSDate().toISOString(),
      end: event.endDate.toJSDate().toISOString(),
      utc: event.startDate.zone?.tzid === 'UTC',
      status: component.getFirstPropertyValue('status'),
      lastModified: String(component.getFirstPropertyValue('last-modified')),
    };
  });
}

describe('the calendar feed', () => {
  it('parses back with ical.js: one VEVENT per task, UTC times, the contract UID and status', () => {
    const { body } = renderFeed([
      task('a', { title: 'Call mom; then dinner, late' }),
      task('b', { status: 'skipped', start: new Date('2026-11-28T09:00:00Z'), end: new Date('2026-11-28T10:00:00Z') }),
    ]);
    expect(body.startsWith('BEGIN:VCALENDAR')).toBe(true);
    expect(events(body)).toEqual([
      {
        uid: 'a@routinely',
        summary: 'Call mom; then dinner, late',
        start: '2026-11-27T14:00:00.000Z',
        end: '2026-11-27T14:30:00.000Z',
        utc: true,
        status: 'CONFIRMED',
        lastModified: '2026-11-26T10:00:00Z',
      },
      {
        uid: 'b@routinely',
        summary: 'Task b',
        start: '2026-11-28T09:00:00.000Z',
        end: '2026-11-28T10:00:00.000Z',
        utc: true,
        status: 'CANCELLED',
        lastModified: '2026-11-26T10:00:00Z',
      },
    ]);
  });

  it('is the same bytes and ETag for the same plan, and another ETag when a task changes', () => {
    const first = renderFeed([task('a'), task('b')]);
    expect(renderFeed([task('a'), task('b')])).toEqual(first);
    const moved = renderFeed([task('a', { updatedAt: new Date('2026-11-26T11:00:00Z') }), task('b')]);
    expect(moved.etag).not.toBe(first.etag);
    expect(first.etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
  });

  it('is a valid empty calendar without tasks', () => {
    expect(events(renderFeed([]).body)).toEqual([]);
  });
});
