import { describe, expect, it } from 'vitest';
import { startHarness } from './harness.js';

// The answer waits for the task service's report, bounded (ADR 061); with the task service here, a read right
// after the answer shows the change: services/task/test/calendar-read-your-writes.test.ts and test-e2e.
describe('a sync or disconnect on request with no task service to report', () => {
  it('answers anyway, with its counts, when no task service reports within the bound', async () => {
    const alone = await startHarness({ env: { INTEGRATION_CALENDAR_WAIT_MS: '200' } });
    try {
      const user = alone.tokens.user();
      const { integrationId } = await alone.connect(user, 'google');
      alone.google.addEvent({
        id: 'unreported',
        summary: 'Planning',
        start: { dateTime: '2026-11-23T11:00:00Z' },
        end: { dateTime: '2026-11-23T12:00:00Z' },
      });
      const res = await alone.call(user, 'POST', `/service/integrations/${integrationId}/sync`);
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({ created: 1 });
      expect((await alone.call(user, 'DELETE', `/service/integrations/${integrationId}`)).statusCode).toBe(204);
    } finally {
      await alone.close();
    }
  });
});
