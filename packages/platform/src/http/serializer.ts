import fastJsonStringify from 'fast-json-stringify';
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

/**
 * How a route's answer becomes bytes (ADR 080): fastify's serializer compiler, given the route's zod response
 * schema. Two of them, the plain one and the compiled one; `createHttpApp` uses the compiled one.
 */
export type ResponseSerializerCompiler = (input: SerializerCompilerInput) => (data: unknown) => string;
type SerializerCompilerInput = Parameters<typeof zodSerializerCompiler>[0];

/**
 * Compiled once per route and status: a fast-json-stringify function from the schema's JSON Schema
 * (`z.toJSONSchema`, output side), where that JSON Schema says everything zod's parse would do to the answer:
 * objects that strip unknown keys, strings, numbers, booleans, enums, literals, arrays, records, nullable and
 * optional fields, unknown values. Elsewhere (defaults, coercion, trim and other rewrites, transforms, dates,
 * unions, recursion, strict or loose objects, ...) zod's serializer is kept. Same bytes out: same keys in the
 * same order, unknown keys dropped, nulls kept, absent optional keys left out, strings escaped as
 * JSON.stringify does.
 *
 * The one difference is on data that breaks the schema: zod refuses it (500); the compiled function writes it
 * as JSON of the schema's types where it can. Handlers build their answers from typed rows, so that only
 * matters for a bug, which the route tests (which parse every answer with the same schemas) would catch.
 */
export const compiledResponseSerializer: ResponseSerializerCompiler = (input) =>
  compileZodSerializer(input.schema) ?? zodSerializerCompiler(input);

type JsonSchema = Record<string, unknown>;

/** Thrown while converting when a schema needs zod at serialization time. */
class NeedsZod extends Error {}

/** What zod's parse would rewrite, or cannot say in JSON Schema: called for every schema `z.toJSONSchema` visits. */
function refuseRewrites(schema: z.ZodType): void {
  const def = schema.def as {
    type: string;
    coerce?: boolean;
    catchall?: unknown;
    checks?: unknown[];
    element?: z.ZodType;
    valueType?: z.ZodType;
  };
  if (['default', 'prefault', 'catch', 'success', 'nonoptional'].includes(def.type)) throw new NeedsZod();
  if (def.coerce || def.checks?.some((check) => check instanceof z.core.$ZodCheckOverwrite)) throw new NeedsZod();
  // z.strictObject refuses unknown keys and z.looseObject keeps them: only the default strips them.
  if (def.type === 'object' && def.catchall !== undefined) throw new NeedsZod();
  // An absent item or value would be written differently (null by JSON.stringify).
  if (def.element instanceof z.ZodOptional || def.valueType instanceof z.ZodOptional) throw new NeedsZod();
}

/** The JSON Schema as fast-json-stringify writes it like zod: nullable spelled its way, required keys a prefix. */
function forWriting(node: JsonSchema): JsonSchema {
  if ('$ref' in node || 'oneOf' in node || 'allOf' in node || 'not' in node) throw new NeedsZod();
  if (('enum' in node || 'const' in node) && typeof node.type !== 'string') throw new NeedsZod();
  if (Array.isArray(node.anyOf)) {
    const options = node.anyOf as JsonSchema[];
    const value = options.filter((option) => option.type !== 'null');
    if (options.length !== 2 || value.length !== 1) throw new NeedsZod();
    return nullable(forWriting(value[0] as JsonSchema));
  }
  if (Array.isArray(node.type)) {
    const types = node.type.filter((type) => type !== 'null');
    if (node.type.length !== 2 || types.length !== 1) throw new NeedsZod();
    return nullable(forWriting({ ...node, type: types[0] }));
  }
  const out: JsonSchema = { ...node };
  if (node.items) out.items = forWriting(node.items as JsonSchema);
  if (typeof node.additionalProperties === 'object') {
    out.additionalProperties = forWriting(node.additionalProperties as JsonSchema);
  }
  if (node.properties) {
    const properties = Object.entries(node.properties as Record<string, JsonSchema>);
    out.properties = Object.fromEntries(properties.map(([key, value]) => [key, forWriting(value)]));
    // fast-json-stringify writes required keys before the others; zod writes the shape's order. So only the
    // keys before the first optional one stay required (same order, and a missing one still throws); the
    // typed handlers guarantee the later ones. An unknown value (`{}`) may be absent from zod's answer too.
    const required = new Set(node.required as string[] | undefined);
    const prefix: string[] = [];
    for (const [key, value] of properties) {
      if (!required.has(key) || Object.keys(value).length === 0) break;
      prefix.push(key);
    }
    out.required = prefix;
  }
  return out;
}

/** An empty schema already writes null as null. */
const nullable = (schema: JsonSchema): JsonSchema =>
  Object.keys(schema).length === 0 ? schema : { ...schema, nullable: true };

/** The compiled writer for `schema`, or undefined when the answer needs zod's serializer. */
export function compileZodSerializer(schema: unknown): ((data: unknown) => string) | undefined {
  if (!(schema instanceof z.ZodType)) return undefined;
  let jsonSchema: JsonSchema;
  try {
    jsonSchema = z.toJSONSchema(schema, {
      io: 'output',
      // Without the registry's ids, every schema is written inline (no `$ref`); a cycle still throws.
      metadata: z.registry(),
      cycles: 'throw',
      override: (context) => refuseRewrites(context.zodSchema as unknown as z.ZodType),
    }) as JsonSchema;
    const { $schema: _dialect, ...rest } = jsonSchema;
    jsonSchema = forWriting(rest);
  } catch {
    // NeedsZod, or what z.toJSONSchema cannot represent (transforms, dates, cycles, ...).
    return undefined;
  }
  return fastJsonStringify(jsonSchema) as (data: unknown) => string;
}
