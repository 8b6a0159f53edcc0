import { z } from 'zod';
import { ERROR_TABLE, type ErrorCode, LOC_PARTS } from '../errors.js';

/** RFC 9457 problem body of every error answer (see errors.ts problemOf); the document's `Problem` schema. */
export const problemSchema = z
  .object({
    type: z.string().describe('A URI naming the kind of problem'),
    title: z.string().describe('Short summary of the kind of problem'),
    status: z.number().int().min(400).max(599),
    detail: z.string().describe('What went wrong with this request'),
    code: z.enum(Object.keys(ERROR_TABLE) as [keyof typeof ERROR_TABLE]).describe('Stable machine-readable code'),
    request_id: z.string().describe('The X-Request-Id of the request, for support'),
    errors: z
      .array(
        z.object({
          loc: z
            .tuple([z.enum(LOC_PARTS)], z.union([z.string(), z.number().int()]))
            .describe(
              'Where: the request part (`params` is a path parameter, `path` the URL itself, `request` the whole message), then the path inside it',
            ),
          msg: z.string(),
          type: z.string().describe('Kind of failure, e.g. too_small, invalid_format, unrecognized_keys'),
        }),
      )
      .max(50)
      .optional()
      .describe('Each invalid field (422 only); at most 50, `errors_total` counts them all when there were more'),
    errors_total: z
      .number()
      .int()
      .min(51)
      .optional()
      .describe('How many invalid fields were found, when `errors` lists only the first 50'),
  })
  .meta({
    id: 'Problem',
    description: 'RFC 9457 problem',
    examples: [
      {
        type: 'about:blank',
        title: 'Validation failed',
        status: 422,
        detail: 'Request validation failed',
        code: 'validation_failed',
        request_id: '0f6c2a52-4c6b-4f4a-9a43-0c7f3f1f7b1e',
        errors: [
          { loc: ['body', 'title'], msg: 'Too small: expected string to have >=1 characters', type: 'too_small' },
        ],
      },
    ],
  });

const PROBLEM_DESCRIPTION = 'RFC 9457 problem';
/** Descriptions @fastify/swagger fills in when a route declared an error without saying which one. */
const GENERIC = new Set([PROBLEM_DESCRIPTION, 'Default Response']);

export const PROBLEM_REF = '#/components/schemas/Problem';

type ProblemStatus = (typeof ERROR_TABLE)[ErrorCode]['status'];

/**
 * A route's own error answers, by status, each naming its problem codes and when they happen:
 * `response: { 201: x, ...problemAnswers({ email_taken: 'an account with this email exists' }) }`. The document
 * lists the codes in the answer's description and shows the first one as its example; clients switch on `code`.
 */
export function problemAnswers(
  codes: Partial<Record<ErrorCode, string>>,
): Partial<Record<ProblemStatus, typeof problemSchema>> {
  const byStatus = new Map<ProblemStatus, string[]>();
  for (const [code, why] of Object.entries(codes) as [ErrorCode, string][]) {
    const status = ERROR_TABLE[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), `\`${code}\`: ${why}`]);
  }
  return Object.fromEntries([...byStatus].map(([status, lines]) => [status, problemSchema.describe(lines.join('; '))]));
}

/** The codes of `status` a description names (as `code` or code:), in order. */
export function problemCodesIn(description: string, status: number): ErrorCode[] {
  const codes = new Set<ErrorCode>();
  for (const word of description.match(/[a-z][a-z_]+/g) ?? []) {
    if (Object.hasOwn(ERROR_TABLE, word) && ERROR_TABLE[word as ErrorCode].status === status)
      codes.add(word as ErrorCode);
  }
  return [...codes];
}

/** Shared response objects: the errors every route can give, by status, with the code each answers. */
const COMMON_RESPONSES: Record<number, { name: string; description: string; code: ErrorCode }> = {
  401: {
    name: 'Unauthorized',
    description: 'Not authenticated (missing, invalid, expired or revoked token); sent with `WWW-Authenticate: Bearer`',
    code: 'not_authenticated',
  },
  403: { name: 'Forbidden', description: 'Forbidden (a permission code the caller lacks)', code: 'forbidden' },
  404: { name: 'NotFound', description: "Not found (also another tenant's or user's resource)", code: 'not_found' },
  413: { name: 'PayloadTooLarge', description: 'The body is over 1 MiB', code: 'payload_too_large' },
  415: {
    name: 'UnsupportedMediaType',
    description: "The body's Content-Type is not one this operation reads (JSON unless the operation lists others)",
    code: 'unsupported_media_type',
  },
  422: {
    name: 'ValidationFailed',
    description:
      'Validation failed; `errors` names each field (unknown ones too, with a hint for a near miss), at most 50 with `errors_total`',
    code: 'validation_failed',
  },
  429: {
    name: 'TooManyRequests',
    description: 'Too many requests; retry after `Retry-After` seconds',
    code: 'rate_limited',
  },
};

const withCodes = (description: string, codes: readonly ErrorCode[]) =>
  `${description}. Codes: ${codes.map((code) => `\`${code}\``).join(', ')}`;

const DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request',
  409: 'Conflict',
  503: 'Service unavailable',
};

const header = (description: string, type: 'integer' | 'string' = 'integer') => ({
  description,
  schema: type === 'integer' ? { type, minimum: 0 } : { type },
});

/** A header a success answer of one route sends, as `answerHeaders` declares it. */
export interface AnswerHeader {
  description: string;
  type?: 'integer' | 'string';
  example: string | number;
  /** Default true; false for a header only some answers of the status send (a login that asks for MFA sets no cookie). */
  required?: boolean;
}

const ANSWER_HEADERS = new WeakMap<object, Record<string, AnswerHeader>>();

/**
 * Declares the headers a success answer always sends (a 202's `Location` to poll, a list's `X-Total-Count`),
 * so the document lists them as required: `202: answerHeaders(queuedRunOut, { Location: { ... } })`.
 */
export function answerHeaders<T extends object>(schema: T, headers: Record<string, AnswerHeader>): T {
  ANSWER_HEADERS.set(schema, headers);
  return schema;
}

/** The headers declared for a route's answer schemas, by status (read by the route transform). */
export function declaredAnswerHeaders(response: unknown): Record<string, Record<string, AnswerHeader>> {
  const out: Record<string, Record<string, AnswerHeader>> = {};
  if (typeof response !== 'object' || response === null) return out;
  for (const [status, schema] of Object.entries(response)) {
    const headers = typeof schema === 'object' && schema !== null ? ANSWER_HEADERS.get(schema) : undefined;
    if (headers) out[status] = headers;
  }
  return out;
}

/** `components.headers`: the ones answers carry (X-Request-Id on all, the rate-limit ones on limited routes). */
export const DOCUMENT_HEADERS = {
  'X-Request-Id': {
    ...header('Id of this request (echoed from the request when it sent a valid one); quote it to support', 'string'),
    required: true,
    example: '0f6c2a52-4c6b-4f4a-9a43-0c7f3f1f7b1e',
  },
  'WWW-Authenticate': { ...header('The scheme to authenticate with', 'string'), required: true, example: 'Bearer' },
  Location: {
    ...header('Where the redirect goes', 'string'),
    required: true,
    example: 'https://idp.example.com/realms/acme/protocol/openid-connect/auth?client_id=routinely',
  },
  'Retry-After': header('Seconds until a retry may succeed'),
  'RateLimit-Limit': header('Requests allowed in the current window'),
  'RateLimit-Remaining': header('Requests left in the current window'),
  'RateLimit-Reset': header('Seconds until the window resets'),
};

const ref = (name: string) => ({ $ref: `#/components/headers/${name}` });
const REQUEST_ID_HEADER = { 'X-Request-Id': ref('X-Request-Id') };
const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': ref('RateLimit-Limit'),
  'RateLimit-Remaining': ref('RateLimit-Remaining'),
  'RateLimit-Reset': ref('RateLimit-Reset'),
};

const EXAMPLE_REQUEST_ID = '0f6c2a52-4c6b-4f4a-9a43-0c7f3f1f7b1e';

/** What an answer of this code looks like. */
function problemExample(code: ErrorCode) {
  const { title, status } = ERROR_TABLE[code];
  return {
    type: `urn:routinely:problem:${code}`,
    title,
    status,
    detail: status === 422 ? 'Request validation failed' : title,
    code,
    request_id: EXAMPLE_REQUEST_ID,
    ...(status === 422
      ? { errors: [{ loc: ['body', 'dealine_at'], msg: 'Unknown parameter: dealine_at', type: 'unrecognized_keys' }] }
      : {}),
  };
}

function problemResponse(status: number, description: string, codes: readonly ErrorCode[]) {
  const first = codes[0] ?? (Object.keys(ERROR_TABLE) as ErrorCode[]).find((c) => ERROR_TABLE[c].status === status);
  const example = first ? problemExample(first) : undefined;
  return {
    description: codes.length > 0 ? withCodes(description, codes) : description,
    headers: {
      ...REQUEST_ID_HEADER,
      ...(status === 401 ? { 'WWW-Authenticate': ref('WWW-Authenticate') } : {}),
      ...(status === 429 ? { 'Retry-After': ref('Retry-After'), ...RATE_LIMIT_HEADERS } : {}),
    },
    content: { 'application/problem+json': { schema: { $ref: PROBLEM_REF }, ...(example ? { example } : {}) } },
  };
}

/** `components.responses`: the shared error answers routes refer to. */
export const DOCUMENT_RESPONSES = Object.fromEntries(
  Object.entries(COMMON_RESPONSES).map(([status, { name, description, code }]) => [
    name,
    problemResponse(Number(status), description, [code]),
  ]),
);

export interface RouteFacts {
  auth: 'required' | 'optional' | 'none';
  hasPermission: boolean;
  rateLimited: boolean;
  url: string;
  hasInput: boolean;
  /** The route reads a request body (413 and 415 apply). */
  hasBody: boolean;
  /** Success statuses whose body is the JSON `null`. */
  nullAnswers?: string[];
  /** Headers its success answers always send, by status (`answerHeaders`). */
  answerHeaders?: Record<string, Record<string, AnswerHeader>>;
}

interface ResponseObject {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, unknown>;
  $ref?: string;
}

/**
 * The error answers every route can give, added by the app factory so no service documents them by hand:
 * 401 unless public, 403 when a permission code guards it, 404 when the path names a resource, 422 when it
 * takes input, 429 unless exempt from the rate limit. Errors a route declares itself (409, 413, a calendar's
 * 403, ...) keep their description and are documented as application/problem+json too. Every answer
 * documents X-Request-Id; rate-limited routes document the RateLimit-* headers on their successes.
 */
export function withProblemResponses(
  response: Record<string, unknown> | undefined,
  facts: RouteFacts,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [code, raw] of Object.entries(response ?? {})) {
    const status = Number(code);
    const declared = raw as ResponseObject | undefined;
    if (status >= 400) {
      out[code] = errorResponse(status, declared, facts);
      continue;
    }
    const own = Object.entries(facts.answerHeaders?.[code] ?? {}).map(([name, h]) => [
      name,
      {
        description: h.description,
        required: h.required ?? true,
        schema: { type: h.type ?? 'string' },
        example: h.example,
      },
    ]);
    const nullBody =
      facts.nullAnswers?.includes(code) && !declared?.content
        ? { content: { 'application/json': { schema: { type: 'null' } } } }
        : {};
    out[code] = {
      ...declared,
      ...nullBody,
      headers: {
        ...(declared?.headers ?? {}),
        ...REQUEST_ID_HEADER,
        ...(status === 302 ? { Location: ref('Location') } : {}),
        ...Object.fromEntries(own),
        ...(facts.rateLimited ? RATE_LIMIT_HEADERS : {}),
      },
    };
  }
  const add = (status: number, when: boolean) => {
    const common = COMMON_RESPONSES[status];
    if (when && common && !(String(status) in out)) {
      out[String(status)] = { $ref: `#/components/responses/${common.name}` };
    }
  };
  add(401, facts.auth !== 'none');
  add(403, facts.hasPermission);
  add(404, facts.url.includes(':') || facts.url.includes('{'));
  add(413, facts.hasBody);
  add(415, facts.hasBody);
  add(422, facts.hasInput);
  add(429, facts.rateLimited);
  return out;
}

/** The common code a guard answers with at `status` on this route, if that guard applies to it. */
function guardCode(status: number, facts: RouteFacts): ErrorCode | undefined {
  const applies: Record<number, boolean> = {
    401: facts.auth !== 'none',
    403: facts.hasPermission,
    404: facts.url.includes(':') || facts.url.includes('{'),
    413: facts.hasBody,
    415: facts.hasBody,
    422: facts.hasInput,
    429: facts.rateLimited,
  };
  return applies[status] ? COMMON_RESPONSES[status]?.code : undefined;
}

/**
 * A declared error answer: its own description with the codes it names, plus the guard's code when the guard
 * answers that status on this route too (a login's 401 is `invalid_credentials`; a 422 of a route taking input is
 * also `validation_failed`). A declared schema of its own (a problem with members of its own, as the OIDC
 * back-channel logout's `error` and `error_description`) is kept, under `application/problem+json` too.
 */
function errorResponse(status: number, declared: ResponseObject | undefined, facts: RouteFacts): unknown {
  const content = declared?.content as Record<string, { schema?: { $ref?: string } }> | undefined;
  const json = content?.['application/json'];
  if (json?.schema && json.schema.$ref !== PROBLEM_REF) {
    const description =
      declared?.description === undefined || GENERIC.has(declared.description)
        ? (DESCRIPTIONS[status] ?? 'Error')
        : declared.description;
    return {
      ...declared,
      description,
      headers: { ...(declared?.headers ?? {}), ...REQUEST_ID_HEADER },
      content: { 'application/problem+json': json },
    };
  }
  const stated = declared?.description;
  const description = stated === undefined || GENERIC.has(stated) ? undefined : stated;
  const common = COMMON_RESPONSES[status];
  const implied = guardCode(status, facts);
  if (description === undefined) {
    if (common) return { $ref: `#/components/responses/${common.name}` };
    return problemResponse(status, DESCRIPTIONS[status] ?? 'Error', []);
  }
  const named = problemCodesIn(description, status);
  const codes = implied && !named.includes(implied) ? [...named, implied] : named;
  const text =
    implied && !named.includes(implied) && common ? `${description}; otherwise ${common.description}` : description;
  return problemResponse(status, text, codes);
}
