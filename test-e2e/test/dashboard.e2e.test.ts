import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTarget, type Target } from '../src/harness.js';
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
    const overdue = await call(target, 'POST', '/api/v1/service/tasks', {
      token: user.token,
      body: { title: 'Missed', deadline_at: '2020-01-01T00:00:00Z' },
    });
    expect(overdue.status).toBe(201);
    for (const prefix of ['/api/v1', '/v1']) {
      const summary = await call(target, 'GET', `${prefix}/service/dashboard/summary`, { token: user.token });
      expect(summary.status).toBe(200);
      // Every owner answered over gRPC inside the process: no figure is missing.
      expect(summary.json).toMatchObject({
        tasks_overdue: 1,
        tasks_due_today: 0,
        reminders_next_24h: 0,
        integrations_connected: 0,
        llm_spend_today_usd: 0,
        notifications_unread: 0,
        degraded: [],
      });
      const tiles = await call(target, 'GET', `${prefix}/service/dashboard/tiles`, { token: user.token });
      expect(tiles.status).toBe(200);
      expect(tiles.json.map((t: { id: string }) => t.id)).toContain('tasks');
      expect(tiles.json.map((t: { id: string }) => t.id)).not.toContain('admin');
    }
    const refused = await call(target, 'GET', '/api/v1/service/admin/health', { token: user.token });
    expect(refused.status).toBe(403);

    // The tenant's admin sees the admin tiles and the health page, every peer answering in the process.
    const adminTiles = await call(target, 'GET', '/v1/service/dashboard/tiles', { token: admin.token });
    expect(adminTiles.json.map((t: { id: string }) => t.id)).toContain('admin');
    const health = await call(target, 'GET', '/api/v1/service/admin/health', { token: admin.token });
    expect(health.status).toBe(200);
    expect(health.json.components).toMatchObject({
      database: { status: 'ok' },
      model_registry: { status: 'ok' },
      integrations: { status: 'ok' },
    });
  });
});
