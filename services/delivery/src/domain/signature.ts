import { createHmac, type KeyObject, timingSafeEqual } from 'node:crypto';

/** Max age (either direction) a receiver accepts for `t`, per the spec's fixed replay window. */
const REPLAY_WINDOW_SECONDS = 300;

/**
 * hex(HMAC-SHA256(key = secret's UTF-8 bytes, message = `${t}.${body}`)). A KeyObject of those bytes signs the
 * same, without importing the key again on every call.
 */
function signatureDigest(secret: string | KeyObject, timestamp: number, body: string | Buffer): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/** The X-Service-Signature value: `t=<unix>,v1=<hex>`. */
export function signatureHeader(secret: string | KeyObject, timestamp: number, body: string | Buffer): string {
  return `t=${timestamp},v1=${signatureDigest(secret, timestamp, body)}`;
}

function parseSignatureHeader(header: string): { t: number; v1: string[] } | null {
  let t: number | undefined;
  const v1: string[] = [];
  for (const part of header.split(',')) {
    const [key, value] = part.split('=', 2).map((s) => s.trim());
    if (key === 't' && value && /^\d+$/.test(value)) t = Number(value);
    else if (key === 'v1' && value) v1.push(value);
  }
  return t === undefined || v1.length === 0 ? null : { t, v1 };
}

/**
 * Receiver-side check, as the spec tells receivers to do it: timestamp within the window, then a
 * constant-time comparison against any of the accepted secrets (both during a rotation overlap).
 */
export function verifySignature(options: {
  header: string;
  body: string | Buffer;
  secrets: readonly string[];
  nowSeconds: number;
  toleranceSeconds?: number;
}): { ok: true } | { ok: false; reason: 'malformed' | 'stale' | 'mismatch' } {
  const parsed = parseSignatureHeader(options.header);
  if (!parsed) return { ok: false, reason: 'malformed' };
  if (Math.abs(options.nowSeconds - parsed.t) > (options.toleranceSeconds ?? REPLAY_WINDOW_SECONDS)) {
    return { ok: false, reason: 'stale' };
  }
  for (const secret of options.secrets) {
    const expected = Buffer.from(signatureDigest(secret, parsed.t, options.body), 'hex');
    for (const candidate of parsed.v1) {
      const given = Buffer.from(candidate, 'hex');
      if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true };
    }
  }
  return { ok: false, reason: 'mismatch' };
}
