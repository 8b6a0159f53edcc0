import { describe, expect, it } from 'vitest';
import { ifNoneMatchHits } from './conditional.js';

const ETAG = '"SOZxf5DleDurI2WkbGNLSrWFapr"';

describe('If-None-Match (RFC 9110 §13.1.2)', () => {
  it('matches the current tag, weakly, in a list, as several lines, and *', () => {
    for (const field of [ETAG, `W/${ETAG}`, `"a", ${ETAG}`, `"a",W/${ETAG} , "b"`, '*', ' * ', ['"a"', `W/${ETAG}`]]) {
      expect(ifNoneMatchHits(field, ETAG), JSON.stringify(field)).toBe(true);
    }
    expect(ifNoneMatchHits(ETAG, `W/${ETAG}`)).toBe(true);
  });

  it('does not match another tag, an unquoted one, a prefix or no field', () => {
    for (const field of [
      undefined,
      '',
      '"a"',
      ETAG.slice(1, -1),
      `"${ETAG.slice(1, 10)}"`,
      `x${ETAG.slice(0, -1)}`,
      '*, "a"',
    ]) {
      expect(ifNoneMatchHits(field, ETAG), JSON.stringify(field)).toBe(false);
    }
  });
});
