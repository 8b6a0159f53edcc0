import { z } from 'zod';
import { ERROR_TABLE, type ErrorCode } from '../errors.js';

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
            .array(z.union([z.string(), z.number().int()]))
            .describe('Where: the request part (body, querystring, params, headers) then the path inside it'),
          msg: z.string(),
          type: z.string().describe('Kind of failure, e.g. too_small, invalid_format, unrecognized_keys'),
        }),
      )
      .optional()
      .describe('Each invalid field (422 only)'),
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

/** Shared response objects: the errors every route can give, by status. */
const COMMON_RESPONSES: Record<number, { name: string; description: string }> = {
  401: { name: 'Unauthorized', description: 'Not authenticated (missing, invalid, expired or revoked token)' },
  403: { name: 'Forbidden', description: 'Forbidden (a permission code the caller lacks)' },
  404: { name: 'NotFound', description: "Not found (also another tenant's or user's resource)" },
  422: { name: 'ValidationFailed', description: 'Validation failed; `errors` names each field (also unknown ones)' },
  429: { name: 'TooManyRequests', description: 'Too many requests; retry after `Retry-After` seconds' },
};

const DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request',
  409: 'Conflict',
  413: 'Payload too large',
  415: 'Unsupported media type',
  503: 'Service unavailable',
};

const header = (description: string, type: 'integer' | 'string' = 'integer') => ({
  description,
  schema: type === 'integer' ? { type, minimum: 0 } : { type },
});

/** `components.headers`: the ones answers carry (X-Request-Id on all, the rate-limit ones on limited routes). */
export const DOCUMENT_HEADERS = {
  'X-Request-Id': {
    ...header('Id of this request (echoed from the request when it sent a valid one); quote it to support', 'string'),
    example: '0f6c2a52-4c6b-4f4a-9a43-0c7f3f1f7b1e',
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

/** What an answer of this status looks like: the first code of the error table with that status. */
function problemExample(status: number) {
  const code = (Object.keys(ERROR_TABLE) as ErrorCode[]).find((c) => ERROR_TABLE[c].status === status);
  if (!code) return undefined;
  const { title } = ERROR_TABLE[code];
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

function problemResponse(status: number, description: string) {
  const example = problemExample(status);
  return {
    description,
    headers: {
      ...REQUEST_ID_HEADER,
      ...(status === 429 ? { 'Retry-After': ref('Retry-After'), ...RATE_LIMIT_HEADERS } : {}),
    },
    content: { 'application/problem+json': { schema: { $ref: PROBLEM_REF }, ...(example ? { example } : {}) } },
  };
}

/** `components.responses`: the shared error answers routes refer to. */
export const DOCUMENT_RESPONSES = Object.fromEntries(
  Object.entries(COMMON_RESPONSES).map(([status, { name, description }]) => [
    name,
    problemResponse(Number(status), description),
  ]),
);

export interface RouteFacts {
  auth: 'required' | 'optional' | 'none';
  hasPermission: boolean;
  rateLimited: boolean;
  url: string;
  hasInput: boolean;
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
      const stated = declared?.description;
      const description = stated === undefined || GENERIC.has(stated) ? undefined : stated;
      const common = COMMON_RESPONSES[status];
      out[code] =
        description === undefined && common
          ? { $ref: `#/components/responses/${common.name}` }
          : problemResponse(status, description ?? DESCRIPTIONS[status] ?? 'Error');
      continue;
    }
    out[code] = {
      ...declared,
      headers: {
        ...(declared?.headers ?? {}),
        ...REQUEST_ID_HEADER,
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
  add(422, facts.hasInput);
  add(429, facts.rateLimited);
  return out;
}
