import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { FakeOAuthCore } from './fake-calendar-oauth.js';
import { randomId, type WrittenCalendars, type WrittenEvent } from './fake-written-calendars.js';

export const MICROSOFT_WRITE_SCOPE = 'Calendars.ReadWrite';

const graphError = (code: string, message: string) => ({ error: { code, message } });
const unauthorized = () => graphError('InvalidAuthenticationToken', 'Access token has expired or is not yet valid.');
const needsWrite = {
  scope: MICROSOFT_WRITE_SCOPE,
  forbidden: () => graphError('ErrorAccessDenied', 'Access is denied. Check credentials and try again.'),
};
const notFound = () => graphError('ErrorItemNotFound', 'The specified object was not found in the store.');

type Property = { id: string; value: string };

/**
 * Graph calendar writes: /me/calendars (list with `singleValueExtendedProperties` expanded, create, delete) and
 * events (create in a calendar, where a repeated `transactionId` answers the event it made before; update and
 * delete by id, 404 ErrorItemNotFound once deleted). What is written is kept in `store`.
 */
export function registerMicrosoftWrites(fake: FakeOAuthCore, store: WrittenCalendars): void {
  const app: FastifyInstance = fake.app;
  const guard = (request: FastifyRequest, reply: FastifyReply) => fake.guard(request, reply, unauthorized, needsWrite);
  const view = (event: WrittenEvent) => ({ ...event.body, id: event.id });

  // For people trying write-back by hand: the calendars written so far and their live events.
  app.get('/_fake/written', () =>
    [...store.calendars.values()].map((c) => ({ id: c.id, name: c.name, events: store.live(c.id).map((e) => e.body) })),
  );

  app.get('/v1.0/me/calendars', (request, reply) => {
    if (!guard(request, reply)) return reply;
    const expand = String((request.query as Record<string, string>).$expand ?? '');
    const value = [...store.calendars.values()].map((c) => {
      const properties = Object.entries(c.properties)
        .filter(([id]) => expand.includes(id))
        .map(([id, v]) => ({ id, value: v }));
      return {
        id: c.id,
        name: c.name,
        ...(properties.length > 0 ? { singleValueExtendedProperties: properties } : {}),
      };
    });
    return { value };
  });

  app.post('/v1.0/me/calendars', (request, reply) => {
    if (!guard(request, reply)) return reply;
    const body = (request.body ?? {}) as { name?: string; singleValueExtendedProperties?: Property[] };
    if (!body.name) return reply.status(400).send(graphError('ErrorInvalidRequest', 'name is required'));
    const properties = Object.fromEntries((body.singleValueExtendedProperties ?? []).map((p) => [p.id, p.value]));
    const calendar = store.create(body.name, randomId('AAMkCal'), { properties });
    return reply.status(201).send({ id: calendar.id, name: calendar.name });
  });

  app.delete('/v1.0/me/calendars/:id', (request, reply) => {
    if (!guard(request, reply)) return reply;
    if (!store.deleteCalendar((request.params as { id: string }).id)) return reply.status(404).send(notFound());
    return reply.status(204).send();
  });

  app.post('/v1.0/me/calendars/:id/events', (request, reply) => {
    if (!guard(request, reply)) return reply;
    const calendar = store.calendars.get((request.params as { id: string }).id);
    if (!calendar) return reply.status(404).send(notFound());
    const body = (request.body ?? {}) as Record<string, unknown>;
    if (typeof body.transactionId === 'string') {
      const before = [...calendar.events.values()].find(
        (e) => !e.deleted && e.body.transactionId === body.transactionId,
      );
      if (before) return reply.status(201).send(view(before));
    }
    return reply.status(201).send(view(store.insert(calendar, randomId('AAMkEv'), body)));
  });

  app.patch('/v1.0/me/events/:id', (request, reply) => {
    if (!guard(request, reply)) return reply;
    const event = store.findEvent((request.params as { id: string }).id);
    if (!event || event.deleted) return reply.status(404).send(notFound());
    return view(store.patch(event, (request.body ?? {}) as Record<string, unknown>));
  });

  app.delete('/v1.0/me/events/:id', (request, reply) => {
    if (!guard(request, reply)) return reply;
    const event = store.findEvent((request.params as { id: string }).id);
    if (!event || event.deleted) return reply.status(404).send(notFound());
    store.remove(event);
    return reply.status(204).send();
  });
}
