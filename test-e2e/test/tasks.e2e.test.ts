import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, startTarget, type Target } from '../src/harness.js';
import { registerUser } from '../src/users.js';

let target: Target;
beforeAll(async () => {
  target = await startTarget();
});
afterAll(() => target?.close());

describe('tasks through the gateway mounts', () => {
  it('creates a tree, reads it on both mounts, and keeps tenants apart', async () => {
    const user = await registerUser(target);
    const other = await registerUser(target);
    const root = await call(target, 'POST', '/api/v1/service/tasks', {
      token: user.token,
      body: { title: 'Morning', duration_min: 0 },
    });
    expect(root.status).toBe(201);
    const child = await call(target, 'POST', '/v1/service/tasks', {
      token: user.token,
      body: { title: 'Stretch', duration_min: 15, parent_task_id: root.json.id, tags: ['health'] },
    });
    expect(child.status).toBe(201);
    expect(child.json).toMatchObject({ depth: 2, status: 'pending', priority: 3, reminder_channels: ['inapp'] });
    for (const prefix of ['/api/v1', '/v1']) {
      const tree = await call(target, 'GET', `${prefix}/service/tasks/${root.json.id}/tree`, { token: user.token });
      expect(tree.status).toBe(200);
      expect(tree.json.rolled_up_duration_min).toBe(15);
      expect(tree.json.children[0].id).toBe(child.json.id);
    }
    expect((await call(target, 'GET', `/api/v1/service/tasks/${root.json.id}`, { token: other.token })).status).toBe(
      404,
    );
    const scheduled = await call(target, 'PATCH', `/api/v1/service/tasks/${child.json.id}`, {
      token: user.token,
      body: { chosen_slot_start: '2026-12-01T08:00:00+01:00', chosen_slot_end: '2026-12-01T08:15:00+01:00' },
    });
    expect(scheduled.status).toBe(200);
    expect(scheduled.json).toMatchObject({ status: 'scheduled', chosen_slot_start: '2026-12-01T07:00:00.000Z' });
    const flat = await call(target, 'GET', '/api/v1/service/routine-tasks/tree', { token: user.token });
    expect(flat.json.map((t: { depth: number }) => t.depth)).toEqual([1, 2]);
  });
});
