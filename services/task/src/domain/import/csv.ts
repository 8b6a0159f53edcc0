import { fieldError } from '@routinely/platform';

/** RFC 4180 records: quoted fields may hold commas, quotes ("") and line breaks. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let i = 0;
  const input = text.replace(/^\uFEFF/, '');
  while (i < input.length) {
    const ch = input.charAt(i);
    if (quoted) {
      if (ch === '"' && input[i + 1] === '"') {
        field += '"';
        i += 2;
        continue;
      }
      if (ch === '"') quoted = false;
      else field += ch;
      i++;
      continue;
    }
    if (ch === '"' && field === '') quoted = true;
    else if (ch === ',') {
      record.push(field);
      field = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && input[i + 1] === '\n') i++;
      record.push(field);
      records.push(record);
      record = [];
      field = '';
    } else field += ch;
    i++;
  }
  if (quoted) throw fieldError(['body'], 'unterminated quoted field in CSV');
  if (field !== '' || record.length > 0) {
    record.push(field);
    records.push(record);
  }
  return records.filter((r) => r.some((cell) => cell.trim() !== ''));
}

const LIST_COLUMNS = new Set(['tags', 'reminder_channels', 'depends_on_refs']);
const NUMBER_COLUMNS = new Set(['priority', 'duration_min', 'reminder_offset_min']);

/**
 * CSV with a header row into import rows: empty cells are omitted, list columns split on `;`, whole
 * numbers in number columns become numbers (anything else is left for the row schema to reject).
 */
export function rowsFromCsv(text: string): Record<string, unknown>[] {
  const [header, ...records] = parseCsv(text);
  if (!header) throw fieldError(['body'], 'CSV needs a header row');
  const columns = header.map((name) => name.trim());
  return records.map((cells) => {
    const row: Record<string, unknown> = {};
    columns.forEach((column, index) => {
      const cell = (cells[index] ?? '').trim();
      if (cell === '' || column === '') return;
      if (LIST_COLUMNS.has(column)) {
        row[column] = cell
          .split(';')
          .map((part) => part.trim())
          .filter(Boolean);
      } else if (NUMBER_COLUMNS.has(column) && /^-?\d+$/.test(cell)) row[column] = Number(cell);
      else row[column] = cell;
    });
    return row;
  });
}
