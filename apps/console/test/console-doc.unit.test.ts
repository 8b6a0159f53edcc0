import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { consoleDocShots, docTarget, renderConsoleDoc } from '../scripts/console-doc.mjs';

describe('docs/console.md', () => {
  it('is what `npm run generate` writes from browser/console-doc.json', () => {
    expect(readFileSync(docTarget, 'utf8')).toBe(renderConsoleDoc());
  });

  it('names pictures the browser tier has written', () => {
    for (const shot of consoleDocShots() as string[]) {
      expect(existsSync(new URL(`images/${shot}.png`, docTarget)), shot).toBe(true);
    }
  });
});
