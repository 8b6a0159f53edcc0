import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { configVariables, renderConfigReference } from '../src/config-reference.js';

describe('the configuration reference', () => {
  it('describes every variable of every schema', () => {
    const undescribed = configVariables()
      .filter((v) => v.descriptions.length === 0)
      .map((v) => v.name);
    expect(undescribed).toEqual([]);
  });

  it('is what docs/configuration.md holds (run `npm run generate` after changing a schema)', () => {
    const committed = readFileSync(new URL('../../../docs/configuration.md', import.meta.url), 'utf8');
    expect(committed).toBe(renderConfigReference());
  });

  it('lists the host variables once, read by every process, with their parsed defaults', () => {
    const port = configVariables().find((v) => v.name === 'PORT');
    expect(port).toMatchObject({ readers: ['every process'], fallback: 8080 });
    const sso = configVariables().find((v) => v.name === 'SSO_ISSUER_URL');
    expect(sso).toMatchObject({ readers: ['auth'], fallback: undefined });
  });
});
