import type { TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DashboardHarness, startDashboardHarness } from './dashboard-harness.js';

// The integration service and this one on one event transport, as in a deployment: a sync or disconnect on
// request answers once this service's copy of the provider events holds it (ADR 061), so the unified calendar
// read right after the answer, once and without polling, shows it.
let h: DashboardHarness;
beforeAll(async () => {
  // No background sync: only the requests under test change the copy.
  h = await startDashboardHarness('2026-11-21T08:00:00.000Z', {
    integrationEnv: { INTEGRATION_WORKERS_ENABLED: 'false' },
  });
});
afterAll(() => h?.close());

const window = { from: '2026-11-23T00:00:00.000Z', to: '2026-11-24T00:00:00.000Z' };
async function calendar(user: TestUser) {
  const res = await h.task.call(user, 'GET', `/service/calendar/events?from=${window.from}&to=${window.to}`);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as { events: { external_id?: string }[] }).events.map((e) => e.external_id);
}

describe('the unified calendar right after a sync or disconnect on request', () => {
  it('shows what the sync changed and drops a disconnected integration', async () => {
    const user = h.task.tokens.user();
    const integrationId = await h.connectGoogle(user);
    const sync = () => h.integration.call(user, 'POST', `/service/integrations/${integrationId}/sync`);
    h.google.addEvent({
      id: 'ryw-standup',
      summary: 'Standup',
      start: { dateTime: '2026-11-23T09:00:00Z' },
      end: { dateTime: '2026-11-23T09:15:00Z' },
    });
    const first = await sync();
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ created: 1 });
    expect(await calendar(user)).toEqual(['ryw-standup']);

    h.google.cancelEvent('ryw-standup');
    h.google.addEvent({
      id: 'ryw-review',
      summary: 'Review',
      start: { dateTime: '2026-11-23T14:00:00Z' },
      end: { dateTime: '2026-11-23T15:00:00Z' },
    });
    const second = await sync();
    expect(second.json()).toMatchObject({ created: 1, deleted: 1 });
    expect(await calendar(user)).toEqual(['ryw-review']);

    expect((await h.integration.call(user, 'DELETE', `/service/integrations/${integrationId}`)).statusCode).toBe(204);
    expect(await calendar(user)).toEqual([]);
  });
});
