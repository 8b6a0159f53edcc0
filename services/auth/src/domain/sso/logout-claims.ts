import type { JWTPayload } from 'jose';

export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
/** Logout tokens and IdP event signatures are accepted within this many seconds of their time, both ways. */
export const SIGNAL_WINDOW_SECONDS = 300;

export interface LogoutOrder {
  jti: string;
  sub: string | undefined;
  sid: string | undefined;
}

/**
 * The claim rules of OIDC Back-Channel Logout 1.0 §2.6 that come after the signature, iss, aud and exp
 * (checked by the verifier): `iat` within the window, the back-channel-logout member of `events` as a JSON
 * object, no `nonce` (so an ID token is never taken for a logout token), `sub` and/or `sid`, a `jti`.
 * Returns a reason on failure.
 */
export function checkLogoutClaims(payload: JWTPayload, nowMs: number): LogoutOrder | string {
  const iat = payload.iat;
  if (typeof iat !== 'number') return 'iat missing';
  if (Math.abs(nowMs / 1000 - iat) > SIGNAL_WINDOW_SECONDS) return 'iat outside the accepted window';
  const events = payload.events;
  if (typeof events !== 'object' || events === null || Array.isArray(events)) return 'events missing';
  const member = (events as Record<string, unknown>)[BACKCHANNEL_LOGOUT_EVENT];
  if (typeof member !== 'object' || member === null || Array.isArray(member)) return 'not a back-channel logout event';
  if ('nonce' in payload) return 'nonce is not allowed in a logout token';
  const sub = typeof payload.sub === 'string' && payload.sub ? payload.sub : undefined;
  const sid = typeof payload.sid === 'string' && payload.sid ? payload.sid : undefined;
  if (!sub && !sid) return 'neither sub nor sid';
  if (typeof payload.jti !== 'string' || !payload.jti) return 'jti missing';
  return { jti: payload.jti, sub, sid };
}
