import { checkReturnUrl as checkAgainst } from '@routinely/platform';

/** Where a browser login lands without a `return_url`: the console's home page, which shows the outcome. */
const DEFAULT_SSO_RETURN_URL = '/home';

/**
 * Where a login may send the browser back to: a same-site relative path, or an absolute URL of an allowed
 * origin (PUBLIC_BASE_URL's is always allowed); no value means the console's `/home`. The rule is the
 * platform's (ADR 014): printable ASCII only, no `//host` or `/\host`, not even once percent-decoded; anything
 * else is 422.
 */
export function checkReturnUrl(raw: string | undefined, publicBaseUrl: string, allowedOrigins: readonly string[]) {
  const value = raw === undefined || raw === '' ? DEFAULT_SSO_RETURN_URL : raw;
  return checkAgainst(value, { publicBaseUrl, allowedOrigins, loc: ['query', 'return_url'] });
}

/** The return URL with `error=<code>` added, for a failed browser login. */
export function withError(returnUrl: string, code: string): string {
  const absolute = !returnUrl.startsWith('/');
  const url = new URL(returnUrl, 'http://relative.invalid');
  url.searchParams.set('error', code);
  return absolute ? url.toString() : `${url.pathname}${url.search}${url.hash}`;
}
