import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { SIGNAL_WINDOW_SECONDS } from '../domain/sso/logout-claims.js';

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
