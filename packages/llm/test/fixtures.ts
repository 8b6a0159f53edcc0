import type { ChooseSlotsRequest } from '../src/index.js';

const slot = (index: number, start: string, minutes: number) => ({
  index,
  start: new Date(start).toISOString(),
  end: new Date(new Date(start).getTime() + minutes * 60_000).toISOString(),
});

/** Three tasks as the engine would send them: candidates from the solver, ISO instants in UTC. */
export const REQUEST: ChooseSlotsRequest = {
  tasks: [
    {
      task_id: '0194c1de-7a10-7000-8000-000000000001',
      title: 'Water the plants',
      priority: 2,
      duration_min: 15,
      deadline_at: '2027-03-29T17:00:00.000Z',
      candidates: [
        slot(0, '2027-03-29T07:00:00Z', 15),
        slot(1, '2027-03-29T09:30:00Z', 15),
        slot(2, '2027-03-29T13:00:00Z', 15),
      ],
    },
    {
      task_id: '0194c1de-7a10-7000-8000-000000000002',
      title: 'Weekly review',
      priority: 1,
      duration_min: 60,
      deadline_at: null,
      candidates: [slot(0, '2027-03-29T08:00:00Z', 60), slot(1, '2027-03-30T08:00:00Z', 60)],
    },
    {
      task_id: '0194c1de-7a10-7000-8000-000000000003',
      title: 'Pay rent',
      priority: 3,
      duration_min: 10,
      deadline_at: '2027-03-31T12:00:00.000Z',
      candidates: [slot(0, '2027-03-30T10:00:00Z', 10)],
    },
  ],
};
