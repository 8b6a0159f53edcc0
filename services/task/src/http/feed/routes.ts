import { ifNoneMatchHits, notFound, ownerOf, problemAnswers } from '@routinely/platform';
import type { FastifyPluginAsync } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { CalendarFeeds } from '../../domain/feed/calendar-feeds.js';
import { FEED_DAYS_AHEAD, FEED_DAYS_BACK, FEED_MAX_EVENTS } from '../../domain/feed/feed-ics.js';
import { feedCalendar, feedCreated, feedNotModified, feedParams, feedRevoked } from './schemas.js';

const tags = ['calendar'];
const REACH = `${FEED_DAYS_BACK} days back to ${FEED_DAYS_AHEAD} ahead, at most ${FEED_MAX_EVENTS.toLocaleString('en')} events: every upcoming one first (soonest first), then the most recent past ones`;

/**
 * The calendar feed: the owner creates (or rotates) and revokes its secret URL; calendar apps poll the URL
 * itself, which is public (the token is the credential).
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
          description: `A new secret \`.ics\` URL of your scheduled tasks (${REACH}) for Google, Apple or Outlook calendars; an earlier URL stops working. The URL is shown only here: keep it secret.`,
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

    r.get(
      '/service/calendar/feed/:token.ics',
      {
        config: { auth: 'none' },
        schema: {
          operationId: 'readCalendarFeed',
          tags,
          summary: 'The calendar feed itself, as calendar apps poll it (public: the token is the credential)',
          description: `Your scheduled tasks (${REACH}) as RFC 5545 \`text/calendar\`: one VEVENT each with \`UID\` \`{task_id}@routinely\`, \`DTSTART\`/\`DTEND\` in UTC, \`SUMMARY\`, \`STATUS\` (\`CONFIRMED\`, or \`CANCELLED\` for skipped), \`TRANSP\` (\`TRANSPARENT\` once done or skipped), \`SEQUENCE\` (the task's revision) and \`LAST-MODIFIED\`. The \`ETag\` changes whenever the body does; \`If-None-Match\` (weak comparison, lists and \`*\`) answers 304. An unknown or revoked token, or any other spelling of the URL (a trailing slash, percent-encoding), is 404.`,
          params: feedParams,
          produces: ['text/calendar'],
          response: { 200: feedCalendar, 304: feedNotModified },
        },
      },
      async (request, reply) => {
        const { token } = request.params;
        // The URL as it was handed out, byte for byte: the router would also take `.../x.ics/` or `%41`.
        const path = request.url.split('?')[0] ?? '';
        const feed = path.endsWith(`/${token}.ics`) ? await feeds.read(token) : undefined;
        if (!feed) throw notFound('Feed');
        reply.header('cache-control', 'private, max-age=300');
        reply.header('etag', feed.etag);
        if (ifNoneMatchHits(request.headers['if-none-match'], feed.etag)) return reply.status(304).send(null);
        return reply.type('text/calendar; charset=utf-8').send(feed.body);
      },
    );
  };
}
