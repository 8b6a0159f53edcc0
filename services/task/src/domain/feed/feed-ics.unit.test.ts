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
  version: 1,
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

  it('changes bytes and ETag when a task changes within the second of its last change (done: SEQUENCE, TRANSP)', () => {
    const scheduled = renderFeed([task('a', { version: 2 })]);
    // Marked done in the same second: DTSTAMP and LAST-MODIFIED read the same, the revision does not.
    const done = renderFeed([task('a', { status: 'done', version: 3 })]);
    expect(done.etag).not.toBe(scheduled.etag);
    expect(done.body).toContain('SEQUENCE:2');
    expect(done.body).toContain('TRANSP:TRANSPARENT');
    expect(scheduled.body).toContain('TRANSP:OPAQUE');
  });

  it('writes a line break of a title as RFC 5545 \\n and drops the control characters TEXT cannot hold', () => {
    const { body } = renderFeed([task('a', { title: 'Call\r\nbank\rtoday\nor\u0007 \u0000tomorrow\u001b' })]);
    expect(events(body)[0]?.summary).toBe('Call\nbank\ntoday\nor tomorrow');
    // Every content line ends with CR LF and holds no control character of its own.
    const lines = body.split('\r\n');
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what must not be there
    for (const line of lines) expect(line, JSON.stringify(line)).not.toMatch(/[\u0000-\u001f\u007f]/);
  });

  it('is a valid empty calendar without tasks', () => {
    expect(events(renderFeed([]).body)).toEqual([]);
  });
});
