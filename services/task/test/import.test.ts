import { createRpcClient, InternalAuth, type RpcClient, Server, startRpcServer, stopRpcServer } from '@routinely/grpc';
import { task_v1_import_quota } from '@routinely/proto';
import { type TestUser, waitFor } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Harness, INTERNAL_SECRET, startHarness } from './harness.js';

let h: Harness;
let server: Server;
/** The import quota as the scheduler reaches it (its `/quota/me` and admin routes call this). */
let quotas: RpcClient<typeof task_v1_import_quota.ImportQuotaServiceService>;

beforeAll(async () => {
  h = await startHarness({ IMPORT_QUOTA_PER_HOUR: '3', IMPORT_QUOTA_PER_DAY: '4' });
  server = new Server();
  h.service.addGrpc?.(server);
  const address = await startRpcServer(server, '127.0.0.1', 0);
  quotas = createRpcClient(
    task_v1_import_quota.ImportQuotaServiceService,
    address,
    new InternalAuth(INTERNAL_SECRET, 'scheduler'),
  );
});
afterAll(async () => {
  quotas?.close();
  if (server) await stopRpcServer(server);
  await h?.close();
});

const importRows = (who: TestUser, rows: unknown[], extra: Record<string, unknown> = {}) =>
  call(h, who, 'POST', '/service/tasks/bulk-import', { rows, ...extra });

async function waitForJob(who: TestUser, jobId: string, status: string, harness = h) {
  return waitFor(
    async () => {
      const job = (await call(harness, who, 'GET', `/service/tasks/bulk-import/jobs/${jobId}`)).json();
      return job.status === status ? job : undefined;
    },
    { what: `job ${jobId} to reach ${status}` },
  );
}

describe('synchronous bulk import', () => {
  it('commits a tree with refs and dependencies in one go', async () => {
    const who = h.tokens.user();
    const res = await importRows(who, [
      { ref: 'trip', title: 'Plan trip', duration_min: 0 },
      { ref: 'book', parent_ref: 'trip', title: 'Book flights', duration_min: 20 },
      { ref: 'pack', parent_ref: 'trip', title: 'Pack', depends_on_refs: ['book'], tags: ['home'] },
    ]);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ total: 3, valid: 3, invalid: 0, errors: [], committed: true });
    expect(body.created_ids).toHaveLength(3);
    const tree = (await call(h, who, 'GET', `/service/tasks/${body.created_ids[0]}/tree`)).json();
    expect(tree.children.map((c: { title: string }) => c.title)).toEqual(['Book flights', 'Pack']);
    expect(tree.rolled_up_duration_min).toBe(50);
    const deps = (await call(h, who, 'GET', `/service/tasks/${body.created_ids[2]}/dependencies`)).json();
    expect(deps.depends_on).toMatchObject([{ depends_on_id: body.created_ids[1], dep_type: 'finish_to_start' }]);
  });

  it('dry-runs without writing, and rejects the whole batch when one row is invalid, naming row and field', async () => {
    const who = h.tokens.user();
    const dry = (await importRows(who, [{ title: 'a' }, { title: 'b' }], { commit: false })).json();
    expect(dry).toMatchObject({ total: 2, valid: 2, committed: false, created_ids: [] });
    const bad = (
      await importRows(who, [
        { title: 'fine' },
        { title: '', priority: 9 },
        { ref: 'x', parent_ref: 'nobody', title: 'orphan' },
        { title: 'late', parent_task_id: '01900000-0000-7000-8000-0000000000aa' },
      ])
    ).json();
    expect(bad).toMatchObject({ total: 4, valid: 1, invalid: 3, committed: false, created_ids: [] });
    expect(bad.errors.map((e: { row: number; loc: unknown[] }) => [e.row, e.loc.join('.')])).toEqual([
      [2, 'title'],
      [2, 'priority'],
      [3, 'parent_ref'],
      [4, 'parent_task_id'],
    ]);
    expect((await call(h, who, 'GET', '/service/tasks')).json()).toEqual([]);
  });

  it('makes rows nesting deeper than 5 or forming cycles errors of their rows', async () => {
    const who = h.tokens.user();
    const chain = ['l1', 'l2', 'l3', 'l4', 'l5', 'l6'].map((ref, i) => ({
      ref,
      title: ref,
      ...(i > 0 ? { parent_ref: `l${i}` } : {}),
    }));
    const deep = (await importRows(who, chain)).json();
    expect(deep.errors).toEqual([{ row: 6, loc: ['parent_ref'], msg: 'nests deeper than 5 levels' }]);
    const cyclic = (
      await importRows(who, [
        { ref: 'a', parent_ref: 'b', title: 'a' },
        { ref: 'b', parent_ref: 'a', title: 'b' },
        { ref: 'c', title: 'c', depends_on_refs: ['d'] },
        { ref: 'd', title: 'd', depends_on_refs: ['c'] },
      ])
    ).json();
    expect(cyclic.errors.map((e: { row: number; loc: string[] }) => `${e.row}:${e.loc[0]}`)).toEqual([
      '1:parent_ref',
      '2:parent_ref',
      '3:depends_on_refs',
      '4:depends_on_refs',
    ]);
    expect(cyclic.committed).toBe(false);
  });

  it('accepts text/csv with a header row', async () => {
    const who = h.tokens.user();
    const csv = 'ref,parent_ref,title,duration_min,tags\nr,,"Root, with comma",15,a;b\nc,r,Child,5,\n';
    const res = await call(h, who, 'POST', '/service/tasks/bulk-import', csv, { 'content-type': 'text/csv' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ total: 2, valid: 2, committed: true });
    const tasks = (await call(h, who, 'GET', '/service/tasks')).json();
    expect(tasks.map((t: { title: string; tags: string[]; depth: number }) => [t.title, t.tags, t.depth])).toEqual([
      ['Root, with comma', ['a', 'b'], 1],
      ['Child', [], 2],
    ]);
    const bad = await call(h, who, 'POST', '/service/tasks/bulk-import?commit=false', 'title,priority\nx,high\n', {
      'content-type': 'text/csv',
    });
    expect(bad.json().errors).toMatchObject([{ row: 1, loc: ['priority'] }]);
  });

  it('answers 413 above 100 rows and 429 past the quota', async () => {
    const who = h.tokens.user();
    const many = Array.from({ length: 101 }, (_, i) => ({ title: `t${i}` }));
    const tooMany = await importRows(who, many);
    expect(tooMany.statusCode).toBe(413);
    expect(tooMany.json().code).toBe('payload_too_large');
    for (let i = 0; i < 3; i++) expect((await importRows(who, [{ title: `ok ${i}` }])).statusCode).toBe(200);
    const over = await importRows(who, [{ title: 'one too many' }]);
    expect(over.statusCode).toBe(429);
    expect(over.json().code).toBe('quota_exceeded');
    // Dry runs do not count; the hour window slides with the clock, the day window still binds.
    expect((await importRows(who, [{ title: 'dry' }], { commit: false })).statusCode).toBe(200);
    h.clock.advance(3_601_000);
    expect((await importRows(who, [{ title: 'next hour' }])).statusCode).toBe(200);
    expect((await importRows(who, [{ title: 'day cap' }])).statusCode).toBe(429);
    const other = h.tokens.user({ tenantId: who.tenantId });
    expect((await importRows(other, [{ title: 'someone else' }])).statusCode).toBe(200);
  });
});

describe("import limits set over ImportQuotaService (what the scheduler's admin routes call)", () => {
  it("holds an administrator's SetImportLimits for that user's next import at once", async () => {
    const admin = h.tokens.user({ roles: ['admin'] });
    const who = h.tokens.user({ tenantId: admin.tenantId });
    const setLimits = (perHour: number) =>
      quotas.setImportLimits(
        { userId: who.userId, perHour, perDay: 4 },
        { actor: { tenantId: admin.tenantId, userId: admin.userId, permissions: ['SERVICE_QUOTA_OVERRIDE'] } },
      );
    expect((await importRows(who, [{ title: 'first' }])).statusCode).toBe(200);

    await setLimits(1);
    const refused = await importRows(who, [{ title: 'second' }]);
    expect(refused.statusCode).toBe(429);
    expect(refused.json().detail).toContain('at most 1 imports per hour');
    expect(refused.headers['retry-after']).toBe('3600');
    const job = await call(h, who, 'POST', '/service/tasks/bulk-import/jobs', { rows: [{ title: 'job' }] });
    expect(job.statusCode).toBe(429);

    // Raised again: the very next import goes through, and the quota reports the uses.
    await setLimits(10);
    expect((await importRows(who, [{ title: 'third' }])).statusCode).toBe(200);
    const own = await quotas.getImportQuotas(
      { userIds: [who.userId] },
      { actor: { tenantId: who.tenantId, userId: who.userId, permissions: ['SERVICE_SCHEDULE_RUN'] } },
    );
    expect(own.quotas).toEqual([
      expect.objectContaining({ userId: who.userId, perHour: 10, perDay: 4, usedHour: 2, usedDay: 2 }),
    ]);
  });
});

describe('import jobs', () => {
  it('refuses to commit a job with invalid rows and cancels it', async () => {
    const who = h.tokens.user();
    const { job_id: jobId } = (
      await call(h, who, 'POST', '/service/tasks/bulk-import/jobs', { rows: [{ title: 'ok' }, { priority: 2 }] })
    ).json();
    const parsed = await waitForJob(who, jobId, 'parsed');
    expect(parsed.errors).toEqual([{ row: 2, loc: ['title'], msg: expect.any(String) }]);
    expect((await call(h, who, 'POST', `/service/tasks/bulk-import/jobs/${jobId}/commit`, {})).statusCode).toBe(409);
    expect((await call(h, who, 'DELETE', `/service/tasks/bulk-import/jobs/${jobId}`)).statusCode).toBe(204);
    expect((await call(h, who, 'GET', `/service/tasks/bulk-import/jobs/${jobId}`)).json().status).toBe('cancelled');
  });
});

describe('import worker restart', () => {
  it('finishes a job claimed by an instance that stopped mid-job', async () => {
    const crashed: string[] = [];
    const r = await startHarness(
      { IMPORT_JOB_LEASE_MS: '30000' },
      {
        extra: {
          importWorkerHooks: {
            afterClaim: async (job) => {
              crashed.push(job.id);
              throw new Error('simulated crash after claiming');
            },
          },
        },
      },
    );
    try {
      const who = r.tokens.user();
      const rows = Array.from({ length: 120 }, (_, i) => ({ title: `row ${i}` }));
      const { job_id: jobId } = (await call(r, who, 'POST', '/service/tasks/bulk-import/jobs', { rows })).json();
      await waitForJob(who, jobId, 'parsing', r);
      while (!crashed.includes(jobId)) await new Promise((res) => setTimeout(res, 10));
      await r.service.stop();
      // Before the lease runs out nobody may take the job; after it, the new instance does.
      const successor = await r.spawn({ importWorkerHooks: {} });
      await successor.start();
      expect((await call(r, who, 'GET', `/service/tasks/bulk-import/jobs/${jobId}`)).json().status).toBe('parsing');
      r.clock.advance(31_000);
      await waitForJob(who, jobId, 'parsed', r);
      await call(r, who, 'POST', `/service/tasks/bulk-import/jobs/${jobId}/commit`, {});
      const done = await waitForJob(who, jobId, 'committed', r);
      expect(done.created_ids).toHaveLength(120);
      expect((await call(r, who, 'GET', '/service/tasks?limit=500')).json()).toHaveLength(120);
    } finally {
      await r.close();
    }
  });
});
