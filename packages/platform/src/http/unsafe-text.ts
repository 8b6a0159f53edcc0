import type { FastifyRequest } from 'fastify';
import { AppError, type FieldError, type FieldLoc } from '../errors.js';

/**
 * NUL (PostgreSQL text cannot hold it) and unpaired UTF-16 surrogates (not encodable as UTF-8, refused by
 * jsonb) make every later layer fail with a 500. One scan of every string a request carries refuses them
 * as a 422 naming the field, before any route's own schema runs.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is exactly what this refuses.
const UNSAFE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const MAX_DEPTH = 64;
const MAX_ERRORS = 20;

function scan(value: unknown, loc: FieldLoc, out: FieldError[], depth: number): void {
  if (out.length >= MAX_ERRORS) return;
  if (typeof value === 'string') {
    if (UNSAFE.test(value)) {
      out.push({
        loc,
        msg: 'must not contain NUL characters or unpaired surrogates',
        type: 'string_unsafe_characters',
      });
    }
    return;
  }
  if (value === null || typeof value !== 'object' || depth > MAX_DEPTH) return;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) scan(item, [...loc, index], out, depth + 1);
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    if (UNSAFE.test(key)) {
      out.push({
        loc: [...loc, key],
        msg: 'field names must not contain NUL characters or unpaired surrogates',
        type: 'key_unsafe_characters',
      });
      continue;
    }
    scan(item, [...loc, key], out, depth + 1);
  }
}

/**
 * Runs as a preValidation hook: the body is parsed (JSON, form or text) and nothing has used it yet. Headers
 * are not scanned: Node's parser refuses a NUL in a header (400 before routing) and decodes header bytes as
 * Latin-1, which has no surrogates, so a header can hold neither; the scan of a kilobyte-long bearer token
 * cost about 2 % of a single-row read.
 */
export function refuseUnsafeText(request: FastifyRequest): void {
  const errors: FieldError[] = [];
  scan(request.params, ['params'], errors, 0);
  scan(request.query, ['query'], errors, 0);
  scan(request.body, ['body'], errors, 0);
  if (errors.length > 0) {
    throw new AppError('validation_failed', 'Request contains characters that cannot be stored', { errors });
  }
}
