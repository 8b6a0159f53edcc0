import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ROUTINES_PER_USER } from '../src/domain/routines/routines.js';
import { call, createTask, type Harness, startHarness } from './harness.js';

// One user's 600 routines slowed every other user's runs; a user's routines are bounded.

let h: Harness;
beforeAll(async () => {
  h = await startHarness({ ROUTINE_FILL_POLL_MS: '3600000' });
});
afterAll(() => h?.close());

const ROUTINE = { rule: 'FREQ=WEEKLY;BYDAY=MO', horizon_days: 1, auto_schedule: false };

describe('the routines of one user', () => {
  it(`are at most ${MAX_ROUTINES_PER_USER}: one more is 422 routine_limit naming recurrence, on create and on PATCH`, async () => {
    const user = h.tokens.user();
    const made: string[] = [];
    for (let i = 0; i < MAX_ROUTINES_PER_USER; i++) {
      made.push((await createTask(h, user, { title: `routine ${i}`, recurrence: ROUTINE })).id);
    }
    const refused = await call(h, user, 'POST', '/service/tasks', { title: 'one too many', recurrence: ROUTINE });
    expect(refused.statusCode, refused.body).toBe(422);
    expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(refused.json().errors).toEqual([
      expect.objectContaining({ loc: ['body', 'recurrence'], type: 'routine_limit' }),
    ]);
    const plain = await createTask(h, user, { title: 'a plain task' });
    const patched = await call(h, user, 'PATCH', `/service/tasks/${plain.id}`, { recurrence: ROUTINE });
    expect(patched.statusCode, patched.body).toBe(422);
    expect(patched.json().errors[0]).toMatchObject({ loc: ['body', 'recurrence'], type: 'routine_limit' });
    // Editing an existing routine's recurrence is no new routine; another user has a limit of their own.
    const edit = await call(h, user, 'PATCH', `/service/tasks/${made[0]}`, {
      recurrence: { ...ROUTINE, horizon_days: 2 },
    });
    expect(edit.statusCode, edit.body).toBe(200);
    await createTask(h, h.tokens.user(), { title: 'someone else', recurrence: ROUTINE });
    // A routine removed frees its place.
    expect((await call(h, user, 'DELETE', `/service/tasks/${made[1]}`)).statusCode).toBe(204);
    const again = await call(h, user, 'PATCH', `/service/tasks/${plain.id}`, { recurrence: ROUTINE });
    expect(again.statusCode, again.body).toBe(200);
  }, 120_000);
});
