import { FakeLlmServer, fakeLlmEnv } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTask, getTask, type RunHarness, startRunHarness } from './run-harness.js';
import { knowUser, ok, recordCall } from './scheduler-harness.js';

let h: RunHarness;
let llm: FakeLlmServer;

beforeAll(async () => {
  llm = await FakeLlmServer.start();
  h = await startRunHarness({
    ...fakeLlmEnv(llm),
  });
});
afterAll(async () => {
  await h?.close();
  await llm?.close();
});

const schedule = (user: Parameters<RunHarness['scheduler']['call']>[0], body: Record<string, unknown>) =>
  h.scheduler.call(user, 'POST', '/service/schedule', body);

// The manual clock starts on Saturday 2026-11-21 08:00 UTC; default working hours are Mon-Fri 09:00-17:00 UTC.
describe('POST /schedule (synchronous)', () => {
  it('places the tasks, applies their slots through the task service and records the run', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const a = await createTask(h, user, {
      title: 'write report',
      duration_min: 60,
      deadline_at: '2026-11-23T10:00:00Z',
    });
    const b = await createTask(h, user, { title: 'review', duration_min: 30 });
    const run = await ok(await schedule(user, { task_ids: [a.id, b.id] }));
    expect(run).toMatchObject({
      status: 'completed',
      provider: 'builtin',
      model: 'solver',
      dry_run: false,
      cost_usd: 0,
    });
    expect(run.unscheduled).toEqual([]);
    const slots = Object.fromEntries(
      run.decisions.map((d: { task_id: string; chosen_slot_start: string }) => [d.task_id, d.chosen_slot_start]),
    );
    expect(slots).toEqual({ [a.id]: '2026-11-23T09:00:00.000Z', [b.id]: '2026-11-23T10:00:00.000Z' });
    for (const d of run.decisions) expect(d).toMatchObject({ source: 'solver', applied: true, run_id: run.run_id });
    const task = await getTask(h, user, a.id);
    expect(task).toMatchObject({
      status: 'scheduled',
      chosen_slot_start: '2026-11-23T09:00:00.000Z',
      chosen_slot_end: '2026-11-23T10:00:00.000Z',
    });

    const stored = await ok(await h.scheduler.call(user, 'GET', `/service/schedule/runs/${run.run_id}`));
    expect(stored).toMatchObject({ id: run.run_id, status: 'completed', progress: { total: 2, done: 2 }, error: null });
    expect(stored.decisions).toEqual(run.decisions);
    expect((await ok(await h.scheduler.call(user, 'GET', '/service/schedule/runs/latest'))).id).toBe(run.run_id);
    const decision = run.decisions[0];
    expect(await ok(await h.scheduler.call(user, 'GET', `/service/schedule/decisions/${decision.id}`))).toEqual(
      decision,
    );
  });

  it('keeps clear of busy time: a second run places around the first run’s slots', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const first = await createTask(h, user, { title: 'first', duration_min: 60 });
    await ok(await schedule(user, { task_ids: [first.id] }));
    const second = await createTask(h, user, { title: 'second', duration_min: 60 });
    const run = await ok(await schedule(user, { task_ids: [second.id] }));
    expect(run.decisions[0].chosen_slot_start).toBe('2026-11-23T10:00:00.000Z');
  });

  it('dry_run stores decisions unapplied and changes no task', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const a = await createTask(h, user, { title: 'dry', duration_min: 30 });
    const run = await ok(await schedule(user, { task_ids: [a.id], dry_run: true }));
    expect(run.dry_run).toBe(true);
    expect(run.decisions).toHaveLength(1);
    expect(run.decisions[0].applied).toBe(false);
    expect(await getTask(h, user, a.id)).toMatchObject({ status: 'pending', chosen_slot_start: null });
  });

  it('reports not schedulable and zero-duration tasks as unscheduled with their reasons', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const container = await createTask(h, user, { title: 'container', duration_min: 0 });
    const run = await ok(await schedule(user, { task_ids: [container.id] }));
    expect(run.unscheduled).toEqual([{ task_id: container.id, reason: 'no_duration' }]);
  });

  it('answers 404 naming an id that is not a task of the caller', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const mine = await createTask(h, user, { title: 'mine' });
    const colleague = h.scheduler.tokens.user({ tenantId: user.tenantId });
    const theirs = await createTask(h, colleague, { title: 'theirs' });
    const res = await schedule(user, { task_ids: [mine.id, theirs.id] });
    expect(res.statusCode, res.body).toBe(404);
    expect(res.json().detail).toContain(theirs.id);
    expect(await getTask(h, user, mine.id)).toMatchObject({ status: 'pending' });
  });

  it('refuses a window beyond 90 days, one behind now, and an end before the start (422 naming the field)', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const a = await createTask(h, user, { title: 'window' });
    const cases = [
      { window_start: '2026-12-01T00:00:00Z', window_end: '2027-03-02T00:00:00Z' },
      { window_start: '2026-11-01T00:00:00Z', window_end: '2026-11-10T00:00:00Z' },
      { window_start: '2026-12-10T00:00:00Z', window_end: '2026-12-01T00:00:00Z' },
    ];
    for (const window of cases) {
      const res = await schedule(user, { task_ids: [a.id], ...window });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().errors[0].loc).toEqual(['body', 'window_end']);
    }
    // Far ahead is fine: the window may lie anywhere ahead.
    const later = await schedule(user, {
      task_ids: [a.id],
      window_start: '2027-06-01T00:00:00Z',
      window_end: '2027-06-08T00:00:00Z',
      dry_run: true,
    });
    expect((await ok(later)).decisions[0].chosen_slot_start).toBe('2027-06-01T09:00:00.000Z');
  });

  it('answers 422 provider_unavailable for a provider without a key', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const a = await createTask(h, user, { title: 'anthropic' });
    const res = await schedule(user, { task_ids: [a.id], provider: 'anthropic' });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().code).toBe('provider_unavailable');
  });
});

describe('language-model runs', () => {
  it('honours the model’s picks (source agent) and records the usage priced, with the run id', async () => {
    llm.reset();
    llm.enqueue({ kind: 'pick', pick: 'last', usage: { inputTokens: 1_000, outputTokens: 500 } });
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const a = await createTask(h, user, { title: 'agent task', duration_min: 30 });
    const run = await ok(await schedule(user, { task_ids: [a.id], provider: 'openai' }));
    expect(run).toMatchObject({ provider: 'openai', model: 'test-model', cost_usd: 0.002 });
    expect(run.decisions[0]).toMatchObject({ source: 'agent', applied: true });
    const sent = FakeLlmServer.lastUserDocument(llm.requests[0] as never) as {
      tasks: { task_id: string; candidates: { index: number; start: string }[] }[];
    };
    const candidates = sent.tasks[0]?.candidates ?? [];
    expect(run.decisions[0].chosen_slot_start).toBe(new Date(candidates.at(-1)?.start ?? '').toISOString());
    const usage = await ok(await h.scheduler.call(user, 'GET', '/service/llm/usage/today'));
    expect(usage).toMatchObject({ total_usd: 0.002, calls: 1, input_tokens: 1_000, output_tokens: 500 });
  });

  it('falls back to the solver for the task when the model answers 500 twice', async () => {
    llm.reset();
    llm.enqueue({ kind: 'error', status: 500 }, { kind: 'error', status: 500 });
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const a = await createTask(h, user, { title: 'fallback', duration_min: 30 });
    const run = await ok(await schedule(user, { task_ids: [a.id], provider: 'openai' }));
    expect(run.decisions[0]).toMatchObject({ source: 'solver', chosen_slot_start: '2026-11-23T09:00:00.000Z' });
    expect(run.decisions[0].rationale).toContain('model call failed');
  });

  it('answers 429 quota_exceeded at the hard cap for a model provider while builtin still runs', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    // 20,000,000 input tokens at 1 USD per million: the default hard cap of 20 USD.
    await recordCall(h.scheduler, user, {
      provider: 'openai',
      model: 'test-model',
      inputTokens: 20_000_000,
      outputTokens: 0,
    });
    const a = await createTask(h, user, { title: 'capped' });
    const refused = await schedule(user, { task_ids: [a.id], provider: 'openai' });
    expect(refused.statusCode, refused.body).toBe(429);
    expect(refused.json().code).toBe('quota_exceeded');
    const builtin = await ok(await schedule(user, { task_ids: [a.id], provider: 'builtin' }));
    expect(builtin.decisions).toHaveLength(1);
  });
});

describe('overrides', () => {
  it('appends a decision superseding the old one, applies it at once and warns about broken rules', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const a = await createTask(h, user, { title: 'override me', duration_min: 30 });
    const run = await ok(await schedule(user, { task_ids: [a.id] }));
    const original = run.decisions[0];
    // Saturday: outside the default Monday-to-Friday working hours, allowed and listed.
    const saturday = await ok(
      await h.scheduler.call(user, 'POST', `/service/schedule/decisions/${original.id}/override`, {
        chosen_slot_start: '2026-11-28T10:00:00Z',
        chosen_slot_end: '2026-11-28T10:30:00Z',
        rationale: 'I prefer the weekend',
      }),
      201,
    );
    expect(saturday).toMatchObject({
      source: 'override',
      supersedes_id: original.id,
      task_id: a.id,
      run_id: run.run_id,
      applied: true,
      warnings: ['outside_working_hours'],
      rationale: 'I prefer the weekend',
    });
    expect(await getTask(h, user, a.id)).toMatchObject({ chosen_slot_start: '2026-11-28T10:00:00.000Z' });
    // Append-only: the original decision is unchanged.
    expect(await ok(await h.scheduler.call(user, 'GET', `/service/schedule/decisions/${original.id}`))).toEqual(
      original,
    );

    await ok(
      await h.scheduler.call(user, 'POST', '/service/settings/no-go-windows', {
        kind: 'weekly',
        days: ['mon'],
        start: '12:00',
        end: '13:00',
      }),
      201,
    );
    const lunch = await ok(
      await h.scheduler.call(user, 'POST', '/service/schedule/override', {
        decision_id: saturday.id,
        chosen_slot_start: '2026-11-30T12:00:00Z',
        chosen_slot_end: '2026-11-30T12:30:00Z',
      }),
      201,
    );
    expect(lunch).toMatchObject({ supersedes_id: saturday.id, warnings: ['in_no_go_window'] });
    expect(
      (await ok(await h.scheduler.call(user, 'GET', `/service/schedule/runs/${run.run_id}`))).decisions,
    ).toHaveLength(3);
  });

  it('refuses an end not after the start, naming chosen_slot_end', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const a = await createTask(h, user, { title: 'bad override' });
    const run = await ok(await schedule(user, { task_ids: [a.id] }));
    const res = await h.scheduler.call(user, 'POST', `/service/schedule/decisions/${run.decisions[0].id}/override`, {
      chosen_slot_start: '2026-11-30T12:00:00Z',
      chosen_slot_end: '2026-11-30T12:00:00Z',
    });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errors[0].loc).toEqual(['body', 'chosen_slot_end']);
  });
});

describe('reflow', () => {
  it('answers 409 not_scheduled when the root has no slot', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const root = await createTask(h, user, { title: 'root' });
    const res = await h.scheduler.call(user, 'POST', '/service/schedule/reflow', { root_task_id: root.id });
    expect(res.statusCode, res.body).toBe(409);
    expect(res.json().code).toBe('not_scheduled');
  });

  it("re-places the descendants inside the root's slot, after the root's own duration", async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const root = await createTask(h, user, { title: 'root', duration_min: 30 });
    const one = await createTask(h, user, { title: 'one', duration_min: 30, parent_task_id: root.id });
    const two = await createTask(h, user, { title: 'two', duration_min: 60, parent_task_id: root.id });
    const moved = await h.task.call(user, 'PATCH', `/service/tasks/${root.id}`, {
      chosen_slot_start: '2026-11-24T13:00:00Z',
      chosen_slot_end: '2026-11-24T15:00:00Z',
    });
    expect(moved.statusCode, moved.body).toBe(200);
    const run = await ok(await h.scheduler.call(user, 'POST', '/service/schedule/reflow', { root_task_id: root.id }));
    expect(run.status).toBe('completed');
    const slots = Object.fromEntries(
      run.decisions.map((d: { task_id: string; chosen_slot_start: string; chosen_slot_end: string }) => [
        d.task_id,
        [d.chosen_slot_start, d.chosen_slot_end],
      ]),
    );
    expect(Object.keys(slots).sort()).toEqual([one.id, two.id].sort());
    for (const [start, end] of Object.values(slots) as [string, string][]) {
      expect(start >= '2026-11-24T13:30:00.000Z' && end <= '2026-11-24T15:00:00.000Z').toBe(true);
    }
    expect(await getTask(h, user, root.id)).toMatchObject({ chosen_slot_start: '2026-11-24T13:00:00.000Z' });
  });

  it('lays the children out in sort order; a child that no longer fits is unscheduled, its own slot not busy', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const root = await createTask(h, user, { title: 'root', duration_min: 30 });
    const one = await createTask(h, user, { title: 'one', duration_min: 30, parent_task_id: root.id });
    const two = await createTask(h, user, { title: 'two', duration_min: 60, parent_task_id: root.id });
    // The first child already sits where it belongs: its own current slot must not count as busy time.
    for (const [id, start, end] of [
      [one.id, '2026-11-24T13:30:00Z', '2026-11-24T14:00:00Z'],
      [root.id, '2026-11-24T13:00:00Z', '2026-11-24T14:00:00Z'],
    ] as const) {
      const res = await h.task.call(user, 'PATCH', `/service/tasks/${id}`, {
        chosen_slot_start: start,
        chosen_slot_end: end,
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    const run = await ok(await h.scheduler.call(user, 'POST', '/service/schedule/reflow', { root_task_id: root.id }));
    expect(run.status).toBe('completed');
    expect(run.decisions).toHaveLength(1);
    expect(run.decisions[0]).toMatchObject({
      task_id: one.id,
      chosen_slot_start: '2026-11-24T13:30:00.000Z',
      chosen_slot_end: '2026-11-24T14:00:00.000Z',
      source: 'solver',
      applied: true,
    });
    expect(run.unscheduled).toEqual([{ task_id: two.id, reason: 'no_slot_in_window' }]);
  });
});

describe('daylight saving time', () => {
  it('keeps 09:00-10:00 Europe/Berlin at 09:00 local on both sides of 2027-03-28', async () => {
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    await ok(await h.scheduler.call(user, 'PATCH', '/service/settings/me', { timezone: 'Europe/Berlin' }));
    const hour = [{ start: '09:00', end: '10:00' }];
    await ok(
      await h.scheduler.call(user, 'PUT', '/service/settings/working-hours', {
        mon: hour,
        tue: hour,
        wed: hour,
        thu: hour,
        fri: hour,
        sat: hour,
        sun: hour,
      }),
    );
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push((await createTask(h, user, { title: `hour ${i}`, duration_min: 60 })).id);
    const run = await ok(
      await schedule(user, {
        task_ids: ids,
        window_start: '2027-03-26T00:00:00+01:00',
        window_end: '2027-03-30T00:00:00+02:00',
      }),
    );
    const starts = run.decisions.map((d: { chosen_slot_start: string }) => d.chosen_slot_start).sort();
    // 09:00 CET is 08:00 UTC before the change; 09:00 CEST is 07:00 UTC after it.
    expect(starts).toEqual([
      '2027-03-26T08:00:00.000Z',
      '2027-03-27T08:00:00.000Z',
      '2027-03-28T07:00:00.000Z',
      '2027-03-29T07:00:00.000Z',
    ]);
  });
});
