import { closest, distance } from 'fastest-levenshtein';
import type { ZodType, z } from 'zod';
import { type FieldError, type LocPart, MAX_PROBLEM_ERRORS } from '../errors.js';
import { shapeKeysAt, unknownFields } from './unknown-fields.js';

/**
 * What a 422 calls each part fastify validates in `loc`: the contract's `query.<name>`, never fastify's own
 * `querystring` (LOC_PARTS, errors.ts, is the one list; the Problem schema enumerates it).
 */
const LOC_OF_PART: Record<string, LocPart> = {
  querystring: 'query',
  body: 'body',
  params: 'params',
  headers: 'headers',
};

const locOfPart = (part: string | undefined): LocPart => LOC_OF_PART[part ?? 'body'] ?? 'request';

interface Issue {
  path: PropertyKey[];
  message: string;
  code: string;
  /** zod's own `unrecognized_keys` (a `.strict()` object) lists the keys here, its path being the object's. */
  keys?: string[];
  /** Fields the object does name: set by `unknownFields`, for the hint. */
  known?: string[];
}

/**
 * Validator compiler that keeps zod's issue paths so a 422 can name the exact field. Bodies and query strings
 * are strict: a field the schema does not name is a 422 too (unknown-fields.ts), where zod alone would drop it
 * (a misspelt `?stauts=done` would otherwise answer every task). One 422 lists both kinds, so a client fixing a
 * missing field does not learn of its misspelt one on the next try.
 */
export function zodValidatorCompiler({ schema, httpPart }: { schema: unknown; httpPart?: string }) {
  const strict = httpPart === 'body' || httpPart === 'querystring';
  return (data: unknown) => {
    const result = checked(schema as ZodType, data, strict);
    if (!result.success) return { error: Object.assign(new Error('validation'), { zodIssues: result.issues }) };
    return { value: result.data };
  };
}

/**
 * `schema.safeParse` as strict as a request body's check: a field the schema does not name is an issue too, in
 * the same list. For values that arrive inside a body as data of their own (an import's rows).
 */
export const strictParse = <T extends ZodType>(schema: T, data: unknown) => checked(schema, data, true);

function checked<T extends ZodType>(
  schema: T,
  data: unknown,
  strict: boolean,
): { success: true; data: z.output<T> } | { success: false; issues: Issue[] } {
  const result = schema.safeParse(data);
  const issues: Issue[] = [
    ...(result.success ? [] : result.error.issues),
    ...(strict ? unknownFields(schema, data) : []),
  ];
  return result.success && issues.length === 0 ? { success: true, data: result.data } : { success: false, issues };
}

/** ", did you mean `status`?" when a known field is a small edit away (a typo, not another word). */
function didYouMean(name: string, known: readonly string[]): string {
  if (known.length === 0) return '';
  const candidate = closest(name, known as string[]);
  const allowed = Math.max(1, Math.floor(Math.max(name.length, candidate.length) / 3));
  return distance(name, candidate) <= allowed ? `; did you mean ${candidate}?` : '';
}

/**
 * Field errors of a failed validation, one per field (an unknown key named in `loc`, with a hint), the first
 * MAX_PROBLEM_ERRORS of them with the count of all: a body of 50,000 unknown keys answers 50 lines, not
 * megabytes, and no hint is worked out for a line that is not sent.
 */
export function validationErrors(
  error: { validation?: unknown; validationContext?: string },
  schemaOf: (part: string) => unknown,
): { errors: FieldError[]; total: number } {
  const context = error.validationContext ?? 'body';
  const loc = locOfPart(context);
  const raw = (error as { zodIssues?: Issue[] }).zodIssues;
  if (!raw) return { errors: [{ loc: [loc], msg: 'Invalid input', type: 'invalid' }], total: 1 };
  return fieldErrors(raw, [loc], schemaOf(context));
}

/** A field error whose `loc` starts with `P` (a request part for a problem's `errors`, nothing for an import row). */
type PrefixedError<P extends (string | number)[]> = Omit<FieldError, 'loc'> & { loc: [...P, ...(string | number)[]] };

/**
 * Issues of a value checked against `schema` (`strictParse`) as field errors under `prefix`, one per field, the
 * first MAX_PROBLEM_ERRORS of them with the count of all (see `validationErrors`).
 */
export function fieldErrors<const P extends (string | number)[]>(
  raw: readonly Issue[],
  prefix: P,
  schema: unknown,
): { errors: PrefixedError<P>[]; total: number } {
  const path = (issue: Issue) => issue.path.map((p) => (typeof p === 'number' ? p : String(p)));
  const errors: PrefixedError<P>[] = [];
  let total = 0;
  const add = (make: () => PrefixedError<P>) => {
    total++;
    if (errors.length < MAX_PROBLEM_ERRORS) errors.push(make());
  };
  for (const issue of raw) {
    if (issue.code !== 'unrecognized_keys') {
      add(() => ({ loc: [...prefix, ...path(issue)], msg: issue.message, type: issue.code }));
    } else if (!issue.keys) {
      const name = String(issue.path.at(-1));
      add(() => ({
        loc: [...prefix, ...path(issue)],
        msg: `Unknown parameter: ${name}${didYouMean(name, issue.known ?? [])}`,
        type: issue.code,
      }));
    } else {
      // zod's own issue for a `.strict()` object: one per key, each named in `loc` like the others.
      const known = shapeKeysAt(schema, issue.path);
      for (const key of issue.keys) {
        add(() => ({
          loc: [...prefix, ...path(issue), key],
          msg: `Unknown parameter: ${key}${didYouMean(key, known)}`,
          type: issue.code,
        }));
      }
    }
  }
  return { errors, total };
}
