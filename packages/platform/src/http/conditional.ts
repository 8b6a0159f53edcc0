/** One entity tag of a field value: optional `W/`, then a quoted opaque tag (RFC 9110 §8.8.3). */
const ENTITY_TAG = /(?:W\/)?"[\x21\x23-\x7E\x80-\xFF]*"/g;

/** The opaque part of an entity tag (`W/"x"` and `"x"` both give `"x"`): what weak comparison compares. */
const opaque = (tag: string) => (tag.startsWith('W/') ? tag.slice(2) : tag);

/**
 * Whether an `If-None-Match` field value matches the current representation's `etag` (RFC 9110 §13.1.2): `*`
 * matches any current representation; otherwise a comma-separated list of entity tags, compared weakly (a weak
 * and a strong tag with the same opaque part match). A GET or HEAD that matches answers 304. The field may be
 * sent as several header lines (Node joins them with commas, or hands an array).
 */
export function ifNoneMatchHits(field: string | string[] | undefined, etag: string): boolean {
  if (field === undefined) return false;
  const value = [field].flat().join(',');
  if (value.trim() === '*') return true;
  const wanted = opaque(etag);
  return (value.match(ENTITY_TAG) ?? []).some((tag) => opaque(tag) === wanted);
}
