import { z } from 'zod';

/** RFC 9457 problem body of every error answer (see errors.ts problemOf). */
export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    code: z.string(),
    request_id: z.string(),
    errors: z
      .array(z.object({ loc: z.array(z.union([z.string(), z.number()])), msg: z.string(), type: z.string() }))
      .optional(),
  })
  .describe('RFC 9457 problem');

const { $schema: _, ...problemJsonSchema } = z.toJSONSchema(problemSchema) as Record<string, unknown>;

const DESCRIPTIONS: Record<number, string> = {
  400: 'Bad request',
  401: 'Not authenticated (missing, invalid, expired or revoked token)',
  403: 'Forbidden (a permission code the caller lacks)',
  404: "Not found (also another tenant's or user's resource)",
  409: 'Conflict',
  413: 'Payload too large',
  422: 'Validation failed; `errors` names each field',
  429: 'Too many requests',
  503: 'Service unavailable',
};

const RATE_LIMIT_HEADERS = {
  'Retry-After': { type: 'integer', description: 'Seconds until a retry may succeed' },
  'RateLimit-Limit': { type: 'integer', description: 'Requests allowed in the current window' },
  'RateLimit-Remaining': { type: 'integer', description: 'Requests left in the current window' },
  'RateLimit-Reset': { type: 'integer', description: 'Seconds until the window resets' },
};

function problemResponse(status: number, description?: string) {
  return {
    description: description ?? DESCRIPTIONS[status] ?? 'Error',
    ...(status === 429 ? { headers: RATE_LIMIT_HEADERS } : {}),
    content: { 'application/problem+json': { schema: problemJsonSchema } },
  };
}

interface RouteFacts {
  auth: 'required' | 'optional' | 'none';
  hasPermission: boolean;
  rateLimited: boolean;
  url: string;
  hasInput: boolean;
}

/**
 * The error answers every route can give, added by the app factory so no service documents them by hand:
 * 401 unless public, 403 when a permission code guards it, 404 when the path names a resource, 422 when it
 * takes input, 429 unless exempt from the rate limit. Errors a route declares itself (409, 413, a calendar's
 * 403, ...) keep their description and are documented as application/problem+json too.
 */
export function withProblemResponses(
  response: Record<string, unknown> | undefined,
  facts: RouteFacts,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [code, schema] of Object.entries(response ?? {})) {
    const status = Number(code);
    const declared = (schema as { description?: string } | undefined)?.description;
    out[code] =
      status >= 400 ? problemResponse(status, declared === problemSchema.description ? undefined : declared) : schema;
  }
  const add = (status: number, when: boolean) => {
    if (when && !(String(status) in out)) out[String(status)] = problemResponse(status);
  };
  add(401, facts.auth !== 'none');
  add(403, facts.hasPermission);
  add(404, facts.url.includes(':') || facts.url.includes('{'));
  add(422, facts.hasInput);
  add(429, facts.rateLimited);
  return out;
}
