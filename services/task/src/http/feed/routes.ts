import { notFound, ownerOf, problemAnswers } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { CalendarFeeds } from '../../domain/feed/calendar-feeds.js';
import { feedCreated, feedRevoked } from './schemas.js';

const tags = ['calendar'];
const FEED_FILE = /^(.+)\.ics$/;

/**
 * The calendar feed: the owner creates (or rotates) and revokes its secret URL; calendar apps poll the URL
 * itself, which is public (the token is the credential) and left out of the API document.
 */
export function feedRoutes(feeds: CalendarFeeds): FastifyPluginAsync {
  return async (app) => {
    const r = app.withTypeProvider<ZodTypeProvider>();

    r.post(
      '/service/calendar/feed',
      {
        config: { permission: 'SERVICE_TASK_READ' },
        schema: {
          operationId: 'createCalendarFeed',
          description:
            'A new secret `.ics` URL of your scheduled tasks (30 days back to 90 ahead) for Google, Apple or Outlook calendars; an earlier URL stops working. The URL is shown only here: keep it secret.',
          tags,
          summary: 'Create or rotate the calendar feed URL',
          response: {
            201: feedCreated,
          },
        },
      },
      async (request, reply) => reply.status(201).send(await feeds.create(ownerOf(request))),
    );

    r.delete(
      '/service/calendar/feed',
      {
        config: { permission: 'SERVICE_TASK_READ' },
        schema: {
          operationId: 'revokeCalendarFeed',
          tags,
          summary: 'Revoke the calendar feed URL (it answers 404 from now on)',
          response: { ...problemAnswers({}), 204: feedRevoked },
        },
      },
      async (request, reply) => {
        await feeds.revoke(ownerOf(request));
        return reply.status(204).send(null);
      },
    );

    app.get(
      '/service/calendar/feed/:file',
      { config: { auth: 'none' }, schema: { operationId: 'readCalendarFeed', hide: true } },
      async (request, reply) => {
        const file = (request.params as { file: string }).file;
        const feed = await feeds.read(FEED_FILE.exec(file)?.[1] ?? '');
        if (!feed) throw notFound('Feed');
        reply.header('cache-control', 'private, max-age=300');
        reply.header('etag', feed.etag);
        if (request.headers['if-none-match'] === feed.etag) return reply.status(304).send();
        return reply.type('text/calendar; charset=utf-8').send(feed.body);
      },
    );
  };
}
