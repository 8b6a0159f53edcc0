import { fieldError } from '@routinely/platform';

/**
 * Where a login may send the browser back to: a same-site relative path, or an absolute URL of an allowed
 * origin (PUBLIC_BASE_URL's is always allowed). Everything else is 422, so the service is never an open
 * redirector: `//host` and `/\host` (protocol-relative to browsers), `javascript:`, credentials in the URL.
 */
export function checkReturnUrl(raw: string | undefined, publicBaseUrl: string, allowedOrigins: readonly string[]) {
  const value = raw === undefined || raw === '' ? '/' : raw;
  const refuse = () => fieldError(['query', 'return_url'], 'must be a relative path or a URL of an allowed origin');
  // Control characters and backslashes are normalised unpredictably by browsers; none belongs in a return URL.
  if ([...value].some((c) => c.charCodeAt(0) < 0x20 || c === '\u007f' || c === '\\') || value.length > 2048) {
    throw refuse();
  }
  const base = new URL(publicBaseUrl);
  if (value.startsWith('/')) {
    if (value.startsWith('//')) throw refuse();
    const resolved = new URL(value, base);
    if (resolved.origin !== base.origin) throw refuse();
    return value;
  }
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw refuse();
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw refuse();
  if (url.username || url.password) throw refuse();
  if (url.origin !== base.origin && !allowedOrigins.includes(url.origin)) throw refuse();
  return url.toString();
}

/** The return URL with `error=<code>` added, for a failed browser login. */
export function withError(returnUrl: string, code: string): string {
  const absolute = !returnUrl.startsWith('/');
  const url = new URL(returnUrl, 'http://relative.invalid');
  url.searchParams.set('error', code);
  return absolute ? url.toString() : `${url.pathname}${url.search}${url.hash}`;
}
