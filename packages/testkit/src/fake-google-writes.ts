import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FakeOAuthCore } from './fake-calendar-oauth.js';
import { randomId, type WrittenCalendars } from './fake-written-calendars.js';

export const GOOGLE_WRITE_SCOPE = 'https://www.googleapis.com/auth/calendar.app.created';

const error = (code: number, message: string, reason: string, status?: string) => ({
  error: { code, message, errors: [{ domain: 'calendar', reason, message }], ...(status ? { status } : {}) },
});
const unauthorized = () =>
  error(401, 'Request had invalid authentication credentials.', 'authError', 'UNAUTHENTICATED');
const needsWrite = {
  scope: GOOGLE_WRITE_SCOPE,
  forbidden: () => error(403, 'Request had insufficient authentication scopes.', 'insufficientPermissions'),
};
/** Google's answer to a client going over its quota: 403 rateLimitExceeded (throttleNext/rateLimit may send it). */
export const googleRateLimitBody = error(403, 'Rate Limit Exceeded', 'rateLimitExceeded');
/** Event ids a client may choose: base32hex characters, 5 to 1024 of them. */
const CLIENT_ID = /^[a-v0-9]{5,1024}$/;

/**
 * Calendar API v3 writes: calendarList.list, calendars.insert/delete, events.insert/patch/delete on secondary
 * calendars with Google's answers (409 duplicate for a client id already used, deleted events included; 410
 * for a deleted event; 404 for an unknown one; 403 without the write scope). What is written is kept in `store`.
 */
export function registerGoogleWrites(
  fake: FakeOAuthCore & { email: string; calendarTimeZone: string },
  store: WrittenCalendars,
): void {
  const app: FastifyInstance = fake.app;
  const guard = (request: FastifyRequest, reply: FastifyReply, write = true) =>
    fake.guard(request, reply, unauthorized, write ? needsWrite : undefined);
  const calendarOf = (request: FastifyRequest, reply: FastifyReply) => {
    const { calendarId } = request.params as { calendarId: string };
    const calendar = store.calendars.get(calendarId);
    if (!calendar) reply.status(404).send(error(404, 'Not Found', 'notFound'));
    return calendar;
  };

  // For people trying write-back by hand: the calendars written so far and their live events.
  app.get('/_fake/written', () =>
    [...store.calendars.values()].map((c) => ({ id: c.id, name: c.name, events: store.live(c.id).map((e) => e.body) })),
  );

  app.get('/calendar/v3/users/me/calendarList', (request, reply) => {
    if (!guard(request, reply, false)) return reply;
    const items = [
      { kind: 'calendar#calendarListEntry', id: fake.email, summary: fake.email, primary: true, accessRole: 'owner' },
      ...[...store.calendars.values()].map((c) => ({
        kind: 'calendar#calendarListEntry',
        id: c.id,
        summary: c.name,
        description: c.description,
        accessRole: 'owner',
      })),
    ];
    return { kind: 'calendar#calendarList', items };
  });

  app.post('/calendar/v3/calendars', (request, reply) => {
    if (!guard(request, reply)) return reply;
    const body = (request.body ?? {}) as { summary?: string; description?: string };
    if (!body.summary) return reply.status(400).send(error(400, 'Missing title.', 'required'));
    const calendar = store.create(body.summary, `${randomId('c')}@group.calendar.google.com`, {
      ...(body.description === undefined ? {} : { description: body.description }),
    });
    return { kind: 'calendar#calendar', id: calendar.id, summary: calendar.name, description: calendar.description };
  });

  app.delete('/calendar/v3/calendars/:calendarId', (request, reply) => {
    if (!guard(request, reply)) return reply;
    const { calendarId } = request.params as { calendarId: string };
    if (!store.deleteCalendar(calendarId)) return reply.status(404).send(error(404, 'Not Found', 'notFound'));
    return reply.status(204).send();
  });

  app.post('/calendar/v3/calendars/:calendarId/events', (request, reply) => {
    if (!guard(request, reply)) return reply;
    const calendar = calendarOf(request, reply);
    if (!calendar) return reply;
    const body = (request.body ?? {}) as Record<string, unknown>;
    const id = typeof body.id === 'string' ? body.id : randomId('e');
    if (!CLIENT_ID.test(id)) return reply.status(400).send(error(400, 'Invalid resource id value.', 'invalid'));
    if (calendar.events.has(id)) {
      return reply.status(409).send(error(409, 'The requested identifier already exists.', 'duplicate'));
    }
    const event = store.insert(calendar, id, { ...body, id });
    return { kind: 'calendar#event', status: 'confirmed', ...event.body };
  });

  app.patch('/calendar/v3/calendars/:calendarId/events/:eventId', (request, reply) => {
    if (!guard(request, reply)) return reply;
    const calendar = calendarOf(request, reply);
    if (!calendar) return reply;
    const event = calendar.events.get((request.params as { eventId: string }).eventId);
    if (!event) return reply.status(404).send(error(404, 'Not Found', 'notFound'));
    if (event.deleted) return reply.status(410).send(error(410, 'Resource has been deleted', 'deleted'));
    const { id: _id, ...patch } = (request.body ?? {}) as Record<string, unknown>;
    return { kind: 'calendar#event', ...store.patch(event, patch).body };
  });

  app.delete('/calendar/v3/calendars/:calendarId/events/:eventId', (request, reply) => {
    if (!guard(request, reply)) return reply;
    const calendar = calendarOf(request, reply);
    if (!calendar) return reply;
    const event = calendar.events.get((request.params as { eventId: string }).eventId);
    if (!event) return reply.status(404).send(error(404, 'Not Found', 'notFound'));
    if (event.deleted) return reply.status(410).send(error(410, 'Resource has been deleted', 'deleted'));
    store.remove(event);
    return reply.status(204).send();
  });
}
