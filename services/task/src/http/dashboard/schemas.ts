import { dateOut, nameSchemas } from '@routinely/platform';
import { z } from 'zod';

const peerFigure = z.enum(['integrations_connected', 'notifications_unread', 'reminders_next_24h']);

export const dashboardSummary = z
  .object({
    tasks_due_today: z
      .number()
      .int()
      .describe('open tasks (pending or scheduled) whose deadline lies between now and the end of local today'),
    tasks_overdue: z.number().int().describe('open tasks whose deadline has passed'),
    reminders_next_24h: z
      .number()
      .int()
      .nullable()
      .describe('scheduled reminders firing within the next 24 hours (delivery service); null while it cannot answer'),
    integrations_connected: z
      .number()
      .int()
      .nullable()
      .describe('active calendar connections (integration service); null while it cannot answer'),
    llm_spend_today_usd: z
      .number()
      .describe(
        "model spend counted on local today, USD: the scheduler's figure as its events told this service (no spend is counted while the scheduler is down)",
      ),
    notifications_unread: z
      .number()
      .int()
      .nullable()
      .describe('unread bell notifications (delivery service); null while it cannot answer'),
    date: dateOut().describe('local today, YYYY-MM-DD'),
    timezone: z.string().describe("IANA zone of 'today': the settings timezone, else the profile's, else UTC"),
    degraded: z
      .array(peerFigure)
      .describe('figures whose owning service did not answer in time (each is null); empty when all answered'),
  })
  .describe(
    "The caller's rollup; 'today' is the calendar day in their timezone. Delivery's and integration's figures " +
      'are read from them over gRPC; when one does not answer, its figures are null and named in `degraded` ' +
      "(the answer stays 200): a dashboard shows what it has rather than nothing (ADR 025). The scheduler's " +
      'spend comes from its events (ADR 056).',
  );

export interface TileRead {
  id: string;
  title: string;
  path: string;
  permission: string;
  children: TileRead[];
}

const tileRead: z.ZodType<TileRead> = z.lazy(() =>
  z.object({
    id: z.string(),
    title: z.string(),
    path: z.string().describe('canonical API path (under /api/v1) the tile opens, a GET its permission allows'),
    permission: z.string().describe('permission code that shows the tile'),
    children: z.array(tileRead),
  }),
);

const healthStatus = z.enum(['ok', 'degraded', 'down']);

const component = z
  .object({
    status: healthStatus,
    latency_ms: z.number().optional().describe('how long the probe took, milliseconds'),
    detail: z.string().optional().describe('what the status rests on, for people'),
  })
  .catchall(z.unknown());

export const adminHealth = z.object({
  status: healthStatus,
  components: z.object({
    database: component,
    cache: component,
    model_registry: component,
    integrations: component,
    reminder_worker: component,
    calendar_worker: component,
    event_consumers: component,
  }),
});

export const ADMIN_HEALTH_DESCRIPTION = [
  'Probes every component at once (ADR 026). Rules:',
  '- `database`: `select 1` on the task database with its latency; no answer within the probe deadline is `down`.',
  '- `cache`: Redis PING with its latency when REDIS_URL is set (no answer: `degraded`); `ok` in-process otherwise.',
  "- `model_registry`: the scheduler's providers (`providers`: configured or not, last call's outcome, as its",
  "  events reported them); `degraded` when a configured language-model provider's last call failed, or while no",
  '  scheduler has reported its configuration yet.',
  "- `integrations`: the tenant's connections by status (`counts`), push channels near expiry and expired;",
  '  `degraded` when a channel expired without renewal; `down` when the integration service does not answer.',
  "- `reminder_worker` (delivery's reminder firer) and `calendar_worker` (integration's sync and channel renewal):",
  '  `degraded` when not running in the answering process or when the last finished pass is older than',
  '  max(3 poll intervals, 60 s); `down` when the owning service does not answer.',
  "- `event_consumers` (ADR 029): every service's event consumers; `degraded` while any of them stored a dead letter",
  '  in the last hour (`dead_letters`: consumer, event type, count, newest). A service that does not answer is',
  '  named in `detail` (its own component says it is down).',
  'Overall: `down` when the database is down, else `degraded` when any component is not `ok`, else `ok`. The',
  'answer is 200 whatever the status: the body says it.',
].join('\n');

export const tileList = z.array(tileRead);

// Named in the OpenAPI document (components.schemas).
nameSchemas({ DashboardSummary: dashboardSummary, DashboardTile: tileRead, AdminHealth: adminHealth });
