import { Sql, openOrm } from '@routinely/db';
import { expect, it } from 'vitest';
import { call, register, startTestAllInOne } from './start.js';

it('probe', async () => {
  const t = await startTestAllInOne();
  const baseUrl = t.running.url;
  for (let round = 0; round < 3; round++) {
    const user = await register(baseUrl);
    for (let i = 0; i < 3; i++) {
      const created = await call(baseUrl, 'POST', '/api/v1/service/tasks', { token: user.token,
        body: { title: `r${i}`, duration_min: 30, recurrence: { rule: 'FREQ=DAILY', window: { start: '09:00', end: '17:00' }, horizon_days: 14 } },
      });
      expect(created.status).toBe(201);
    }
    const res = await call(baseUrl, 'PATCH', '/api/v1/service/settings/me', { token: user.token, body: { timezone: 'Pacific/Kiritimati' } });
    console.log('patch', res.status);
    await new Promise((r) => setTimeout(r, 4000));
  }
  const orm = await openOrm(t.databaseUrl, { schema: 'task', entities: [], migrations: [] }, { migrate: false });
  const sql = Sql.pool(orm);
  console.log(await sql.rows('select consumer, error, attempts from task.event_dead_letter'));
  console.log(await sql.rows('select * from task.user_timezones'));
  await orm.close();
  await t.close();
}, 120000);
