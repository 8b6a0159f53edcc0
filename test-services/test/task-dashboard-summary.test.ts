import { taskModule } from '@routinely/task';
import { startServiceHarness, type TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type DashboardHarness, startDashboardHarness } from './dashboard-harness.js';
import { INTERNAL_SECRET, NO_PEER } from './internal.js';

// 23:30 on Saturday 21 November in New York (UTC-5), already Sunday in UTC: "today" must be the local day.
const NOW = '2026-11-22T04:30:00.000Z';

let h: DashboardHarness;
let ada: TestUser;

async function createTask(body: Record<string, unknown>) {
  const res = await h.task.call(ada, 'POST', '/service/tasks', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as { id: string };
}

async function patchTask(id: string, body: Record<string, unknown>) {
  const res = await h.task.call(ada, 'PATCH', `/service/tasks/${id}`, body);
  expect(res.statusCode, res.body).toBe(200);
}

const summaryOf = async (user: TestUser) => h.task.call(user, 'GET', '/service/dashboard/summary');

beforeAll(async () => {
  h = await startDashboardHarness(NOW);
  ada = h.task.tokens.user();
  const settings = await h.scheduler.call(ada, 'PATCH', '/service/settings/me', { timezone: 'America/New_York' });
  expect(settings.statusCode, settings.body).toBe(200);

  await createTask({ title: 'due at 23:45 local', deadline_at: '2026-11-22T04:45:00Z' });
  await createTask({ title: 'due 00:15 local tomorrow, same UTC day', deadline_at: '2026-11-22T05:15:00Z' });
  await createTask({ title: 'missed at 22:00 local', deadline_at: '2026-11-22T03:00:00Z' });
  await createTask({ title: 'missed this morning', deadline_at: '2026-11-21T06:00:00Z' });
  const done = await createTask({ title: 'done, not overdue', deadline_at: '2026-11-22T03:00:00Z' });
  await patchTask(done.id, { status: 'done' });
  await createTask({ title: 'no deadline' });
  // Reminders come from task events: one slot inside the next 24 hours, one beyond.
  const soon = await createTask({ title: 'slot tomorrow morning', reminder_channels: ['inapp'] });
  await patchTask(soon.id, { chosen_slot_start: '2026-11-22T14:00:00Z', chosen_slot_end: '2026-11-22T15:00:00Z' });
  const later = await createTask({ title: 'slot in three days', reminder_channels: ['inapp'] });
  await patchTask(later.id, { chosen_slot_start: '2026-11-25T14:00:00Z', chosen_slot_end: '2026-11-25T15:00:00Z' });

  // Model spend past the soft cap ($5): the scheduler's ledger, and its soft-cap event puts a notice in the bell.
  await h.scheduler.service.domain.usage.record(ada, {
    runId: null,
    provider: 'openai',
    model: 'gpt-4.1-mini',
    inputTokens: 10_000_000,
    outputTokens: 2_000_000,
    reservationId: null,
  });

  await h.connectGoogle(ada);
}, 60_000);

afterAll(() => h?.close());

describe('GET /dashboard/summary', () => {
  it("answers every figure of its owner, 'today' being the local day of the settings timezone", async () => {
    const usage = await h.scheduler.call(ada, 'GET', '/service/llm/usage/today');
    expect(usage.statusCode, usage.body).toBe(200);
    const spend = usage.json().total_usd as number;
    expect(spend).toBeGreaterThan(5);

    // Reminders, the bell notice, the spend and the settings timezone arrive by events: wait for them.
    await vi.waitFor(
      async () => {
        const res = await summaryOf(ada);
        expect(res.json()).toMatchObject({
          reminders_next_24h: 1,
          notifications_unread: 1,
          llm_spend_today_usd: spend,
          timezone: 'America/New_York',
        });
      },
      { timeout: 15_000, interval: 100 },
    );
    const res = await summaryOf(ada);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      tasks_due_today: 1,
      tasks_overdue: 2,
      reminders_next_24h: 1,
      integrations_connected: 1,
      llm_spend_today_usd: spend,
      notifications_unread: 1,
      date: '2026-11-21',
      timezone: 'America/New_York',
      degraded: [],
    });
  });

  it('gives the same figures to a token holding only SERVICE_TASK_READ, and 403 to one without it', async () => {
    const full = (await summaryOf(ada)).json();
    const readOnly = await summaryOf({ ...ada, roles: [], permissions: ['SERVICE_TASK_READ'] });
    expect(readOnly.statusCode, readOnly.body).toBe(200);
    expect(readOnly.json()).toEqual(full);

    const withoutRead = h.task.tokens.user({ permissions: ['SERVICE_TASK_CREATE', 'SERVICE_SCHEDULE_RUN'] });
    const refused = await summaryOf(withoutRead);
    expect(refused.statusCode).toBe(403);
    expect(refused.json()).toMatchObject({ code: 'forbidden' });
  });

  it("counts only the caller's own rows: a colleague in the same tenant sees zeros", async () => {
    const bob = h.task.tokens.user({ tenantId: ada.tenantId });
    const res = await summaryOf(bob);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      tasks_due_today: 0,
      tasks_overdue: 0,
      reminders_next_24h: 0,
      integrations_connected: 0,
      llm_spend_today_usd: 0,
      notifications_unread: 0,
      timezone: 'UTC',
      date: '2026-11-22',
      degraded: [],
    });
  });

  it('answers null for the figures of an owner that does not answer, and names them in degraded', async () => {
    // A second task instance on the same database whose delivery address has nothing listening.
    const cut = await startServiceHarness(taskModule, {
      clock: h.clock,
      db: h.task.db,
      internalSecret: INTERNAL_SECRET,
      grpcAddresses: { delivery: NO_PEER, integration: h.addresses.integration },
    });
    try {
      const res = await cut.call(ada, 'GET', '/service/dashboard/summary');
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        tasks_due_today: 1,
        tasks_overdue: 2,
        reminders_next_24h: null,
        notifications_unread: null,
        integrations_connected: 1,
        timezone: 'America/New_York',
        degraded: ['notifications_unread', 'reminders_next_24h'],
      });
    } finally {
      await cut.close();
    }
  });
});
