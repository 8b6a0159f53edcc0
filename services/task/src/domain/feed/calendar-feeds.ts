import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Sql } from '@routinely/db';
import type { Clock, Owner } from '@routinely/platform';
import { deleteFeedToken, feedTasks, findFeedOwner, saveFeedToken } from '../../db/feed-sql.js';
import type { TaskRow } from '../task-model.js';
import { FEED_DAYS_AHEAD, FEED_DAYS_BACK, FEED_MAX_EVENTS, type FeedTask, renderFeed } from './feed-ics.js';

const DAY_MS = 24 * 60 * 60 * 1000;
/** 32 random bytes, base64url: what a feed URL carries. Anything else is not a token and reads nothing. */
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

const byStart = (a: TaskRow, b: TaskRow) =>
  (a.chosen_slot_start as Date).getTime() - (b.chosen_slot_start as Date).getTime() || a.id.localeCompare(b.id);

const hashOf = (token: string) => createHash('sha256').update(token).digest('hex');

/**
 * Each user's calendar feed: a secret URL whose token is stored only as its SHA-256 (shown once, on creation).
 * A new token replaces the old one; a revoked or unknown one opens nothing.
 */
export class CalendarFeeds {
  constructor(
    private readonly db: Sql,
    private readonly clock: Clock,
    private readonly publicBaseUrl: string,
  ) {}

  async create(owner: Owner): Promise<{ url: string; created_at: string }> {
    const token = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    await saveFeedToken(this.db, owner, hashOf(token), now);
    const base = this.publicBaseUrl.replace(/\/+$/, '');
    return { url: `${base}/api/v1/service/calendar/feed/${token}.ics`, created_at: now.toISOString() };
  }

  revoke(owner: Owner): Promise<void> {
    return deleteFeedToken(this.db, owner);
  }

  /**
   * The feed a token opens (30 days back to 90 ahead, at most FEED_MAX_EVENTS events, upcoming ones kept
   * first), or undefined for an unknown or revoked token.
   */
  async read(token: string): Promise<{ body: string; etag: string } | undefined> {
    if (!TOKEN.test(token)) return undefined;
    const sql = this.db;
    const hash = hashOf(token);
    const owner = await findFeedOwner(sql, hash);
    if (!owner || !timingSafeEqual(Buffer.from(owner.tokenHash), Buffer.from(hash))) return undefined;
    const now = this.clock.now();
    const window = {
      from: new Date(now.getTime() - FEED_DAYS_BACK * DAY_MS),
      to: new Date(now.getTime() + FEED_DAYS_AHEAD * DAY_MS),
      now,
    };
    const rows = await feedTasks(sql, owner, window, FEED_MAX_EVENTS);
    // Upcoming first: with more than the cap, the past gives way (a calendar app shows what is ahead).
    const upcoming = rows.filter((row) => (row.chosen_slot_end as Date) > now);
    const past = rows.filter((row) => (row.chosen_slot_end as Date) <= now);
    const kept = [...upcoming, ...past].slice(0, FEED_MAX_EVENTS).sort(byStart);
    return renderFeed(
      kept.map(
        (row): FeedTask => ({
          id: row.id,
          title: row.title,
          status: row.status as FeedTask['status'],
          start: row.chosen_slot_start as Date,
          end: row.chosen_slot_end as Date,
          updatedAt: row.updated_at,
          version: row.version,
        }),
      ),
    );
  }
}
