import { AppError, type FieldError } from '@routinely/platform';
import type { z } from 'zod';

/**
 * gRPC requests are validated like HTTP bodies: by one zod schema. A failure is INVALID_ARGUMENT whose
 * details name every bad field (`assignments.0.chosen_slot_start: ...`), since gRPC carries no problem body.
 */
export function parseRequest<S extends z.ZodType>(schema: S, request: unknown): z.infer<S> {
  const result = schema.safeParse(request);
  if (result.success) return result.data;
  const errors: FieldError[] = result.error.issues.map((issue) => ({
    loc: ['request', ...issue.path.map((p) => (typeof p === 'number' ? p : String(p)))],
    msg: issue.message,
    type: issue.code,
  }));
  const detail = errors.map((e) => `${e.loc.slice(1).join('.') || 'request'}: ${e.msg}`).join('; ');
  throw new AppError('validation_failed', detail, { errors });
}
