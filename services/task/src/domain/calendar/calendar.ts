import type { Sql } from '@routinely/db';
import { AppError, type Clock, type FieldLoc, fieldError, notFound, type Owner } from '@routinely/platform';
import { plusLocalDays, plusLocalMonths, startOfLocalDay } from '@routinely/time';
import { externalEventsIn, findExternalEvent, findTimezone, slottedTasksIn } from '../../db/calendar-sql.js';
import type { TaskRow } from '../task-model.js';
import type { TaskService } from '../tasks.js';
import { type BusyBlock, mergeBusy } from './free-busy.js';
import { byStart, externalEvent, taskEvent, type UnifiedEvent } from './unified.js';

export const VIEWS = ['day', 'week', 'month', 'agenda'] as const;
type CalendarView = (typeof VIEWS)[number];

const DAY_MS = 86_400_000;
const MAX_EVENTS_WINDOW_DAYS = 366;
const MAX_FREE_BUSY_DAYS = 93;
const MAX_BUSY_RPC_DAYS = 366;
/** Upper bound of rows one busy read takes per source (a window of 366 days of back-to-back events fits). */
const BUSY_ROWS = 20_000;

export interface EventsQuery {
  from?: Date | undefined;
  to?: Date | undefined;
  view: CalendarView;
  limit: number;
}

/** `to` from `from` by the view's length, in local days and calendar months of the user's timezone. */
function viewEnd(from: Date, view: CalendarView, timeZone: string): Date {
  switch (view) {
    case 'day':
      return plusLocalDays(from, 1, timeZone);
    case 'week':
      return plusLocalDays(from, 7, timeZone);
    case 'month':
      return plusLocalMonths(from, 1, timeZone);
    case 'agenda':
      return plusLocalDays(from, 30, timeZone);
  }
}

/** Done and skipped tasks keep their slot, so they stay on the calendar. */
function onCalendar(row: TaskRow): UnifiedEvent {
  const event = taskEvent(row);
  if (!event) throw new Error(`task ${row.id} left the calendar on a status change`);
  return event;
}

/** `toLoc` names the end field in the caller's terms (a query parameter, a gRPC request field). */
function checkWindow(from: Date, to: Date, maxDays: number, toLoc: FieldLoc = ['query', 'to']): void {
  if (to <= from) throw fieldError(toLoc, 'must be after the start of the window');
  if (to.getTime() - from.getTime() > maxDays * DAY_MS) {
    throw fieldError(toLoc, `the window spans at most ${maxDays} days`);
  }
}

/**
 * The unified calendar: the user's scheduled tasks and the provider events the integration service reported,
 * as one list, one free/busy view and the scheduler's busy read. Task-backed events change only through the
 * TaskService, so their task events (reminders, webhooks) follow as for any other task change.
 */
export class CalendarService {
  constructor(
    private readonly db: Sql,
    private readonly clock: Clock,
    private readonly tasks: TaskService,
  ) {}

  /**
   * The user's IANA timezone. The scheduler's settings will own it; until then the zone the auth service last
   * reported (kept from its user events), else UTC. The one place to repoint.
   */
  async userTimezone(owner: Owner): Promise<string> {
    return (await findTimezone(this.db, owner)) ?? 'UTC';
  }

  async list(owner: Owner, query: EventsQuery) {
    const timeZone = await this.userTimezone(owner);
    const from = query.from ?? startOfLocalDay(this.clock.now(), timeZone);
    const to = query.to ?? viewEnd(from, query.view, timeZone);
    checkWindow(from, to, MAX_EVENTS_WINDOW_DAYS);
    const events = await this.eventsIn(owner, { from, to }, { limit: query.limit });
    return { from, to, view: query.view, events: events.slice(0, query.limit) };
  }

  private async eventsIn(
    owner: Owner,
    window: { from: Date; to: Date },
    options: { limit: number; busyOnly?: boolean; excludeTaskIds?: readonly string[] },
  ): Promise<UnifiedEvent[]> {
    const sql = this.db;
    const [tasks, externals] = await Promise.all([
      slottedTasksIn(sql, owner, window, {
        limit: options.limit,
        busyOnly: options.busyOnly ?? false,
        excludeIds: options.excludeTaskIds ?? [],
      }),
      externalEventsIn(sql, owner, window, { limit: options.limit, busyOnly: options.busyOnly ?? false }),
    ]);
    const events = tasks.flatMap((row) => taskEvent(row) ?? []);
    return [...events, ...externals.map(externalEvent)].sort(byStart);
  }

  /** A task-backed event (a task of the owner with a slot) or a live provider event of the owner. */
  async get(owner: Owner, id: string): Promise<UnifiedEvent> {
    const sql = this.db;
    const external = await findExternalEvent(sql, owner, id);
    if (external) return externalEvent(external);
    const task = await this.tasks.find(owner, id);
    const event = task && taskEvent(task);
    if (!event) throw notFound('Event');
    return event;
  }

  async markDone(owner: Owner, id: string): Promise<UnifiedEvent> {
    return onCalendar(await this.changeTask(owner, id, { status: 'done' }));
  }

  async skip(owner: Owner, id: string): Promise<UnifiedEvent> {
    return onCalendar(await this.changeTask(owner, id, { status: 'skipped' }));
  }

  /** The task goes back to pending without its slot; its taskUnscheduled event cancels the reminder. */
  async unschedule(owner: Owner, id: string): Promise<void> {
    await this.changeTask(owner, id, { status: 'pending', chosen_slot_start: null, chosen_slot_end: null });
  }

  private async changeTask(owner: Owner, id: string, patch: Parameters<TaskService['update']>[2]): Promise<TaskRow> {
    if (await findExternalEvent(this.db, owner, id)) {
      throw new AppError('event_not_editable', 'Events of a connected calendar are changed in that calendar');
    }
    return this.tasks.update(owner, id, patch, { requireSlot: true });
  }

  async freeBusy(owner: Owner, window: { from: Date; to: Date }): Promise<BusyBlock[]> {
    checkWindow(window.from, window.to, MAX_FREE_BUSY_DAYS);
    return mergeBusy(await this.eventsIn(owner, window, { limit: BUSY_ROWS, busyOnly: true }), window);
  }

  /** The scheduler's read: busy blocks of every source, leaving out the tasks it is about to place. */
  async busy(owner: Owner, window: { from: Date; to: Date }, excludeTaskIds: readonly string[]): Promise<BusyBlock[]> {
    checkWindow(window.from, window.to, MAX_BUSY_RPC_DAYS, ['request', 'windowEnd']);
    const events = await this.eventsIn(owner, window, { limit: BUSY_ROWS, busyOnly: true, excludeTaskIds });
    return mergeBusy(events, window);
  }
}
