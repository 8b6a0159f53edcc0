import { z } from 'zod';

/** One field a body sent that its schema does not know, in zod's issue shape (as the 422 reports issues). */
export interface UnknownFieldIssue {
  code: 'unrecognized_keys';
  path: (string | number)[];
  message: string;
  /** The fields the object does name, for a "did you mean" hint. */
  known: string[];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The schema a wrapper (optional, nullable, default, ...) gives the same value to, or undefined. */
function unwrapped(schema: z.ZodType): z.ZodType | undefined {
  if (
    schema instanceof z.ZodOptional ||
    schema instanceof z.ZodNullable ||
    schema instanceof z.ZodDefault ||
    schema instanceof z.ZodPrefault ||
    schema instanceof z.ZodReadonly ||
    schema instanceof z.ZodNonOptional ||
    schema instanceof z.ZodCatch
  ) {
    return schema.unwrap() as z.ZodType;
  }
  return undefined;
}

/**
 * Fields of `data` that `schema` would silently strip: keys of a plain `z.object` (zod's default "strip" mode)
 * that its shape does not name, at any depth. Objects that declare what extra keys mean (`looseObject`,
 * `catchall`, records) accept them and are left alone. A client misspelling `dealine_at` learns it from a
 * 422 instead of a 200 that ignored the field (Stripe's "unknown parameter"). It reads the schemas through
 * zod's public classes (`shape`, `element`, `unwrap()`, ...).
 */
export function unknownFields(schema: z.ZodType, data: unknown, path: (string | number)[] = []): UnknownFieldIssue[] {
  const inner = unwrapped(schema);
  if (inner) return data === undefined || data === null ? [] : unknownFields(inner, data, path);
  if (schema instanceof z.ZodObject) {
    if (!isRecord(data)) return [];
    const shape = schema.shape as Record<string, z.ZodType>;
    const out: UnknownFieldIssue[] = [];
    const known = Object.keys(shape);
    for (const [key, value] of Object.entries(data)) {
      // Own keys only: `constructor` or `toString` are unknown fields, not the shape's inherited members.
      const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
      if (field) out.push(...unknownFields(field, value, [...path, key]));
      else if (!schema.def.catchall) {
        out.push({ code: 'unrecognized_keys', path: [...path, key], message: `Unknown parameter: ${key}`, known });
      }
    }
    return out;
  }
  if (schema instanceof z.ZodArray) {
    const element = schema.element as z.ZodType;
    return Array.isArray(data) ? data.flatMap((item, i) => unknownFields(element, item, [...path, i])) : [];
  }
  if (schema instanceof z.ZodTuple) {
    const items = schema.def.items as z.ZodType[];
    return Array.isArray(data) ? items.flatMap((item, i) => unknownFields(item, data[i], [...path, i])) : [];
  }
  if (schema instanceof z.ZodRecord) {
    const value = schema.valueType as z.ZodType;
    return isRecord(data) ? Object.entries(data).flatMap(([k, v]) => unknownFields(value, v, [...path, k])) : [];
  }
  // The input side describes what the client sends (the output side may be a reshaped value).
  if (schema instanceof z.ZodPipe) return unknownFields(schema.in as z.ZodType, data, path);
  if (schema instanceof z.ZodLazy) return unknownFields(schema.unwrap() as z.ZodType, data, path);
  if (schema instanceof z.ZodUnion) {
    // The option that accepts the value is the one whose fields count.
    const match = (schema.options as z.ZodType[]).find((option) => option.safeParse(data).success);
    return match ? unknownFields(match, data, path) : [];
  }
  if (schema instanceof z.ZodIntersection) {
    // A key is unknown only when neither side names it.
    const left = unknownFields(schema.def.left as z.ZodType, data, path);
    const right = unknownFields(schema.def.right as z.ZodType, data, path);
    const rightKeys = new Set(right.map((i) => i.path.join('\u0000')));
    return left.filter((i) => rightKeys.has(i.path.join('\u0000')));
  }
  return [];
}

/** The field names of the object `schema` describes at `path` (through wrappers and pipes), or none. */
export function shapeKeysAt(schema: unknown, path: readonly PropertyKey[]): string[] {
  const objectOf = (node: unknown): z.ZodObject | undefined => {
    let current = node;
    for (let i = 0; i < 8 && current instanceof z.ZodType; i++) {
      if (current instanceof z.ZodObject) return current;
      current = current instanceof z.ZodPipe ? current.in : unwrapped(current);
    }
    return undefined;
  };
  let node: unknown = schema;
  for (const key of path) node = (objectOf(node)?.shape as Record<string, unknown> | undefined)?.[String(key)];
  return Object.keys(objectOf(node)?.shape ?? {});
}
