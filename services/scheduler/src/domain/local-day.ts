/** Calendar arithmetic in a user's timezone through Intl (never offset arithmetic by hand). */

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The calendar day (`YYYY-MM-DD`) of `at` in `timeZone`. */
export function localDate(at: Date, timeZone: string): string {
  return formatter(timeZone).format(at);
}

/** `YYYY-MM` of `at` in `timeZone`. */
export function localMonth(at: Date, timeZone: string): string {
  return localDate(at, timeZone).slice(0, 7);
}

/** Every day of a `YYYY-MM` month, in order. */
export function daysOfMonth(month: string): string[] {
  const [year, mon] = month.split('-').map(Number) as [number, number];
  // setUTCFullYear, not Date.UTC: Date.UTC reads years 0-99 as 1900-1999.
  const last = new Date(0);
  last.setUTCFullYear(year, mon, 0);
  const count = last.getUTCDate();
  return Array.from({ length: count }, (_, i) => `${month}-${String(i + 1).padStart(2, '0')}`);
}

/** USD amounts leave the service as numbers rounded to 6 decimals (contract, area C). */
export const usd = (value: number | string | null | undefined) => Math.round(Number(value ?? 0) * 1e6) / 1e6;

/** A timestamp column as the driver hands it over (a Date or a string), out as ISO-8601 UTC with `Z`. */
export const iso = (value: Date | string) => new Date(value).toISOString();
