import { answerHeaders } from '@routinely/platform';
import { z } from 'zod';

/** A token as feed URLs carry it (32 random bytes, base64url), for examples. */
const EXAMPLE_TOKEN = 'q3Zk9pW2xLr7TfB0sVd4NmHc8YgJu1AeKo5iQzXn6Ew';

export const feedCreated = z.object({
  url: z.url().meta({ examples: [`https://routinely.example/api/v1/service/calendar/feed/${EXAMPLE_TOKEN}.ics`] }),
  created_at: z.string(),
});
export const feedRevoked = z.null().describe('Revoked (also when there was none)');

export const feedParams = z.object({
  token: z
    .string()
    .describe('the secret of the feed URL (`POST /calendar/feed` answers the whole URL)')
    .meta({ examples: [EXAMPLE_TOKEN] }),
});

const ETAG = {
  description: 'Strong validator of this body; send it back in `If-None-Match` to get a 304 while nothing changed',
  example: '"SOZxf5DleDurI2WkbGNLSrWFapr"',
};
const CACHE_CONTROL = { description: 'Calendar apps may keep the feed 5 minutes', example: 'private, max-age=300' };

export const feedCalendar = answerHeaders(
  z
    .string()
    .describe('RFC 5545 iCalendar: one VEVENT per scheduled, done or skipped task')
    .meta({
      examples: [
        'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Routinely//Routinely//EN\r\nNAME:Routinely\r\nX-WR-CALNAME:Routinely\r\nEND:VCALENDAR',
      ],
    }),
  { ETag: ETAG, 'Cache-Control': CACHE_CONTROL },
);
export const feedNotModified = answerHeaders(
  z.null().describe('Not modified: `If-None-Match` names the current ETag (or is `*`); no body'),
  { ETag: ETAG, 'Cache-Control': CACHE_CONTROL },
);
