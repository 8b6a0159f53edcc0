/**
 * The document's `info.description`: what a reader of the docs page sees first. Markdown, rendered by the
 * docs page; the signature guide here is the one the README points to.
 */
export const API_DESCRIPTION = `
Routinely is a multi-tenant task scheduling, reminder and calendar service. Every path is also served under
the \`/v1\` alias (\`/v1/service/tasks\` is \`/api/v1/service/tasks\`).

## Conventions

- **Authentication**: \`Authorization: Bearer <access_token>\` from \`POST /api/v1/auth/register\` or
  \`/login\` (or the \`routinely_session\` cookie for browsers). Operations marked with no security are public.
- **Errors** are [RFC 9457](https://www.rfc-editor.org/rfc/rfc9457) \`application/problem+json\` bodies
  (the \`Problem\` schema) with a stable \`code\` and, for 422, \`errors[]\` naming each field as
  \`loc: [part, ...path]\`, the part one of \`body\`, \`query\`, \`params\` (a path parameter), \`path\`,
  \`headers\` or \`request\`. Unknown body fields and query parameters are refused the same way
  (\`type: unrecognized_keys\`). A known path with a method it does not serve is 405 with \`Allow\`.
- **Request ids**: every answer carries \`X-Request-Id\` (yours when you send a valid one); errors repeat it as
  \`request_id\`.
- **Rate limits**: per client IP; answers carry \`RateLimit-Limit\`, \`RateLimit-Remaining\` and
  \`RateLimit-Reset\`, and a 429 adds \`Retry-After\` (seconds).
- **Times** are ISO-8601 with an offset on input and UTC (\`Z\`) on output.

## Webhooks: verifying a signature

Each webhook endpoint has a secret (\`whsec_...\`), shown once when the endpoint is created or its secret is
rotated. Every delivery (see the \`webhooks\` section: \`reminder.fired\`, \`webhook.test\`) is a \`POST\` with a
canonical JSON body (keys sorted, no whitespace, UTF-8) and these headers:

| header | value |
|---|---|
| \`X-Service-Signature\` | \`t=<unix_seconds>,v1=<hex_digest>\` |
| \`X-Service-Timestamp\` | unix seconds at send |
| \`X-Service-Event\` | event kind, e.g. \`reminder.fired\` |
| \`X-Service-Event-Id\` | the same for one firing and endpoint across retries, redeliver and requeue: dedupe on it |
| \`X-Service-Delivery-Id\` | the delivery (stable across its retries; a requeue makes a new one) |
| \`X-Service-Endpoint-Id\` | the endpoint it was sent to |

To verify:

1. Split \`X-Service-Signature\` on \`,\` into \`t\` and \`v1\`.
2. Refuse the delivery when \`|now - t| > 300\` seconds (replay window).
3. Compute \`hex(HMAC-SHA256(key = the secret's UTF-8 bytes, message = t + "." + raw body bytes))\`. Hash the
   exact bytes received: parsing and re-serialising the JSON changes them.
4. Compare it with \`v1\` in constant time; answer \`2xx\` quickly and do the work afterwards.

Node:

\`\`\`js
import { createHmac, timingSafeEqual } from 'node:crypto';

export function verify(secret, header, rawBody, now = Date.now() / 1000) {
  const parts = Object.fromEntries(header.split(',').map((kv) => kv.split('=')));
  if (!parts.t || !parts.v1 || Math.abs(now - Number(parts.t)) > 300) return false;
  const expected = createHmac('sha256', secret).update(\`\${parts.t}.\`).update(rawBody).digest();
  const given = Buffer.from(parts.v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
\`\`\`

Python:

\`\`\`python
import hashlib, hmac, time

def verify(secret: str, header: str, raw_body: bytes, now: float | None = None) -> bool:
    parts = dict(kv.split("=", 1) for kv in header.split(","))
    t, v1 = parts.get("t"), parts.get("v1")
    if not t or not v1 or abs((now or time.time()) - int(t)) > 300:
        return False
    expected = hmac.new(secret.encode(), t.encode() + b"." + raw_body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, v1)
\`\`\`

Receivers' answers decide what happens next: \`2xx\` is delivered; \`429\` and \`5xx\` are retried after 5 s,
30 s, 5 min, 1 h (then 6 h, 12 h, 24 h for endpoints allowing more); other \`4xx\` go straight to the
dead-letter queue, from where \`POST /api/v1/service/reminders/dlq/{dlq_id}/requeue\` sends them again.
`.trim();

/** Descriptions of the tags the routes use (any other tag gets a generic one). */
export const TAG_DESCRIPTIONS: Record<string, string> = {
  auth: 'Registration, login, tokens, sessions and the profile',
  mfa: 'TOTP multi-factor authentication and backup codes',
  sso: "Single sign-on over OpenID Connect, and the identity provider's calls",
  tenant: "Tenant registration policy and invitations (the tenant's admins)",
  tasks: 'Routine task trees: create, read, update, move, reorder and delete tasks',
  'routine-tasks': 'Routine task listing by the routine-tasks paths of the contract',
  dependencies: 'Finish-to-start dependencies between tasks',
  'bulk-import': 'Bulk import of tasks from JSON or CSV, at once or as a background job',
  scheduling: 'Placing tasks in time',
  calendar: 'The unified calendar: scheduled tasks and connected calendars, views, free-busy',
  calendars: 'Shared calendars',
  'calendar items': 'Items of a shared calendar',
  'calendar sharing': 'Who else may see or edit a calendar',
  integrations: 'Google Calendar and Microsoft 365 connections',
  webhooks: 'Webhook endpoints that receive signed events (see the webhooks section)',
  reminders: 'Upcoming reminders, the delivery log and the dead-letter queue',
  notifications: 'The in-app bell feed',
  settings: 'Scheduling settings: working hours, no-go windows, model provider',
  usage: 'Model usage, spend caps and quotas',
  admin: 'Tenant and service administration',
};
