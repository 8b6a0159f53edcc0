import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = new URL('../../../', import.meta.url).pathname;

/** Every workspace package that compiles its sources (it has a tsconfig.build.json). */
function buildConfigs(): string[] {
  return ['packages', 'services', 'apps']
    .flatMap((group) => readdirSync(join(ROOT, group)).map((name) => `./${group}/${name}/tsconfig.build.json`))
    .filter((path) => existsSync(join(ROOT, path)))
    .sort();
}

describe('the tests typecheck (tsconfig.tests.json)', () => {
  it("references every package's build, so tests read its declarations instead of compiling its sources again", () => {
    const config = JSON.parse(readFileSync(join(ROOT, 'tsconfig.tests.json'), 'utf8')) as {
      references: { path: string }[];
    };
    expect(config.references.map((ref) => ref.path).sort()).toEqual(buildConfigs());
  });
});
