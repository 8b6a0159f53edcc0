import { type FieldLoc, fieldError } from './errors.js';

export interface ReturnUrlPolicy {
  /** PUBLIC_BASE_URL: its origin is always allowed, and relative paths stay on it. */
  publicBaseUrl: string;
  /** Further origins an absolute return URL may name (`SSO_ALLOWED_RETURN_ORIGINS`, `OAUTH_ALLOWED_RETURN_ORIGINS`). */
  allowedOrigins: readonly string[];
  /** Where the value came from, for the 422 (`['query', 'return_url']`). */
  loc: FieldLoc;
}

export const RETURN_URL_MAX_LENGTH = 2048;
const REFUSED = 'must be a relative path or a URL of an allowed origin';
/** Printable ASCII without space: what a Location header can carry as it is. */
const PRINTABLE_ASCII = /^[\x21-\x7e]*$/;

/**
 * Where a browser may be sent back to after a login or a connection: a same-site path, or an absolute http(s)
 * URL of PUBLIC_BASE_URL's origin or of an allowed one. Answers the value to put in the Location header, or
 * throws a 422 naming `policy.loc`, so the service is never an open redirector:
 * - only printable ASCII: a Location header cannot carry other characters (Node refuses them, which was a 500
 *   at the callback), and characters such as U+FF0F (read as "/" after NFKC) or U+3002 (read as "." by IDNA)
 *   are how "/／evil.test" turns into "//evil.test" in a client that normalises; percent-encode them instead;
 * - no backslash, no "//" prefix: browsers read "/\host" and "//host" as another origin;
 * - a path whose percent-decoded (and NFKC-normalised) form starts like that, or holds control characters, is
 *   refused too: a client that decodes the return URL before navigating must not find another origin in it;
 * - no credentials and no scheme other than http(s) in absolute URLs.
 */
export function checkReturnUrl(raw: string, policy: ReturnUrlPolicy): string {
  const refuse = (why?: string) => fieldError(policy.loc, why ? `${REFUSED} (${why})` : REFUSED);
  if (raw.length > RETURN_URL_MAX_LENGTH) throw refuse(`at most ${RETURN_URL_MAX_LENGTH} characters`);
  if (!PRINTABLE_ASCII.test(raw)) {
    throw refuse('printable ASCII only, without spaces: percent-encode other characters');
  }
  if (raw.includes('\\')) throw refuse('no backslashes');
  const base = new URL(policy.publicBaseUrl);
  if (raw.startsWith('/')) {
    if (raw.startsWith('//') || decodedLeavesTheSite(raw)) throw refuse();
    if (new URL(raw, base).origin !== base.origin) throw refuse();
    return raw;
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw refuse();
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse();
  if (url.username || url.password) throw refuse();
  if (url.origin !== base.origin && !policy.allowedOrigins.includes(url.origin)) throw refuse();
  return url.toString();
}

/** The Location for a return URL stored earlier: checked again (the policy may have changed), else `/`. */
export function safeReturnLocation(stored: string, policy: Omit<ReturnUrlPolicy, 'loc'>): string {
  try {
    return checkReturnUrl(stored, { ...policy, loc: ['request', 'return_url'] });
  } catch {
    return '/';
  }
}

/**
 * Whether a path, percent-decoded (repeatedly, as a client decoding twice would) and NFKC-normalised, starts
 * with two slashes or backslashes, or holds a control character. Malformed percent-encoding counts as well.
 */
function decodedLeavesTheSite(path: string): boolean {
  let decoded = path;
  for (let round = 0; round < 4; round += 1) {
    let next: string;
    try {
      next = decodeURIComponent(decoded);
    } catch {
      return true;
    }
    if (next === decoded) break;
    decoded = next;
  }
  const normalised = decoded.normalize('NFKC');
  // Control characters (tabs and newlines included: the URL parser drops them, "/\t/host" is "//host").
  const control = [...normalised].some((c) => c.charCodeAt(0) < 0x20 || c === '\x7f');
  return control || /^[/\\]{2}/.test(normalised);
}
