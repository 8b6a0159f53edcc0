import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from './canonical-json.js';

describe('canonicalJson', () => {
  it('sorts keys at every depth, drops whitespace and writes dates as UTC with Z', () => {
    const body = { b: 1, a: { z: [3, { y: 'ü', x: null }], c: new Date('2026-11-21T09:00:00+02:00') } };
    expect(canonicalJson(body)).toBe('{"a":{"c":"2026-11-21T07:00:00.000Z","z":[3,{"x":null,"y":"ü"}]},"b":1}');
  });

  it('is independent of key insertion order and round-trips through JSON.parse', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        const once = canonicalJson(value);
        const shuffled = JSON.parse(JSON.stringify(value), function (this: unknown, _k, v) {
          if (v && typeof v === 'object' && !Array.isArray(v)) {
            return Object.fromEntries(Object.entries(v).reverse());
          }
          return v;
        });
        expect(canonicalJson(shuffled)).toBe(once);
        expect(canonicalJson(JSON.parse(once))).toBe(once);
        expect(once).not.toMatch(/\n/);
      }),
    );
  });
});
