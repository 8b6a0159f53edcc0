import type { Sql } from '@routinely/db';
import type { Clock, Logger } from '@routinely/platform';
import { localDateStringOf, plusLocalDays, startOfLocalDay } from '@routinely/time';
import type { Actor, DashboardPeers } from '../../adapters/dashboard-peers.js';
import { findTimezone } from '../../db/calendar-sql.js';
import { countDueTasks } from '../../db/dashboard-sql.js';
import { findSpendDay } from '../../db/scheduler-copies-sql.js';

const DAY_MS = 24 * 3_600_000;

/** The figures another service owns; each is null, and named in `degraded`, while its owner cannot answer. */
type PeerFigure = 'reminders_next_24h' | 'notifications_unread' | 'integrations_connected';

export interface DashboardSummary {
  tasks_due_today: number;
  tasks_overdue: number;
  reminders_next_24h: number | null;
  integrations_connected: number | null;
  llm_spend_today_usd: number;
  notifications_unread: number | null;
  date: string;
  timezone: string;
  degraded: PeerFigure[];
}

/**
 * The per-user rollup of the dashboard (ADR 025). Task figures and the scheduler's (today's spend, the
 * settings timezone: copies fed by its events, ADR 056) are read here; delivery's and integration's are asked
 * of them, at once and each under its deadline, so one slow owner delays the answer by at most that deadline
 * and costs only its own figures.
 */
export class DashboardSummaryReader {
  constructor(
    private readonly db: Sql,
    private readonly clock: Clock,
    private readonly peers: DashboardPeers,
    private readonly logger: Logger,
  ) {}

  async summary(actor: Actor): Promise<DashboardSummary> {
    const now = this.clock.now();
    const [delivery, integration] = await Promise.allSettled([
      this.peers.deliverySummary(actor, { start: now, end: new Date(now.getTime() + DAY_MS) }),
      this.peers.integrationSummary(actor),
    ]);
    this.logFailures({ delivery, integration });
    const sql = this.db;
    // "Today" is the calendar day in the user's settings timezone (else the profile's, else UTC), as the
    // scheduler counts the day's spend.
    const timezone = (await findTimezone(sql, actor)) ?? 'UTC';
    const date = localDateStringOf(now, timezone);
    const endOfToday = plusLocalDays(startOfLocalDay(now, timezone), 1, timezone);
    const [tasks, spend] = await Promise.all([
      countDueTasks(sql, actor, now, endOfToday),
      findSpendDay(sql, actor, date),
    ]);

    const degraded: PeerFigure[] = [];
    const figure = <T, V>(result: PromiseSettledResult<T>, names: PeerFigure[], pick: (value: T) => V): V | null => {
      if (result.status === 'fulfilled') return pick(result.value);
      degraded.push(...names);
      return null;
    };
    const reminders = figure(delivery, ['reminders_next_24h', 'notifications_unread'], (d) => d);
    return {
      tasks_due_today: tasks.dueToday,
      tasks_overdue: tasks.overdue,
      reminders_next_24h: reminders?.remindersScheduled ?? null,
      integrations_connected: figure(integration, ['integrations_connected'], (i) => i.integrationsConnected),
      llm_spend_today_usd: spend,
      notifications_unread: reminders?.notificationsUnread ?? null,
      date,
      timezone,
      degraded: degraded.sort(),
    };
  }

  private logFailures(results: Record<string, PromiseSettledResult<unknown>>): void {
    for (const [service, result] of Object.entries(results)) {
      if (result.status === 'rejected') {
        const code = (result.reason as { code?: string } | undefined)?.code ?? 'unknown';
        this.logger.warn({ peer: service, code }, 'dashboard figure unavailable: its owner did not answer');
      }
    }
  }
}
