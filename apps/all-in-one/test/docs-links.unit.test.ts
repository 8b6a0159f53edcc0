import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const docs = new URL('../../../docs/', import.meta.url);
const root = new URL('../../../', import.meta.url);

/** Relative markdown link targets of a file, without anchors. */
function links(file: URL): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
    .map((m) => m[1] ?? '')
    .filter((target) => !/^[a-z]+:/.test(target));
}

describe('the docs', () => {
  it('index every ADR once in docs/adr/README.md', () => {
    const adrs = readdirSync(new URL('adr/', docs)).filter((f) => /^\d{3}-.+\.md$/.test(f));
    const indexed = links(new URL('adr/README.md', docs));
    expect(adrs.filter((f) => !indexed.includes(f))).toEqual([]);
    expect(new Set(indexed).size).toBe(indexed.length);
  });

  it('link only to files that exist (README and every guide)', () => {
    const pages = [
      new URL('README.md', root),
      ...readdirSync(docs)
        .filter((f) => f.endsWith('.md'))
        .map((f) => new URL(f, docs)),
      new URL('adr/README.md', docs),
    ];
    const broken = pages.flatMap((page) =>
      links(page)
        .filter((target) => !existsSync(new URL(target, page)))
        .map((target) => `${page.pathname.split('/').slice(-2).join('/')} -> ${target}`),
    );
    expect(broken).toEqual([]);
  });
});
