/**
 * The one closed table of error codes. Domain code throws AppError with a code from here; the HTTP layer
 * turns it into an RFC 9457 problem and the gRPC layer into a status, both from this table.
 */
export const ERROR_TABLE = {
  /** A request a standard answers with 400 (OIDC Back-Channel Logout); everything else invalid is 422. */
  invalid_request: { status: 400, grpc: 3, title: 'Invalid request' },
  validation_failed: { status: 422, grpc: 3, title: 'Validation failed' },
  provider_not_configured: { status: 422, grpc: 9, title: 'Provider not configured' },
  provider_unavailable: { status: 422, grpc: 9, title: 'Provider unavailable' },
  not_authenticated: { status: 401, grpc: 16, title: 'Not authenticated' },
  invalid_credentials: { status: 401, grpc: 16, title: 'Invalid credentials' },
  invalid_token: { status: 401, grpc: 16, title: 'Invalid or expired token' },
  invalid_mfa_code: { status: 401, grpc: 16, title: 'Invalid MFA code' },
  invalid_sso_token: { status: 401, grpc: 16, title: 'Invalid single sign-on token' },
  forbidden: { status: 403, grpc: 7, title: 'Forbidden' },
  registration_closed: { status: 403, grpc: 7, title: 'Registration closed' },
  account_disabled: { status: 403, grpc: 7, title: 'Account disabled' },
  not_found: { status: 404, grpc: 5, title: 'Not found' },
  email_taken: { status: 409, grpc: 6, title: 'Email already registered' },
  conflict: { status: 409, grpc: 9, title: 'Conflict' },
  depth_exceeded: { status: 409, grpc: 9, title: 'Maximum task depth exceeded' },
  cycle_detected: { status: 409, grpc: 9, title: 'Cycle detected' },
  duplicate_dependency: { status: 409, grpc: 6, title: 'Dependency already exists' },
  already_shared: { status: 409, grpc: 6, title: 'Calendar already shared with this user' },
  mfa_already_enabled: { status: 409, grpc: 9, title: 'MFA already enabled' },
  mfa_not_enabled: { status: 409, grpc: 9, title: 'MFA is not enabled' },
  password_already_set: { status: 409, grpc: 9, title: 'A local password is already set' },
  event_not_editable: { status: 409, grpc: 9, title: 'Event not editable' },
  not_scheduled: { status: 409, grpc: 9, title: 'Task not scheduled' },
  write_back_in_use: { status: 409, grpc: 9, title: 'Another integration writes back' },
  reconnect_required: { status: 409, grpc: 9, title: 'Reconnect required' },
  method_not_allowed: { status: 405, grpc: 12, title: 'Method not allowed' },
  payload_too_large: { status: 413, grpc: 8, title: 'Payload too large' },
  uri_too_long: { status: 414, grpc: 3, title: 'URI too long' },
  unsupported_media_type: { status: 415, grpc: 3, title: 'Unsupported media type' },
  too_many_endpoints: { status: 422, grpc: 9, title: 'Too many webhook endpoints' },
  quota_exceeded: { status: 429, grpc: 8, title: 'Quota exceeded' },
  rate_limited: { status: 429, grpc: 8, title: 'Too many requests' },
  headers_too_large: { status: 431, grpc: 3, title: 'Request header fields too large' },
  internal_error: { status: 500, grpc: 13, title: 'Internal server error' },
  service_unavailable: { status: 503, grpc: 14, title: 'Service unavailable' },
  sso_unavailable: { status: 503, grpc: 14, title: 'Single sign-on unavailable' },
} as const satisfies Record<string, { status: number; grpc: number; title: string }>;

export type ErrorCode = keyof typeof ERROR_TABLE;

/**
 * What the first element of a field error's `loc` names, the one spelling of each part of a request (the
 * contract's `body.title`, `query.<name>`): `params` a path parameter, `path` the URL itself, `request` the
 * message as a whole (a gRPC request, a malformed HTTP one).
 */
export const LOC_PARTS = ['body', 'query', 'params', 'path', 'headers', 'request'] as const;
export type LocPart = (typeof LOC_PARTS)[number];
export type FieldLoc = [LocPart, ...(string | number)[]];

export interface FieldError {
  loc: FieldLoc;
  msg: string;
  type: string;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly errors: FieldError[] | undefined;
  /** How many field errors were found, when `errors` lists only some of them. */
  readonly errorsTotal: number | undefined;
  readonly headers: Record<string, string> | undefined;
  constructor(
    code: ErrorCode,
    detail?: string,
    options: { errors?: FieldError[]; errorsTotal?: number; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(detail ?? ERROR_TABLE[code].title, { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.errors = options.errors;
    this.errorsTotal = options.errorsTotal;
    this.headers = options.headers;
  }
  get status(): number {
    return ERROR_TABLE[this.code].status;
  }
}

export const notFound = (what = 'Resource') => new AppError('not_found', `${what} not found`);
export const forbidden = (detail = 'Missing permission') => new AppError('forbidden', detail);

/** A 422 naming one field, for rules a schema cannot express (e.g. end after start). */
export function fieldError(loc: FieldLoc, msg: string, type = 'value_error'): AppError {
  return new AppError('validation_failed', msg, { errors: [{ loc, msg, type }] });
}

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  request_id: string;
  errors?: FieldError[];
  errors_total?: number;
}

/** A problem lists at most this many field errors; `errors_total` counts them all when there were more. */
export const MAX_PROBLEM_ERRORS = 50;

export function problemOf(error: AppError, requestId: string): Problem {
  const entry = ERROR_TABLE[error.code];
  const problem: Problem = {
    type: `urn:routinely:problem:${error.code}`,
    title: entry.title,
    status: entry.status,
    detail: error.message,
    code: error.code,
    request_id: requestId,
  };
  if (error.errors) {
    problem.errors = error.errors.slice(0, MAX_PROBLEM_ERRORS);
    const total = Math.max(error.errorsTotal ?? 0, error.errors.length);
    if (total > problem.errors.length) problem.errors_total = total;
  }
  return problem;
}
