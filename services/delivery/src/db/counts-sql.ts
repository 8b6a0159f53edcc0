import { column, row } from '@routinely/db';

/** The row of a `select count(*)::int as n ...`: the counts of src/db read through it. */
export const countRow = row({ n: column.integer });
