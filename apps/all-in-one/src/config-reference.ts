import { configSchema as auth } from '@routinely/auth';
import { configSchema as calendar } from '@routinely/calendar';
import { configSchema as delivery } from '@routinely/delivery';
import { configSchema as integration } from '@routinely/integration';
import { consoleConfigSchema, hostConfigSchema } from '@routinely/runtime';
import { configSchema as scheduler } from '@routinely/scheduler';
import { configSchema as task } from '@routinely/task';
import type { z } from 'zod';

/** Every environment schema, the host's first: its variables are read by every process. */
const SOURCES: [reader: string, schema: z.ZodObject][] = [
  ['every process', hostConfigSchema],
  ['all-in-one, console', consoleConfigSchema],
  ['auth', auth],
  ['calendar', calendar],
  ['task', task],
  ['scheduler', scheduler],
  ['integration', integration],
  ['delivery', delivery],
];

export interface ConfigVariable {
  name: string;
  readers: string[];
  /** The default as a reader sees it after parsing; undefined when the variable has none. */
  fallback: unknown;
  /** The first schema's description, then each other reader's own note. */
  descriptions: { reader: string; text: string }[];
}

/** Every variable of every schema, in schema order, merged by name. */
export function configVariables(): ConfigVariable[] {
  const byName = new Map<string, ConfigVariable>();
  for (const [reader, schema] of SOURCES) {
    for (const [name, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
      const parsed = field.safeParse(undefined);
      const entry = byName.get(name) ?? { name, readers: [], fallback: parsed.data, descriptions: [] };
      byName.set(name, entry);
      if (!entry.readers.includes('every process')) entry.readers.push(reader);
      const text = field.description;
      if (text && !entry.descriptions.some((d) => d.text === text)) entry.descriptions.push({ reader, text });
    }
  }
  return [...byName.values()];
}

function showDefault(value: unknown): string {
  if (value === undefined) return 'unset';
  if (value === '' || (Array.isArray(value) && value.length === 0)) return 'empty';
  if (typeof value === 'object' && value !== null && Object.keys(value).length === 0) return 'empty';
  // A list is written as the variable takes it: comma-separated.
  const shown = typeof value === 'string' ? value : Array.isArray(value) ? value.join(',') : JSON.stringify(value);
  return `\`${shown}\``;
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

/** docs/configuration.md, written by `npm run generate` and compared by a drift test. */
export function renderConfigReference(): string {
  const rows = configVariables().map((v) => {
    const [first, ...notes] = v.descriptions;
    const meaning = [first?.text ?? '', ...notes.map((n) => `${n.reader}: ${n.text}`)].join('; ');
    return `| \`${v.name}\` | ${cell(v.readers.join(', '))} | ${cell(showDefault(v.fallback))} | ${cell(meaning)} |`;
  });
  return [
    '<!-- Generated from the zod configuration schemas by `npm run generate`; do not edit by hand. -->',
    '# Configuration reference',
    '',
    'Every process reads its environment through one zod schema and refuses to start on a bad value, naming it.',
    'The all-in-one (`npm start`) reads every variable below; a service started alone reads those of "every',
    'process" and its own. With `DATABASE_URL` set, `ENCRYPTION_KEY` and `INTERNAL_AUTH_SECRET` must be set too.',
    '',
    '| variable | read by | default | meaning |',
    '|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
