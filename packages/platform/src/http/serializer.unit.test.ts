import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { compiledResponseSerializer, compileZodSerializer } from './serializer.js';

const route = { method: 'GET', url: '/x', httpStatus: '200' } as const;
const viaZod = (schema: z.ZodType, data: unknown) => zodSerializerCompiler({ schema, ...route })(data);

const item = z.object({
  id: z.uuid(),
  title: z.string(),
  description: z.string().nullable(),
  status: z.enum(['pending', 'done']),
  kind: z.literal('task'),
  priority: z.number().int(),
  ratio: z.number(),
  done: z.boolean(),
  tags: z.array(z.string()),
  due_at: z.iso.datetime().nullable(),
  note: z.string().optional(),
  meta: z.record(z.string(), z.number()),
  extra: z.unknown(),
  owner: z.object({ id: z.string(), name: z.string().nullable() }).nullable(),
});
const page = z.object({ items: z.array(item), total: z.number().int(), next: z.string().nullable() });

const sample = (overrides: Record<string, unknown> = {}) => ({
  id: '0190c3c8-4c7e-7b5a-9f1e-2d3c4b5a6978',
  title: 'Plain title',
  description: null,
  status: 'pending',
  kind: 'task',
  priority: 3,
  ratio: -0.125,
  done: false,
  tags: ['a', 'b "quoted"'],
  due_at: '2026-11-24T04:30:00.000Z',
  meta: { b: 2, a: 1, '10': 3 },
  extra: { nested: [1, 'two', null, { deep: true }] },
  owner: { id: 'u1', name: null },
  ...overrides,
});

// Strings JSON.stringify escapes: quotes, backslashes, control characters, lone surrogates, long ones.
const awkwardStrings = [
  '',
  'say "hi" \\ there',
  'line\nbreak\ttab\u0000nul\u001f',
  'emoji 😀 and lone \ud800 surrogate \udfff',
  'é ß 漢字 </script>',
  'x'.repeat(41),
  `${'y'.repeat(100)}"`,
  'z'.repeat(6000),
];

describe('compiled response serializer', () => {
  it('writes the same bytes as the zod serializer for plain schemas', () => {
    const rows = [
      sample(),
      sample({ note: 'present', description: 'text', owner: null, extra: undefined }),
      sample({ note: undefined, due_at: null, tags: [], meta: {}, ratio: 1e21, priority: -7 }),
      sample({ unknownKey: 'dropped', owner: { id: 'u2', name: 'N', secret: 'dropped too' } }),
      ...awkwardStrings.map((title) => sample({ title, description: title, tags: [title], note: title })),
    ];
    const compiled = compileZodSerializer(item);
    expect(compiled).toBeDefined();
    for (const row of rows) expect(compiled?.(row)).toBe(viaZod(item, row));
    const wholePage = { items: rows, total: rows.length, next: null, ignored: 1 };
    expect(compileZodSerializer(page)?.(wholePage)).toBe(viaZod(page, wholePage));
    const list = z.array(item);
    expect(compileZodSerializer(list)?.(rows)).toBe(viaZod(list, rows));
    // A schema named for the OpenAPI document (an id in zod's registry) is compiled like any other.
    const named = item.meta({ id: 'SerializerTestItem' });
    expect(compileZodSerializer(named)?.(rows[0])).toBe(viaZod(named, rows[0]));
  });

  it('keeps zod for schemas whose answer zod rewrites or that JSON schema cannot say', () => {
    const treeNode = z.object({
      id: z.string(),
      get children(): z.ZodArray<typeof treeNode> {
        return z.array(treeNode);
      },
    });
    const needZod: z.ZodType[] = [
      z.object({ at: z.date() }),
      z.object({ n: z.string().transform((s) => s.length) }),
      z.object({ s: z.string().trim() }),
      z.object({ s: z.string().default('x') }),
      z.object({ u: z.union([z.string(), z.number()]) }),
      z.object({ n: z.coerce.number() }),
      z.strictObject({ a: z.string() }),
      z.looseObject({ a: z.string() }),
      z.object({ list: z.array(z.string().optional()) }),
      z.object({ mixed: z.enum({ one: 1, two: 'two' }) }),
      treeNode,
    ];
    for (const schema of needZod) expect(compileZodSerializer(schema)).toBeUndefined();
    expect(compileZodSerializer({ type: 'object' })).toBeUndefined();
  });

  it('falls back to zod in the fastify compiler, which still refuses data that breaks the schema', () => {
    const schema = z.object({ at: z.date() });
    const serialize = compiledResponseSerializer({ schema, ...route });
    expect(serialize({ at: new Date(0) })).toBe('{"at":"1970-01-01T00:00:00.000Z"}');
    expect(() => serialize({ at: 'not a date' })).toThrow();
  });

  it('refuses an answer missing a required key, as zod does', () => {
    const serialize = compiledResponseSerializer({ schema: item, ...route });
    const { title: _title, ...withoutTitle } = sample();
    expect(() => serialize(withoutTitle)).toThrow();
    expect(() => viaZod(item, withoutTitle)).toThrow();
  });
});
