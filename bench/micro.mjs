#!/usr/bin/env node
// In-process CPU cost of the JavaScript steps of the hot paths, before against after, in one process so a
// busy machine slows both alike (no server, database or network). Not a test.
//
//   npm run bench -- micro.mjs            (BEFORE_ROOT: a built checkout of the base, default /work/main)
//
// Prints µs per operation (median of 5 rounds) for: serializing one task read (zod's serializer before,
// the compiled one after) and turning the 101 raw rows of a tree into its JSON answer (parse, build, stringify).
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const after = new URL('../', import.meta.url);
const before = pathToFileURL(`${process.env.BEFORE_ROOT ?? '/work/main'}/`);
const load = (root, file) => import(new URL(file, root).href);

const taskRequire = createRequire(new URL('services/task/package.json', after));
const { serializerCompiler } = await import(pathToFileURL(taskRequire.resolve('fastify-type-provider-zod')).href);
const { responseSerializerCompiler } = await load(after, 'packages/platform/dist/http/serializer.js');
const { taskRead } = await load(after, 'services/task/dist/http/tasks/schemas.js');
const steps = {
  before: {
    ...(await load(before, 'services/task/dist/db/task-sql.js')),
    ...(await load(before, 'services/task/dist/domain/tree.js')),
  },
  after: {
    ...(await load(after, 'services/task/dist/db/task-sql.js')),
    ...(await load(after, 'services/task/dist/domain/tree.js')),
  },
};

/** µs per call of `fn`, median of 5 rounds of `n` calls. */
function cost(fn, n) {
  const rounds = [];
  for (let r = 0; r < 5; r++) {
    const started = process.cpuUsage();
    for (let i = 0; i < n; i++) fn(i);
    const used = process.cpuUsage(started);
    rounds.push((used.user + used.system) / n);
  }
  return rounds.sort((a, b) => a - b)[2];
}

// A task read as the route answers it, and raw tree rows as the ORM's pg pool returns them (dates as text).
const read = {
  id: '0190c3c8-4c7e-7b5a-9f1e-2d3c4b5a6978',
  tenant_id: '0190c3c8-4c7e-7b5a-9f1e-2d3c4b5a0001',
  user_id: '0190c3c8-4c7e-7b5a-9f1e-2d3c4b5a0002',
  parent_task_id: null,
  depth: 1,
  sort_order: 0,
  title: 'Write the quarterly report',
  description: 'Numbers from the finance export, two pages',
  raw_input: null,
  status: 'scheduled',
  priority: 3,
  duration_min: 45,
  deadline_at: '2026-11-30T17:00:00.000Z',
  earliest_start_at: null,
  reminder_channels: ['inapp', 'webhook'],
  reminder_offset_min: 10,
  tags: ['work', 'reports'],
  chosen_slot_start: '2026-11-25T09:00:00.000Z',
  chosen_slot_end: '2026-11-25T09:45:00.000Z',
  completed_at: null,
  created_at: '2026-11-24T04:12:00.123Z',
  updated_at: '2026-11-24T04:13:10.456Z',
};
const rawRow = (id, parent, depth, order) => ({
  ...read,
  id,
  parent_task_id: parent,
  depth,
  sort_order: order,
  deadline_at: '2026-11-30 17:00:00+00',
  chosen_slot_start: '2026-11-25 09:00:00+00',
  chosen_slot_end: '2026-11-25 09:45:00+00',
  created_at: '2026-11-24 04:12:00.123456+00',
  updated_at: '2026-11-24 04:13:10.456789+00',
  version: 1,
});
const uuid = (n) => `0190c3c8-4c7e-7b5a-9f1e-${String(n).padStart(12, '0')}`;
const template = [rawRow(uuid(0), null, 1, 0)];
for (let c = 1; c <= 10; c++) template.push(rawRow(uuid(c), uuid(0), 2, c));
for (let g = 0; g < 90; g++) template.push(rawRow(uuid(100 + g), uuid(1 + (g % 10)), 3, g));

const route = { method: 'GET', url: '/api/v1/service/tasks/:task_id', httpStatus: '200' };
const zodWrite = serializerCompiler({ schema: taskRead, ...route });
const compiledWrite = responseSerializerCompiler({ schema: taskRead, ...route });
if (zodWrite(read) !== compiledWrite(read)) throw new Error('the two serializers disagree');
const treeJson = ({ parseTaskRow, buildTree }) => {
  const rows = template.map((row) => parseTaskRow({ ...row }));
  return JSON.stringify(buildTree(rows));
};
if (treeJson(steps.before) !== treeJson(steps.after)) throw new Error('the two tree answers differ');

const lines = [
  ['serialize one task read', cost(() => zodWrite(read), 20_000), cost(() => compiledWrite(read), 20_000)],
  [
    'tree of 101: parse rows, build, stringify',
    cost(() => treeJson(steps.before), 500),
    cost(() => treeJson(steps.after), 500),
  ],
];
console.log('| step | before (µs) | after (µs) | after / before |\n|---|---|---|---|');
for (const [name, b, a] of lines)
  console.log(`| ${name} | ${b.toFixed(1)} | ${a.toFixed(1)} | ${(a / b).toFixed(2)} |`);
