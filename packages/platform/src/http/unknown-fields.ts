import type { ZodType } from 'zod';

/** One field a body sent that its schema does not know, in zod's issue shape (as the 422 reports issues). */
export interface UnknownFieldIssue {
  code: 'unrecognized_keys';
  path: (string | number)[];
  message: string;
  /** The fields the object does name, for a "did you mean" hint. */
  known: string[];
}

interface Def {
  type: string;
  shape?: Record<string, ZodType>;
  catchall?: ZodType;
  element?: ZodType;
  innerType?: ZodType;
  in?: ZodType;
  options?: ZodType[];
  left?: ZodType;
  right?: ZodType;
  valueType?: ZodType;
  items?: ZodType[];
  getter?: () => ZodType;
}

const defOf = (schema: ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Wrappers whose inner schema sees the same value. */
const WRAPPERS = new Set(['optional', 'nullable', 'default', 'prefault', 'readonly', 'nonoptional', 'catch']);

/**
 * Fields of `data` that `schema` would silently strip: keys of a plain `z.object` (zod's default "strip" mode)
 * that its shape does not name, at any depth. Objects that declare what extra keys mean (`looseObject`,
 * `catchall`, records) accept them and are left alone. A client misspelling `dealine_at` learns it from a
 * 422 instead of a 200 that ignored the field (Stripe's "unknown parameter").
 */
export function unknownFields(schema: ZodType, data: unknown, path: (string | number)[] = []): UnknownFieldIssue[] {
  const def = defOf(schema);
  if (WRAPPERS.has(def.type) && def.innerType) {
    return data === undefined || data === null ? [] : unknownFields(def.innerType, data, path);
  }
  switch (def.type) {
    case 'object': {
      if (!isRecord(data) || !def.shape) return [];
      const out: UnknownFieldIssue[] = [];
      const known = Object.keys(def.shape);
      for (const [key, value] of Object.entries(data)) {
        // Own keys only: `constructor` or `toString` are unknown fields, not the shape's inherited members.
        const field = Object.hasOwn(def.shape, key) ? def.shape[key] : undefined;
        if (field) out.push(...unknownFields(field, value, [...path, key]));
        else if (!def.catchall) {
          out.push({
            code: 'unrecognized_keys',
            path: [...path, key],
            message: `Unknown parameter: ${key}`,
            known,
          });
        }
      }
      return out;
    }
    case 'array':
      return Array.isArray(data) && def.element
        ? data.flatMap((item, i) => unknownFields(def.element as ZodType, item, [...path, i]))
        : [];
    case 'tuple':
      return Array.isArray(data) && def.items
        ? def.items.flatMap((item, i) => unknownFields(item, data[i], [...path, i]))
        : [];
    case 'record':
      return isRecord(data) && def.valueType
        ? Object.entries(data).flatMap(([k, v]) => unknownFields(def.valueType as ZodType, v, [...path, k]))
        : [];
    case 'pipe':
      // The input side describes what the client sends (the output side may be a reshaped value).
      return def.in ? unknownFields(def.in, data, path) : [];
    case 'lazy':
      return def.getter ? unknownFields(def.getter(), data, path) : [];
    case 'union': {
      // The option that accepts the value is the one whose fields count.
      const match = def.options?.find((option) => option.safeParse(data).success);
      return match ? unknownFields(match, data, path) : [];
    }
    case 'intersection': {
      // A key is unknown only when neither side names it.
      const left = def.left ? unknownFields(def.left, data, path) : [];
      const right = def.right ? unknownFields(def.right, data, path) : [];
      const rightKeys = new Set(right.map((i) => i.path.join('\u0000')));
      return left.filter((i) => rightKeys.has(i.path.join('\u0000')));
    }
    default:
      return [];
  }
}
