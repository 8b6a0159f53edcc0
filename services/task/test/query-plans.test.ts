// Scale check: with realistic row counts and fresh statistics, the hot queries of the task store
// walk indexes. It asserts plans, never times: a plan is what stays true on any machine.
import { randomUUID } from 'node:crypto';
import { column, type Orm, openOrm, row, Sql } from '@routinely/db';
import { createTestDatabase, indexesUsed, type PlanNode, planOf, seqScansOn, statementOf } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { templateRootOf, templateTaskIds } from '../src/db/series-sql.js';
import { insertChildTaskWithEvent, insertRootTasksWithEvents } from '../src/db/task-create-sql.js';
import { findTask, findTasksByKeys, listTasks, ownerTreeRows, subtreeRows, subtreeShape } from '../src/db/task-sql.js';
import { subtreeWithVersion, treeVersions } from '../src/db/tree-sql.js';
import { taskEvent } from '../src/domain/events.js';
import { taskCreateSchema, toNewTask } from '../src/domain/task-input.js';
import { newTaskRow } from '../src/domain/task-model.js';
import { dbConfig } from '../src/index.js';

const OWNERS = 1_000;
const NEW_TASK = toNewTask(taskCreateSchema.parse({ title: 'new', reminder_channels: [] }));
const TASKS_PER_OWNER = 100;

const seqScansOnTasks = (nodes: PlanNode[]) => seqScansOn(nodes, 'tasks');

describe(`query plans with ${OWNERS * TASKS_PER_OWNER} tasks`, () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let orm: Orm;
  // The owner under test: 1,000 root tasks plus a tree of a root with 9 children, each with 10 grandchildren.
  const tenant = '00000000-0000-4000-8000-000000000001';
  const user = '00000000-0000-4000-8000-000000000002';
  const owner = { tenantId: tenant, userId: user };
  let rootId = '';

  beforeAll(async () => {
    db = await createTestDatabase();
    orm = await openOrm(db.url, dbConfig);
    const sql = Sql.of(orm);
    // Other owners: 100 root tasks each, spread over statuses.
    await sql.run(
      `insert into tasks (id, tenant_id, user_id, parent_task_id, depth, sort_order, title, status, priority,
         duration_min, reminder_channels, reminder_offset_min, tags, created_at, updated_at)
       select gen_random_uuid(), md5('t' || (n / ?))::uuid, md5('u' || (n / ?))::uuid, null, 1, n % ?,
         'task ' || n, (array['pending','scheduled','done'])[1 + n % 3], 3, 30, '{inapp}', 10, '{}', now(), now()
       from generate_series(0, ? - 1) as n`,
      [TASKS_PER_OWNER, TASKS_PER_OWNER, TASKS_PER_OWNER, (OWNERS - 1) * TASKS_PER_OWNER],
    );
    const insert = (parent: string | null, depth: number, order: number) =>
      sql.first(
        row({ id: column.uuid }),
        `insert into tasks (id, tenant_id, user_id, parent_task_id, depth, sort_order, title, status, priority,
           duration_min, reminder_channels, reminder_offset_min, tags, created_at, updated_at)
         values (gen_random_uuid(), ?, ?, ?, ?, ?, 'tree task', 'pending', 3, 30, '{inapp}', 10, '{}', now(), now())
         returning id`,
        [tenant, user, parent, depth, order],
      );
    await sql.run(
      `insert into tasks (id, tenant_id, user_id, parent_task_id, depth, sort_order, title, status, priority,
         duration_min, reminder_channels, reminder_offset_min, tags, created_at, updated_at)
       select gen_random_uuid(), ?, ?, null, 1, n, 'own task ' || n, 'pending', 3, 30, '{inapp}', 10, '{home}',
         now(), now()
       from generate_series(1, 1000) as n`,
      [tenant, user],
    );
    const root = await insert(null, 1, 0);
    rootId = root?.id ?? '';
    for (let c = 0; c < 9; c++) {
      const child = await insert(rootId, 2, c);
      for (let g = 0; g < 10; g++) await insert(child?.id ?? null, 3, g);
    }
    // Every owner has a tree version once it changed a tree; the owner under test got one from its inserts.
    await sql.run(
      `insert into task_tree_versions (tenant_id, user_id, version)
       select distinct tenant_id, user_id, 1 from tasks on conflict do nothing`,
    );
    await sql.run('analyze tasks');
    await sql.run('analyze task_tree_versions');
  }, 120_000);

  afterAll(async () => {
    await orm?.close(true);
    await db?.drop();
  });

  it('reads a task by id through the primary key, on the read pool', async () => {
    const read = (sql: Sql) => findTask(sql, owner, rootId);
    expect((await statementOf(read)).hotRead).toBe('task_by_id');
    const nodes = await planOf(orm, read);
    expect(seqScansOnTasks(nodes)).toEqual([]);
    expect(indexesUsed(nodes)).toContain('tasks_pkey');
  });

  it('reads a batch of single-task lookups (several owners) through the primary key', async () => {
    const other = { tenantId: randomUUID(), userId: randomUUID() };
    const keys = [
      { ...owner, id: rootId },
      { ...other, id: rootId }, // another owner's key for the same id: no row
      { ...owner, id: randomUUID() },
    ];
    const read = (sql: Sql) => findTasksByKeys(sql, keys);
    expect((await statementOf(read)).hotRead).toBe('tasks_by_keys');
    const nodes = await planOf(orm, read);
    expect(seqScansOnTasks(nodes)).toEqual([]);
    expect(indexesUsed(nodes)).toContain('tasks_pkey');
    const found = await read(Sql.of(orm));
    expect(found.map((row) => row?.id)).toEqual([rootId, undefined, undefined]);
    expect(found[0]).toEqual(await findTask(Sql.of(orm), owner, rootId));
  });

  it('walks a tree through the primary key and the parent index', async () => {
    const read = (sql: Sql) => subtreeRows(sql, owner, rootId);
    expect((await statementOf(read)).hotRead).toBe('task_subtree');
    const nodes = await planOf(orm, read);
    expect(seqScansOnTasks(nodes)).toEqual([]);
    expect(indexesUsed(nodes)).toEqual(expect.arrayContaining(['tasks_pkey', 'tasks_parent_idx']));
  });

  it('places a created task after its siblings through the owner index (the create statement, root and child)', async () => {
    for (const parent of [null, rootId]) {
      const now = new Date();
      const row = newTaskRow(owner, { ...NEW_TASK, parent_task_id: parent }, { id: randomUUID(), depth: 1 }, now);
      const event = taskEvent('taskCreated', row, now);
      // The recorder answers no row, so the create throws after sending: only the statement matters here.
      const create = (sql: Sql) =>
        (parent === null
          ? insertRootTasksWithEvents(sql, [{ row, event }])
          : insertChildTaskWithEvent(sql, row, event)
        ).catch(() => 0);
      const nodes = await planOf(orm, create);
      expect(seqScansOnTasks(nodes), String(parent)).toEqual([]);
      // A child's siblings may as well be walked by the parent index alone.
      expect(indexesUsed(nodes)).toEqual(parent === null ? ['tasks_owner_parent_idx'] : [expect.any(String)]);
      expect(['tasks_owner_parent_idx', 'tasks_parent_idx']).toContain(indexesUsed(nodes)[0]);
      // One row read from the index (the last sibling), not an aggregate over the owner's tasks.
      expect(nodes.filter((n) => n['Node Type'] === 'Aggregate' || n['Node Type'].startsWith('Bitmap'))).toEqual([]);
    }
  });

  it('reads a tree with its version through the primary keys and the parent index', async () => {
    const read = (sql: Sql) => subtreeWithVersion(sql, owner, rootId);
    expect((await statementOf(read)).hotRead).toBe('task_subtree_with_version');
    const nodes = await planOf(orm, read);
    expect(seqScansOnTasks(nodes)).toEqual([]);
    expect(indexesUsed(nodes)).toEqual(
      expect.arrayContaining(['tasks_pkey', 'tasks_parent_idx', 'task_tree_versions_pkey']),
    );
    const { version, rows } = await read(Sql.of(orm));
    expect(rows).toHaveLength(1 + 9 + 9 * 10);
    expect(await treeVersions(Sql.of(orm), [owner])).toEqual([version]);
  });

  it('checks stored trees with one primary-key row per owner, several owners at once', async () => {
    const unknown = { tenantId: randomUUID(), userId: randomUUID() };
    const read = (sql: Sql) => treeVersions(sql, [owner, unknown, owner]);
    expect((await statementOf(read)).hotRead).toBe('task_tree_versions');
    const nodes = await planOf(orm, read);
    expect(nodes.filter((n) => n['Node Type'] === 'Seq Scan')).toEqual([]);
    expect(indexesUsed(nodes)).toEqual(['task_tree_versions_pkey']);
    const [mine, none, again] = await read(Sql.of(orm));
    expect([none, again]).toEqual(['0', mine]);
  });

  it('reads the same row through the read pool as through the ORM pool (types parsed alike)', async () => {
    const viaKnex = await findTask(Sql.of(orm), owner, rootId, true);
    const viaPool = await findTask(Sql.of(orm), owner, rootId);
    expect(viaPool).toEqual(viaKnex);
    expect(viaPool?.created_at).toBeInstanceOf(Date);
  });

  it('lists an owner through an owner index, with and without filters', async () => {
    for (const filters of [
      { limit: 50, offset: 0 },
      { status: 'pending' as const, limit: 50, offset: 0 },
      { parentTaskId: rootId, limit: 50, offset: 0 },
      { tag: 'home', limit: 50, offset: 0 },
    ]) {
      const nodes = await planOf(orm, (sql) => listTasks(sql, owner, filters));
      expect(seqScansOnTasks(nodes), JSON.stringify(filters)).toEqual([]);
      expect(indexesUsed(nodes), JSON.stringify(filters)).toEqual(
        expect.arrayContaining([expect.stringMatching(/^tasks_owner_/)]),
      );
    }
  });
});

describe('tree walks on a table grown faster than its statistics (a first routine fill)', () => {
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let orm: Orm;
  let owner = { tenantId: '', userId: '' };
  let rootId = '';

  beforeAll(async () => {
    db = await createTestDatabase();
    orm = await openOrm(db.url, dbConfig);
    const sql = Sql.of(orm);
    // Never analyzed while the test runs: the planner knows the table's size, not its shape, as after a fill.
    await sql.run('alter table tasks set (autovacuum_enabled = false)');
    const columns = `id, tenant_id, user_id, parent_task_id, depth, sort_order, title, status, priority, duration_min,
      reminder_channels, reminder_offset_min, tags, created_at, updated_at`;
    // 30,000 occurrences of 45 each for 667 owners, each with three steps.
    await sql.run(
      `insert into tasks (${columns})
       select md5('r' || n)::uuid, md5('t' || (n / 45))::uuid, md5('u' || (n / 45))::uuid, null, 1, n, 'occurrence',
         'pending', 3, 30, '{inapp}', 10, '{}', now(), now()
       from generate_series(0, 29999) as n`,
    );
    await sql.run(
      `insert into tasks (${columns})
       select gen_random_uuid(), md5('t' || (n / 45))::uuid, md5('u' || (n / 45))::uuid, md5('r' || n)::uuid, 2, s,
         'step', 'pending', 3, 10, '{inapp}', 10, '{}', now(), now()
       from generate_series(0, 29999) as n, generate_series(1, 3) as s`,
    );
    const root = await sql.first(
      row({ id: column.uuid, tenant_id: column.uuid, user_id: column.uuid }),
      `select id, tenant_id, user_id from tasks where id = md5('r0')::uuid`,
    );
    rootId = root?.id ?? '';
    owner = { tenantId: root?.tenant_id ?? '', userId: root?.user_id ?? '' };
  }, 120_000);

  afterAll(async () => {
    await orm?.close(true);
    await db?.drop();
  });

  it('walk down through the parent index, one probe per parent, never a scan of every task', async () => {
    const walks: [string, (sql: Sql) => Promise<unknown>][] = [
      ['subtree', (sql) => subtreeRows(sql, owner, rootId)],
      ['subtree with version', (sql) => subtreeWithVersion(sql, owner, rootId)],
      ['subtree shape', (sql) => subtreeShape(sql, owner, rootId)],
      ['owner tree', (sql) => ownerTreeRows(sql, owner, { limit: 50, offset: 0 })],
    ];
    for (const [name, walk] of walks) {
      const nodes = await planOf(orm, walk);
      expect(seqScansOnTasks(nodes), name).toEqual([]);
      // The children of each row: the parent index, or the owner index that ends with the parent.
      expect(indexesUsed(nodes), name).toEqual(
        expect.arrayContaining([expect.stringMatching(/^tasks_(owner_)?parent_idx$/)]),
      );
    }
    expect(await subtreeRows(Sql.of(orm), owner, rootId)).toHaveLength(4);
  });

  it('walk up through the primary key, one probe per row (which tasks belong to a template)', async () => {
    const steps = await Sql.of(orm).rows(row({ id: column.uuid }), 'select id from tasks where parent_task_id = ?', [
      rootId,
    ]);
    const ids = [rootId, ...steps.map((s) => s.id)];
    const walks: [string, (sql: Sql) => Promise<unknown>][] = [
      ['template tasks', (sql) => templateTaskIds(sql, ids)],
      ['template root', (sql) => templateRootOf(sql, owner, ids[1] as string)],
    ];
    for (const [name, walk] of walks) {
      const nodes = await planOf(orm, walk);
      expect(seqScansOnTasks(nodes), name).toEqual([]);
      expect(indexesUsed(nodes), name).toContain('tasks_pkey');
    }
    // No occurrence here carries a recurrence: none belongs to a template.
    expect(await templateTaskIds(Sql.of(orm), ids)).toEqual(new Set());
  });
});
