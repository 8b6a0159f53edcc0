/**
 * What an error may carry into a log line. Database drivers put the failing statement with its bind values
 * interpolated into `message` and `stack` (the query builder: "<sql with values> - <reason>"), and PostgreSQL's own reason
 * and `detail` quote the offending value ("invalid input syntax ...: \"<value>\"", "Key (email)=(...)"). Those
 * values are password hashes, sealed secrets, tokens and personal data, so a database error is logged by its
 * codes and location only, and any error's `sql`/`query`/`parameters`/`bindings` properties are dropped.
 */

const STATEMENT_KEYS = new Set(['sql', 'query', 'parameters', 'params', 'bindings', 'values', 'internalQuery']);
/** PostgreSQL fields that name where a failure happened without quoting any value. */
const SAFE_DB_FIELDS = ['code', 'sqlState', 'severity', 'schema', 'table', 'column', 'constraint', 'routine'] as const;
const MAX_CAUSE_DEPTH = 5;

interface SafeError {
  type: string;
  message: string;
  stack?: string;
  [key: string]: unknown;
}

function isDatabaseError(error: Error & Record<string, unknown>): boolean {
  if (typeof error.sqlState === 'string') return true;
  // pg's DatabaseError: a severity and a five-character SQLSTATE code.
  return typeof error.severity === 'string' && typeof error.code === 'string' && /^[0-9A-Z]{5}$/.test(error.code);
}

/** The stack's frames without its first line(s), which repeat the message. */
function framesOnly(stack: string | undefined): string | undefined {
  if (!stack) return undefined;
  return stack
    .split('\n')
    .filter((line) => /^\s+at /.test(line))
    .join('\n');
}

export function safeError(value: unknown, depth = 0): unknown {
  if (!(value instanceof Error)) return value;
  const error = value as Error & Record<string, unknown>;
  const type = error.constructor?.name ?? error.name;
  const out: SafeError = { type, message: error.message };
  if (isDatabaseError(error)) {
    out.message = `database error ${String(error.sqlState ?? error.code)} (statement and values withheld from logs)`;
    for (const field of SAFE_DB_FIELDS) if (typeof error[field] === 'string') out[field] = error[field];
    const frames = framesOnly(error.stack);
    if (frames) out.stack = frames;
  } else {
    if (error.stack) out.stack = error.stack;
    for (const [key, field] of Object.entries(error)) {
      if (STATEMENT_KEYS.has(key) || key === 'cause' || key in out) continue;
      if (field instanceof Error) out[key] = depth < MAX_CAUSE_DEPTH ? safeError(field, depth + 1) : field.message;
      else if (typeof field !== 'object' || field === null) out[key] = field;
    }
  }
  // MikroORM keeps the driver's error as `previous`, Node as `cause`: both go through the same filter.
  if (error.cause !== undefined && depth < MAX_CAUSE_DEPTH) out.cause = safeError(error.cause, depth + 1);
  if (error.previous instanceof Error && depth < MAX_CAUSE_DEPTH) out.previous = safeError(error.previous, depth + 1);
  return out;
}

/** What a failure is, for a log line's fields and a stored record: its class and, when it has one, its code. */
export interface ErrorClass {
  error_class: string;
  error_code?: string;
}

export function errorClassOf(value: unknown): ErrorClass {
  if (!(value instanceof Error)) return { error_class: typeof value };
  const error = value as Error & Record<string, unknown>;
  const code = error.sqlState ?? error.code;
  return {
    error_class: error.constructor?.name ?? error.name,
    ...(typeof code === 'string' || typeof code === 'number' ? { error_code: String(code) } : {}),
  };
}

/**
 * One line that says why something failed without what it ran on: a database error as its class and SQLSTATE
 * (its message holds the statement and the bind values), anything else as its message (ours, written to be read).
 */
export function errorSummary(value: unknown): string {
  if (!(value instanceof Error)) return String(value);
  const error = value as Error & Record<string, unknown>;
  if (!isDatabaseError(error)) return error.message;
  const { error_class, error_code } = errorClassOf(error);
  return `${error_class} (SQLSTATE ${error_code})`;
}
