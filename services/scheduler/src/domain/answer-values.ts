/** How the scheduler's answers write amounts and timestamps. */

/** USD amounts leave the service as numbers rounded to 6 decimals (contract, area C). */
export const usd = (value: number | null | undefined) => Math.round((value ?? 0) * 1e6) / 1e6;

/** A timestamp out as ISO-8601 UTC with `Z`. */
export const iso = (value: Date) => value.toISOString();
