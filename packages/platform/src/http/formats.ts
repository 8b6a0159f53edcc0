import { z } from 'zod';

/*
 * Strings the API sends whose form the document states, so generators can map them and a response validator
 * checks them. Answers are built from typed rows (`toISOString()`, UUIDv7 ids), so these only document; they
 * never refuse an answer at serialization time.
 */

/** A timestamp out: ISO-8601 UTC with `Z` (`2026-11-21T08:00:00.000Z`). */
export const timestampOut = () => z.string().meta({ format: 'date-time' });

/** A calendar date out (`2026-11-21`). */
export const dateOut = () => z.string().meta({ format: 'date' });

/** An id out: a lowercase UUIDv7. */
export const uuidOut = () => z.string().meta({ format: 'uuid' });
