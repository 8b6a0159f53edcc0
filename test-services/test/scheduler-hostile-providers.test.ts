import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeLlmServer, type FakeLlmTask, fakeLlmEnv, type LlmBehavior, type TestUser } from '@routinely/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTask, type RunHarness, startRunHarness } from './run-harness.js';
import { knowUser, ok } from './scheduler-harness.js';

const LEASE_MS = 60_000;
let h: RunHarness;
let llm: FakeLlmServer;
/** An internal address a redirect points at: it must never be asked. */
let internal: Server;
let internalHits = 0;
/** Test hooks switched on by the test that needs them. */
const failNext = { afterBatch: false, beforeBatchWrite: false };

beforeAll(async () => {
  llm = await FakeLlmServer.start();
  internal = createServer((_req, res) => {
    internalHits += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  await new Promise<void>((resolve) => internal.listen(0, '127.0.0.1', resolve));
  h = await startRunHarness(
    {
      SCHEDULER_RUN_LEASE_MS: String(LEASE_MS),
      ...fakeLlmEnv(llm, { anthropic: true }),
    },
    {
      runHooks: {
        afterBatch: async () => {
          if (!failNext.afterBatch) return;
          failNext.afterBatch = false;
          throw new Error('insert into "schedule_decisions" ("id", "rationale") values ($1, $2) - violates a check');
        },
        beforeBatchWrite: async () => {
          if (!failNext.beforeBatchWrite) return;
          failNext.beforeBatchWrite = false;
          throw new Error('the decisions could not be written');
        },
      },
    },
  );
});
afterAll(async () => {
  await h?.close();
  await llm?.close();
  await new Promise((resolve) => internal.close(resolve));
});

const raw = (body: string, contentType = 'application/json', status = 200): LlmBehavior => ({
  kind: 'raw',
  status,
  body,
  contentType,
});

const BAD_ANSWERS: [string, () => LlmBehavior, RegExp][] = [
  ['an HTML page with 200', () => raw('<html>Sign in to the hotel Wi-Fi</html>', 'text/html'), /not JSON/],
  ['an empty body', () => raw(''), /empty/],
  ['null', () => raw('null'), /envelope/],
  ['a JSON string', () => raw('"ok"'), /envelope/],
  ['an empty object', () => raw('{}'), /envelope/],
  [
    'a 302 to an internal address',
    () => ({
      kind: 'raw',
      status: 302,
      body: '<html>moved</html>',
      contentType: 'text/html',
      headers: { location: `http://127.0.0.1:${(internal.address() as AddressInfo).port}/v1/chat/completions` },
    }),
    /http_302/,
  ],
];

async function runOf(user: TestUser, id: string) {
  return ok(await h.scheduler.call(user, 'GET', `/service/schedule/runs/${id}`));
}

/** Polls the run until `done` holds (the worker runs on its own; no timing is asserted). */
async function until(user: TestUser, id: string, done: (run: Record<string, unknown>) => boolean) {
  for (let i = 0; i < 600; i++) {
    const run = await runOf(user, id);
    if (done(run)) return run;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`run ${id} never reached the expected state`);
}

describe.each(['openai', 'anthropic'] as const)('a %s provider answering badly', (provider) => {
  it.each(BAD_ANSWERS)('%s: the sync run answers 200 with solver decisions naming the reason', async (_l, bad, why) => {
    llm.reset();
    llm.enqueue(bad());
    const hits = internalHits;
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const task = await createTask(h, user, { title: 'hostile', duration_min: 30 });
    const run = await ok(await h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: [task.id], provider }));
    expect(run.status).toBe('completed');
    expect(run.decisions).toHaveLength(1);
    expect(run.decisions[0]).toMatchObject({ source: 'solver', applied: true });
    expect(run.decisions[0].rationale).toMatch(/^model call failed \(/);
    expect(run.decisions[0].rationale).toMatch(why);
    expect(internalHits).toBe(hits);
  });
});

describe('answers of the wrong envelope and content', () => {
  it('an Anthropic content that is a string falls back to the solver', async () => {
    llm.reset();
    llm.enqueue(
      raw(JSON.stringify({ type: 'message', content: 'slot 0 please', usage: { input_tokens: 3, output_tokens: 4 } })),
    );
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const task = await createTask(h, user, { title: 'string content', duration_min: 30 });
    const run = await ok(
      await h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: [task.id], provider: 'anthropic' }),
    );
    expect(run.decisions[0]).toMatchObject({ source: 'solver' });
    expect(run.decisions[0].rationale).toContain('invalid_answer');
    // The tokens it reported were billed: 3 x 1 + 4 x 2 micro-USD.
    expect(run.cost_usd).toBe(0.000011);
  });

  it('1e15 reported tokens are bounded by the call budget, never a 500', async () => {
    llm.reset();
    llm.enqueue({ kind: 'pick', usage: { inputTokens: 1e15, outputTokens: 1e15 } });
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const task = await createTask(h, user, { title: 'huge usage', duration_min: 30 });
    const run = await ok(
      await h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: [task.id], provider: 'openai' }),
    );
    expect(run.decisions[0]).toMatchObject({ source: 'agent' });
    const today = await ok(await h.scheduler.call(user, 'GET', '/service/llm/usage/today'));
    expect(today.output_tokens).toBe(8_192);
    expect(today.input_tokens).toBeLessThan(100_000);
    expect(run.cost_usd).toBe(today.total_usd);
  });

  it('a NUL and a lone surrogate in a rationale are stored clean (sync and queued runs)', async () => {
    llm.reset();
    const dirty: LlmBehavior = {
      kind: 'answer',
      document: (tasks: FakeLlmTask[]) => ({
        choices: tasks.map((t) => ({ task_id: t.task_id, candidate: 0, rationale: 'early\u0000 is \ud800 best' })),
      }),
    };
    llm.setDefault(dirty);
    try {
      const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
      const one = await createTask(h, user, { title: 'nul sync', duration_min: 15 });
      const run = await ok(
        await h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: [one.id], provider: 'openai' }),
      );
      expect(run.decisions[0]).toMatchObject({ source: 'agent', rationale: 'early is \ufffd best' });

      const ids: string[] = [];
      for (let i = 0; i < 12; i++) ids.push((await createTask(h, user, { title: `nul ${i}`, duration_min: 15 })).id);
      const queued = await h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: ids, provider: 'openai' });
      expect(queued.statusCode, queued.body).toBe(202);
      const worker = await h.scheduler.spawn({ start: true });
      try {
        const done = await until(user, queued.json().run_id, (r) => r.status === 'completed');
        expect(done.error).toBeNull();
        expect(done.decisions).toHaveLength(12);
        // Two batches, two calls, each billed once.
        expect(llm.requests).toHaveLength(3);
      } finally {
        await worker.service.stop();
      }
    } finally {
      llm.setDefault({ kind: 'pick', pick: 'first' });
    }
  }, 60_000);
});

describe('failed passes of a queued run', () => {
  it('a batch whose write fails bills nothing; its retry bills its own answer once', async () => {
    llm.reset();
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const ids: string[] = [];
    for (let i = 0; i < 11; i++) ids.push((await createTask(h, user, { title: `bill ${i}`, duration_min: 15 })).id);
    failNext.beforeBatchWrite = true;
    const res = await h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: ids, provider: 'openai' });
    expect(res.statusCode, res.body).toBe(202);
    const worker = await h.scheduler.spawn({ start: true });
    try {
      const failed = await until(user, res.json().run_id, (r) => r.error !== null);
      expect(failed.error).toBe('internal_error: the run stopped on an internal error; it is tried again');
      expect((await ok(await h.scheduler.call(user, 'GET', '/service/llm/usage/today'))).calls).toBe(0);
      h.clock.advance(LEASE_MS + 1_000);
      const done = await until(user, res.json().run_id, (r) => r.status === 'completed');
      const today = await ok(await h.scheduler.call(user, 'GET', '/service/llm/usage/today'));
      // Three answers came (the lost one and two batches); the two kept batches are billed, once each.
      expect(llm.requests).toHaveLength(3);
      expect(today.calls).toBe(2);
      expect(done.cost_usd).toBe(today.total_usd);
    } finally {
      await worker.service.stop();
    }
  }, 60_000);

  it("a run's error is a code and a plain sentence, never the exception's SQL", async () => {
    llm.reset();
    const user = await knowUser(h.scheduler, h.scheduler.tokens.user());
    const ids: string[] = [];
    for (let i = 0; i < 11; i++) ids.push((await createTask(h, user, { title: `err ${i}`, duration_min: 15 })).id);
    failNext.afterBatch = true;
    const res = await h.scheduler.call(user, 'POST', '/service/schedule', { task_ids: ids });
    expect(res.statusCode, res.body).toBe(202);
    const worker = await h.scheduler.spawn({ start: true });
    try {
      const failed = await until(user, res.json().run_id, (r) => r.error !== null);
      expect(failed.error).not.toMatch(/insert|schedule_decisions|\$1/);
      expect(failed.error).toMatch(/^[a-z_]+: [A-Za-z]/);
      h.clock.advance(LEASE_MS + 1_000);
      const done = await until(user, res.json().run_id, (r) => r.status === 'completed');
      expect(done).toMatchObject({ error: null, progress: { total: 11, done: 11 } });
    } finally {
      await worker.service.stop();
    }
  }, 60_000);
});
