import { FakeLlmServer, type FakeLlmTask } from '@routinely/testkit';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
// The scheduling package's independent oracle: every hard rule and the block rule, checked from scratch.
import { instance, violations } from '../../scheduling/test/solver-oracle.js';
import { OpenAiAdapter, placeWithModel } from '../src/index.js';

let fake: FakeLlmServer;
beforeAll(async () => {
  fake = await FakeLlmServer.start({ apiKey: 'sk-test-agent-property' });
});
afterAll(async () => {
  await fake.close();
});

describe('placeWithModel, whatever the model picks', () => {
  it('never writes a placement that breaks a hard rule or the block rule, and accounts for every task once', async () => {
    const adapter = new OpenAiAdapter({
      apiKey: 'sk-test-agent-property',
      baseURL: fake.openaiBaseUrl,
      model: 'gpt-4.1-mini',
      maxTokens: 4096,
    });
    await fc.assert(
      fc.asyncProperty(
        instance,
        // Per task position: -1 leaves the task out, other values pick an index (past the end: invalid).
        fc.array(fc.integer({ min: -1, max: 7 }), { minLength: 8, maxLength: 8 }),
        async (input, picks) => {
          fake.reset();
          fake.enqueue({
            kind: 'pick',
            pick: (_t: FakeLlmTask, position: number) => {
              const value = picks[position % picks.length] ?? 0;
              return value < 0 ? undefined : value;
            },
          });
          const result = await placeWithModel({ adapter, input, titles: new Map(), timeoutMs: 10_000 });
          expect(violations(input, result.placements)).toEqual([]);
          const seen = [...result.placements.map((p) => p.taskId), ...result.unscheduled.map((u) => u.taskId)].sort();
          expect(seen).toEqual(input.tasks.map((t) => t.id).sort());
          for (const p of result.placements) expect(p.rationale.length).toBeGreaterThan(0);
          expect(result.failure).toBeUndefined();
        },
      ),
      { numRuns: 80 },
    );
  });
});
