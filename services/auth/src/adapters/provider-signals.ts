import { createHmac, timingSafeEqual } from 'node:crypto';
import type { JWTPayload } from 'jose';
import { z } from 'zod';

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

/**
 * Checks `X-IdP-Signature: t=<unix>,v1=<hex HMAC-SHA256(secret, t + "." + raw body)>`: the timestamp within
 * the window both ways, any one v1 value matching in constant time.
 */
export function verifyIdpSignature(header: string | undefined, rawBody: string, secret: string, nowMs: number) {
  if (!header) return false;
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const [key, value] = part.trim().split('=', 2);
    if (key === 't' && value) timestamp = value;
    if (key === 'v1' && value) signatures.push(value);
  }
  if (!timestamp || !/^\d{1,12}$/.test(timestamp) || signatures.length === 0) return false;
  if (Math.abs(nowMs / 1000 - Number(timestamp)) > SIGNAL_WINDOW_SECONDS) return false;
  const expected = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest();
  return signatures.some((candidate) => {
    if (!/^[0-9a-f]{64}$/i.test(candidate)) return false;
    return timingSafeEqual(expected, Buffer.from(candidate, 'hex'));
  });
}

/** Signs an IdP event the way the provider must (for tools and tests). */
export function signIdpEvent(rawBody: string, secret: string, unixSeconds: number): string {
  const v1 = createHmac('sha256', secret).update(`${unixSeconds}.${rawBody}`).digest('hex');
  return `t=${unixSeconds},v1=${v1}`;
}

export const idpEventSchema = z.object({
  id: z.string().min(1).max(200),
  type: z.string().min(1).max(100),
  occurred_at: z.string().max(64),
  data: z.looseObject({ sub: z.string().min(1).max(255) }),
});
export type IdpEvent = z.infer<typeof idpEventSchema>;
