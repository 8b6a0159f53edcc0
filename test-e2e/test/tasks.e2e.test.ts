import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aliasApiFor, apiFor, invalidBody, startTarget, type Target } from '../src/harness.js';
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
    const api = apiFor(target, user.token);
    const root = await api.POST('/api/v1/service/tasks', { body: { title: 'Morning', duration_min: 0 } });
    expect(root.response.status).toBe(201);
    const rootId = String(root.data?.id);
    const onAlias = aliasApiFor(target, user.token);
    const child = await onAlias.POST('/api/v1/service/tasks', {
      body: { title: 'Stretch', duration_min: 15, parent_task_id: rootId, tags: ['health'] },
    });
    expect(child.response.status).toBe(201);
    const childId = String(child.data?.id);
    expect(child.data).toMatchObject({ depth: 2, status: 'pending', priority: 3, reminder_channels: ['inapp'] });
    const tree = await api.GET('/api/v1/service/tasks/{task_id}/tree', { params: { path: { task_id: rootId } } });
    expect(tree.response.status).toBe(200);
    expect(tree.data?.rolled_up_duration_min).toBe(15);
    expect(tree.data?.children[0]?.id).toBe(childId);
    const alias = await onAlias.GET('/api/v1/service/tasks/{task_id}/tree', { params: { path: { task_id: rootId } } });
    expect(alias.data).toEqual(tree.data);
    const foreign = await apiFor(target, other.token).GET('/api/v1/service/tasks/{task_id}', {
      params: { path: { task_id: rootId } },
    });
    expect(foreign.response.status).toBe(404);
    expect(foreign.error).toMatchObject({ code: 'not_found', status: 404 });
    const scheduled = await api.PATCH('/api/v1/service/tasks/{task_id}', {
      params: { path: { task_id: childId } },
      body: { chosen_slot_start: '2026-12-01T08:00:00+01:00', chosen_slot_end: '2026-12-01T08:15:00+01:00' },
    });
    expect(scheduled.response.status).toBe(200);
    expect(scheduled.data).toMatchObject({ status: 'scheduled', chosen_slot_start: '2026-12-01T07:00:00.000Z' });
    const flat = await api.GET('/api/v1/service/routine-tasks/tree');
    expect(flat.data?.map((t) => t.depth)).toEqual([1, 2]);
  });

  it('refuses a misspelt field with a 422 naming it instead of ignoring it', async () => {
    const user = await registerUser(target);
    const res = await apiFor(target, user.token).POST('/api/v1/service/tasks', {
      body: invalidBody({ title: 'Typo', dealine_at: '2026-12-01T08:00:00Z' }),
    });
    expect(res.response.status).toBe(422);
    expect(res.error?.errors).toEqual([
      {
        loc: ['body', 'dealine_at'],
        msg: 'Unknown parameter: dealine_at; did you mean deadline_at?',
        type: 'unrecognized_keys',
      },
    ]);
  });

  it('refuses a misspelt query parameter, runs a bodyless action sent as JSON, and answers a form with 415', async () => {
    const user = await registerUser(target);
    const api = apiFor(target, user.token);
    const misspelt = await api.GET('/api/v1/service/tasks', { params: { query: invalidBody({ stauts: 'done' }) } });
    expect(misspelt.response.status).toBe(422);
    expect(misspelt.error?.errors?.[0]).toMatchObject({
      loc: ['query', 'stauts'],
      msg: expect.stringContaining('did you mean status?'),
    });
    // axios and others send the JSON content type on a POST without a body.
    const bodyless = await api.POST('/api/v1/auth/mfa/setup', { headers: { 'content-type': 'application/json' } });
    expect(bodyless.response.status).toBe(200);
    // `curl -d '{...}'` sends JSON as a form.
    const form = await api.POST('/api/v1/service/tasks', {
      body: invalidBody('{"title":"Typo"}'),
      bodySerializer: (body) => String(body),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(form.response.status).toBe(415);
    expect(form.error).toMatchObject({
      code: 'unsupported_media_type',
      detail: expect.stringContaining('application/json'),
    });
  });
});
