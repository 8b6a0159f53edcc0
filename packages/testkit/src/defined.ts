/** The value, or a failed test naming what was missing: tests read `defined(rows[0], 'the row')`, never `rows[0]!`. */
export function defined<T>(value: T | null | undefined, what = 'value'): T {
  if (value === null || value === undefined) throw new Error(`expected ${what} to be present`);
  return value;
}
