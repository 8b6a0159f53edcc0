import { status as GrpcStatus } from '@grpc/grpc-js';
import { AppError } from '@routinely/platform';

/** gRPC statuses that mean the task service was not there to answer (it may be back on the next attempt). */
const UNREACHABLE = new Set<number>([GrpcStatus.UNAVAILABLE, GrpcStatus.DEADLINE_EXCEEDED, GrpcStatus.CANCELLED]);

/**
 * What a run's `error` says about a failed pass: a code and a plain sentence, never the exception's own text
 * (a database error quotes its SQL statement, a TypeError its stack-level detail). The exception is logged.
 */
export function runErrorOf(error: unknown): string {
  if (error instanceof AppError) return `${error.code}: ${plainSentence(error.message)}`;
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === 'number' && 'details' in (error as object) && UNREACHABLE.has(code))
    return 'task_service_unavailable: the task service could not be reached; the run is tried again';
  return 'internal_error: the run stopped on an internal error; it is tried again';
}

/** An AppError's detail is ours, but it may name ids: kept to one short line. */
const plainSentence = (text: string) => text.replace(/\s+/g, ' ').trim().slice(0, 300);
