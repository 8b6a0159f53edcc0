import { Temporal } from 'temporal-polyfill';

/**
 * The local dates an input may name: years 1970 through 9999. PostgreSQL has no year 0 and clients often no year
 * before the epoch or past four digits, so a date outside is refused where it comes in (naming its field), not
 * turned into a 500 where it is stored or into a rule that can never fire.
 */
export const EARLIEST_DATE = Temporal.PlainDate.from('1970-01-01');
export const LATEST_DATE = Temporal.PlainDate.from('9999-12-31');

/** True when `date` lies in EARLIEST_DATE..LATEST_DATE. */
export function isSupportedDate(date: Temporal.PlainDate | string): boolean {
  const value = Temporal.PlainDate.from(date);
  return Temporal.PlainDate.compare(value, EARLIEST_DATE) >= 0 && Temporal.PlainDate.compare(value, LATEST_DATE) <= 0;
}

export const SUPPORTED_DATES = `a date from ${EARLIEST_DATE} to ${LATEST_DATE}`;
