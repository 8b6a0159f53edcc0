import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FaultWorld, startFaultWorld, waitUntil } from './load.js';

// After kill -9 during a burst of routine creations and a restart, some auto-scheduled
// occurrences stayed pending. A routine's placement request is an outbox row of the transaction that writes its
// occurrences, and its run is keyed by the id the request carries: whatever dies, every occurrence that exists is
// placed once the processes are back.
// 30 routines of 4 dates each: the kill lands a third of the way into the burst as with more, and the placement
// afterwards (not what is under test) stays short.
const ROUTINES = 30;
const IN_FLIGHT = 6;
const HORIZON_DAYS = 3;

let world: FaultWorld;

beforeAll(async () => {
  // A run the killed scheduler had claimed is taken again when its lease ends, and a series whose fill the kill
  // interrupted is filled at the routine worker's next poll: 10 s and 5 s here instead of the defaults' 120 s and
  // 60 s, so the test waits for the recovery it checks, not for the clock.
  world = await startFaultWorld({ env: { SCHEDULER_RUN_LEASE_MS: '10000', ROUTINE_FILL_POLL_MS: '5000' } });
}, 180_000);
afterAll(async () => {
  await world?.close();
});

type Task = { id: string; series_id: string | null; status: string; title: string };

/** Every open task of the user that belongs to a routine (an occurrence or a step of one). */
async function openRoutineTasks(): Promise<Task[]> {
  const open: Task[] = [];
  for (let offset = 0; ; offset += 500) {
    const res = await world.call('GET', `/api/v1/service/tasks?status=pending&limit=500&offset=${offset}`);
    if (res.status !== 200) throw new Error(`list: ${res.status}`);
    const page = res.body as Task[];
    open.push(...page.filter((t) => t.series_id !== null));
    if (page.length < 500) return open;
  }
}

describe('kill -9 of the task service and the scheduler during a burst of routine creations', () => {
  it('places every occurrence that exists once both are back', async () => {
    const everyDay = { start: '06:00', end: '22:00' };
    const days = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
    const settings = await world.call('PATCH', '/api/v1/service/settings/me', {
      working_hours: Object.fromEntries(days.map((day) => [day, [everyDay]])),
    });
    expect(settings.status, JSON.stringify(settings.body)).toBe(200);
    // From tomorrow (today may be nearly over): HORIZON_DAYS + 1 dates each.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
    const task = world.topology.replica('task');
    const scheduler = world.topology.replica('scheduler');

    const answers: number[] = [];
    let next = 0;
    let killed: Promise<void> | undefined;
    const create = async () => {
      while (next < ROUTINES) {
        const i = next++;
        const res = await world
          .call('POST', '/api/v1/service/tasks', {
            title: `burst routine ${i}`,
            duration_min: 10,
            recurrence: { rule: 'FREQ=DAILY', starts_on: tomorrow, horizon_days: HORIZON_DAYS },
          })
          .catch(() => ({ status: 0 }));
        answers.push(res.status);
        // A third of the way in, both processes of the placement path die at once.
        if (answers.length === ROUTINES / 3 && !killed) {
          killed = Promise.all([world.topology.stop(task, 'SIGKILL'), world.topology.stop(scheduler, 'SIGKILL')]).then(
            async () => {
              await Promise.all([world.topology.start(task), world.topology.start(scheduler)]);
            },
          );
        }
      }
    };
    await Promise.all(Array.from({ length: IN_FLIGHT }, create));
    await killed;
    expect(answers.filter((status) => status === 201).length).toBeGreaterThan(0);

    // Every routine task that exists (answered or not before the kill) ends up placed.
    await waitUntil(async () => (await openRoutineTasks().catch(() => [{} as Task])).length === 0, 180_000);
    const placed = await world.call('GET', '/api/v1/service/tasks?status=scheduled&limit=500');
    expect((placed.body as Task[]).filter((t) => t.series_id !== null).length).toBeGreaterThan(0);
  });
});
