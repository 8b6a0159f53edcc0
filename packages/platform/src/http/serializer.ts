import fastJsonStringify from 'fast-json-stringify';
import { serializerCompiler as zodSerializerCompiler } from 'fastify-type-provider-zod';
import { z } from 'zod';

/**
 * Response serialization compiled once per route and status (ADR 080).
 *
 * The route's zod schema stays the one source of truth (validation, OpenAPI, and the shape of the answer). For
 * the schemas whose answer is plain JSON of the data as given (objects, strings, numbers, booleans, enums,
 * literals, arrays, records, nullable and optional fields, unknown values) we compile a fast-json-stringify
 * function from an equivalent JSON schema: same keys in the same order, unknown keys dropped, nulls kept,
 * absent optional keys left out, strings escaped as JSON.stringify does. Everything else (transforms, pipes,
 * defaults, unions, dates, recursive schemas, strict or passthrough objects, ...) keeps zod's serializer,
 * which parses the data with the schema and stringifies the result.
 *
 * The one difference is on data that breaks the schema: zod refuses it (500); the compiled function writes
 * it as JSON of the schema's types where it can. Handlers build their answers from typed rows, so that only
 * matters for a bug, which the route tests (which parse every answer with the same schemas) would catch.
 */
type JsonSchema = Record<string, unknown>;

interface ZodInternals {
  _zod: {
    def: {
      type: string;
      coerce?: boolean;
      innerType?: z.ZodType;
      element?: z.ZodType;
      shape?: Record<string, z.ZodType>;
      catchall?: z.ZodType;
      entries?: Record<string, unknown>;
      values?: unknown[];
      keyType?: z.ZodType;
      valueType?: z.ZodType;
      checks?: { _zod: { def: { check: string } } }[];
    };
  };
}

/** Thrown inside the walk when a schema needs zod at serialization time. */
class NeedsZod extends Error {}

const defOf = (schema: z.ZodType) => (schema as unknown as ZodInternals)._zod.def;

/** The JSON type every value of a literal or enum shares, or NeedsZod when they are mixed. */
function sharedType(values: unknown[]): string {
  const types = new Set(values.map((value) => (value === null ? 'null' : typeof value)));
  const [only] = types;
  if (types.size !== 1 || !only || !['string', 'number', 'boolean', 'null'].includes(only)) throw new NeedsZod();
  return only;
}

/** The JSON schema fast-json-stringify writes `schema`'s data with; `seen` guards against recursion. */
function toSerializationSchema(schema: z.ZodType, seen: Set<z.ZodType>): JsonSchema {
  if (seen.has(schema)) throw new NeedsZod();
  seen.add(schema);
  try {
    const def = defOf(schema);
    // trim(), toLowerCase() and the like rewrite the value as zod parses it.
    if (def.checks?.some((check) => check._zod.def.check === 'overwrite')) throw new NeedsZod();
    switch (def.type) {
      case 'string':
      case 'number':
      case 'boolean':
        if (def.coerce) throw new NeedsZod();
        return { type: def.type };
      case 'null':
        return { type: 'null' };
      case 'unknown':
      case 'any':
        return {};
      case 'enum':
        return { type: sharedType(Object.values(def.entries ?? {})) };
      case 'literal':
        return { type: sharedType(def.values ?? []) };
      case 'nullable': {
        if (!def.innerType) throw new NeedsZod();
        const inner = toSerializationSchema(def.innerType, seen);
        // An empty schema already writes null as null.
        return Object.keys(inner).length === 0 ? inner : { ...inner, nullable: true };
      }
      case 'array':
        if (!def.element || defOf(def.element).type === 'optional') throw new NeedsZod();
        return { type: 'array', items: toSerializationSchema(def.element, seen) };
      case 'record': {
        if (!def.keyType || !def.valueType) throw new NeedsZod();
        const key = defOf(def.keyType);
        if (key.type !== 'string' || key.coerce || (key.checks?.length ?? 0) > 0) throw new NeedsZod();
        if (defOf(def.valueType).type === 'optional') throw new NeedsZod();
        return { type: 'object', additionalProperties: toSerializationSchema(def.valueType, seen) };
      }
      case 'object':
        return objectSchema(def, seen);
      default:
        throw new NeedsZod();
    }
  } finally {
    seen.delete(schema);
  }
}

function objectSchema(def: ZodInternals['_zod']['def'], seen: Set<z.ZodType>): JsonSchema {
  // z.strictObject (catchall never) refuses unknown keys and z.looseObject keeps them: only the default,
  // which strips them, matches `additionalProperties: false`.
  if (def.catchall !== undefined || !def.shape) throw new NeedsZod();
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  // fast-json-stringify writes required keys before the others; zod writes the shape's order. So only the
  // keys before the first optional one are marked required (same order, and a missing one still throws);
  // the typed handlers guarantee the later ones.
  let prefix = true;
  for (const [key, field] of Object.entries(def.shape)) {
    const fieldDef = defOf(field);
    // unknown/any keys may be absent in zod's output too.
    const optional = ['optional', 'unknown', 'any'].includes(fieldDef.type);
    if (fieldDef.type === 'optional') {
      if (!fieldDef.innerType) throw new NeedsZod();
      properties[key] = toSerializationSchema(fieldDef.innerType, seen);
    } else {
      properties[key] = toSerializationSchema(field, seen);
    }
    prefix &&= !optional;
    if (prefix) required.push(key);
  }
  return { type: 'object', properties, required, additionalProperties: false };
}

/** The compiled writer for `schema`, or undefined when the answer needs zod's serializer. */
export function compileZodSerializer(schema: unknown): ((data: unknown) => string) | undefined {
  if (!(schema instanceof z.ZodType)) return undefined;
  let jsonSchema: JsonSchema;
  try {
    jsonSchema = toSerializationSchema(schema, new Set());
  } catch (error) {
    if (error instanceof NeedsZod) return undefined;
    throw error;
  }
  return fastJsonStringify(jsonSchema) as (data: unknown) => string;
}

type SerializerCompilerInput = Parameters<typeof zodSerializerCompiler>[0];

/** fastify's serializer compiler: the compiled writer where the schema allows, zod's serializer otherwise. */
export function responseSerializerCompiler(input: SerializerCompilerInput): (data: unknown) => string {
  return compileZodSerializer(input.schema) ?? zodSerializerCompiler(input);
}
