import { type TestUser, waitFor } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, createTask, type Harness, startHarness } from './harness.js';

// Import rows are checked as strictly as POST /tasks (ADR 022): a key the row format does not name (a typo, or a
// field the server owns such as `series_id` or `status`) is an error of its row, never silently dropped.

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ ROUTINE_FILL_POLL_MS: '3600000' });
});
afterAll(() => h?.close());

type RowError = { row: number; loc: (string | number)[]; msg: string };
const rowsOf = (errors: RowError[]) => errors.map((e) => [e.row, e.loc.join('.'), e.msg]);
const importRows = (who: TestUser, rows: unknown[]) =>
  call(h, who, 'POST', '/service/tasks/bulk-import', { rows, commit: true });

describe('import rows with keys POST /tasks refuses', () => {
  it('are errors of their rows, naming each key as POST /tasks does, and nothing is written', async () => {
    const other = h.tokens.user();
    const theirs = await createTask(h, other, { title: 'Their routine', recurrence: { rule: 'FREQ=DAILY' } });
    const who = h.tokens.user();
    const rows = [
      { title: 'fine' },
      { title: 'joins their routine', series_id: theirs.id },
      { title: 'done already', status: 'done', chosen_slot_start: '2026-11-02T09:00:00Z' },
      { title: 'typo', dealine_at: '2026-11-02T09:00:00Z' },
    ];
    const res = await importRows(who, rows);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ total: 4, valid: 1, invalid: 3, committed: false, created_ids: [] });
    expect(rowsOf(body.errors)).toEqual([
      [2, 'series_id', 'Unknown parameter: series_id'],
      [3, 'status', 'Unknown parameter: status'],
      [3, 'chosen_slot_start', 'Unknown parameter: chosen_slot_start'],
      [4, 'dealine_at', 'Unknown parameter: dealine_at; did you mean deadline_at?'],
    ]);
    expect((await call(h, who, 'GET', '/service/tasks')).json()).toEqual([]);

    // The same bodies through POST /tasks: the same keys named, the same words.
    for (const [i, row] of rows.slice(1).entries()) {
      const single = await call(h, who, 'POST', '/service/tasks', row);
      expect(single.statusCode).toBe(422);
      const named = single.json().errors.map((e: RowError) => [e.loc.slice(1).join('.'), e.msg]);
      const fromImport = rowsOf(body.errors)
        .filter(([r]) => r === i + 2)
        .map(([, loc, msg]) => [loc, msg]);
      expect(named).toEqual(fromImport);
    }
  });

  it('lists at most 50 errors of a row of 500 unknown keys, then how many more', async () => {
    const who = h.tokens.user();
    const noisy = Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`extra_${i}`, i]));
    const body = (await importRows(who, [{ title: 'ok' }, { title: 'noisy', ...noisy }])).json();
    expect(body).toMatchObject({ total: 2, valid: 1, invalid: 1, committed: false });
    expect(body.errors).toHaveLength(51);
    expect(body.errors[0]).toEqual({ row: 2, loc: ['extra_0'], msg: 'Unknown parameter: extra_0' });
    expect(body.errors[50]).toEqual({ row: 2, loc: [], msg: '450 more errors in this row' });
    expect((await call(h, who, 'GET', '/service/tasks')).json()).toEqual([]);
  });

  it('refuses a CSV row that fills a column POST /tasks does not know', async () => {
    const who = h.tokens.user();
    const csv = 'title,series_id\nA,01900000-0000-7000-8000-0000000000aa\nB,\n';
    const res = await call(h, who, 'POST', '/service/tasks/bulk-import', csv, { 'content-type': 'text/csv' });
    // An empty cell is omitted (ADR 022), so only the row that gives the column is refused.
    expect(res.json()).toMatchObject({ total: 2, valid: 1, invalid: 1, committed: false });
    expect(rowsOf(res.json().errors)).toEqual([[1, 'series_id', 'Unknown parameter: series_id']]);
  });

  it('makes an import job with such a row parse as invalid, and refuses its commit', async () => {
    const other = h.tokens.user();
    const theirs = await createTask(h, other, { title: 'Their routine', recurrence: { rule: 'FREQ=DAILY' } });
    const who = h.tokens.user();
    const created = await call(h, who, 'POST', '/service/tasks/bulk-import/jobs', {
      rows: [{ title: 'ok' }, { title: 'theirs', series_id: theirs.id }],
    });
    expect(created.statusCode, created.body).toBe(202);
    const jobId = created.json().job_id;
    const parsed = await waitFor(
      async () => {
        const job = (await call(h, who, 'GET', `/service/tasks/bulk-import/jobs/${jobId}`)).json();
        return job.status === 'parsed' ? job : undefined;
      },
      { what: 'the job parsed' },
    );
    expect(parsed).toMatchObject({ total: 2, valid: 1, invalid: 1 });
    expect(rowsOf(parsed.errors)).toEqual([[2, 'series_id', 'Unknown parameter: series_id']]);
    expect((await call(h, who, 'POST', `/service/tasks/bulk-import/jobs/${jobId}/commit`, {})).statusCode).toBe(409);
    expect((await call(h, who, 'GET', '/service/tasks')).json()).toEqual([]);
  });
});
