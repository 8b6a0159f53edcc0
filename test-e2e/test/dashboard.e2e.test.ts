import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aliasApiFor, apiFor, startTarget, type Target } from '../src/harness.js';
import { registerUser } from '../src/users.js';

let target: Target;
beforeAll(async () => {
  target = await startTarget();
});
afterAll(() => target?.close());

describe('dashboard through the gateway mounts', () => {
  it("answers a member's summary from every owning service, and their tiles, on both mounts", async () => {
    const admin = await registerUser(target);
    const user = await registerUser(target, admin);
    const asUser = apiFor(target, user.token);
    const overdue = await asUser.POST('/api/v1/service/tasks', {
      body: { title: 'Missed', deadline_at: '2020-01-01T00:00:00Z' },
    });
    expect(overdue.response.status).toBe(201);
    for (const api of [asUser, aliasApiFor(target, user.token)]) {
      const summary = await api.GET('/api/v1/service/dashboard/summary');
      expect(summary.response.status).toBe(200);
      // Every owner answered over gRPC inside the process: no figure is missing.
      expect(summary.data).toMatchObject({
        tasks_overdue: 1,
        tasks_due_today: 0,
        reminders_next_24h: 0,
        integrations_connected: 0,
        llm_spend_today_usd: 0,
        notifications_unread: 0,
        degraded: [],
      });
      const tiles = await api.GET('/api/v1/service/dashboard/tiles');
      expect(tiles.response.status).toBe(200);
      expect(tiles.data?.map((t) => t.id)).toContain('tasks');
      expect(tiles.data?.map((t) => t.id)).not.toContain('admin');
    }
    const refused = await asUser.GET('/api/v1/service/admin/health');
    expect(refused.response.status).toBe(403);

    // The tenant's admin sees the admin tiles and the health page, every peer answering in the process.
    const adminTiles = await aliasApiFor(target, admin.token).GET('/api/v1/service/dashboard/tiles');
    expect(adminTiles.data?.map((t) => t.id)).toContain('admin');
    const health = await apiFor(target, admin.token).GET('/api/v1/service/admin/health');
    expect(health.response.status).toBe(200);
    expect(health.data?.components).toMatchObject({
      database: { status: 'ok' },
      model_registry: { status: 'ok' },
      integrations: { status: 'ok' },
    });
  });
});
