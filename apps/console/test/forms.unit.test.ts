import { describe, expect, it } from 'vitest';
import type { Task } from '../src/api/queries.js';
import { chipsOf } from '../src/quickadd/chips.js';
import { formOf, fromLocalInput, localInput, patchOf } from '../src/tasks/task-form.js';

const task: Task = {
  ...{ id: 'a', tenant_id: 't', user_id: 'u', parent_task_id: null, depth: 1, sort_order: 0, title: 'Pay the rent' },
  ...{ description: null, raw_input: null, status: 'pending', priority: 3, duration_min: 30 },
  ...{ deadline_at: '2027-03-14T16:00:00.000Z', earliest_start_at: null, reminder_channels: ['inapp'] },
  ...{ reminder_offset_min: 10, tags: ['home'], chosen_slot_start: null, chosen_slot_end: null, completed_at: null },
  ...{ created_at: '', updated_at: '', recurrence: null, series_id: null, occurrence_date: null },
};

describe('the task drawer edits times in the settings timezone', () => {
  it('shows and reads datetime-local values in that zone, whatever the browser runs in', () => {
    expect(localInput(task.deadline_at, 'America/New_York')).toBe('2027-03-14T12:00');
    expect(localInput(task.deadline_at, 'Asia/Tokyo')).toBe('2027-03-15T01:00');
    expect(fromLocalInput('2027-03-14T12:00', 'America/New_York')).toBe('2027-03-14T16:00:00Z');
    expect(fromLocalInput('', 'America/New_York')).toBeNull();
  });

  it('sends only what changed: tags without their #, a cleared deadline as null', () => {
    const before = formOf(task, 'America/New_York');
    expect(patchOf(before, before, 'America/New_York')).toEqual({});
    const after = { ...before, tags: '#home, errands ,', deadline: '', priority: 1 };
    expect(patchOf(before, after, 'America/New_York')).toEqual({
      tags: ['home', 'errands'],
      deadline_at: null,
      priority: 1,
    });
  });
});

describe('quick add shows what the parser understood as chips', () => {
  it('one chip per recognised part, dates in the settings timezone', () => {
    const chips = chipsOf(
      { title: 'Water', duration_min: 15, priority: 2, tags: ['home'], deadline_at: '2027-03-05T14:00:00Z' },
      'America/New_York',
    );
    expect(chips.map((c) => c.label)).toEqual(['15 min', 'Due Friday 5 March 09:00', 'Priority 2', '#home']);
    expect(chips.map((c) => c.key)).toEqual(['duration_min', 'deadline_at', 'priority', 'tag:home']);
  });
});
