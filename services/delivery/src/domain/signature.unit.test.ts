import fc from 'fast-check';
import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { signatureHeader, verifySignature } from './signature.js';
import { newWebhookSecret } from './webhook-secret.js';

const stripe = new Stripe('sk_test_not_used');

describe('webhook signatures', () => {
  it('match the stripe package for any body, secret and timestamp (independent implementation)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1 }),
        fc.integer({ min: 1_600_000_000, max: 2_000_000_000 }),
        (payload, timestamp) => {
          const secret = newWebhookSecret();
          const ours = signatureHeader(secret, timestamp, payload);
          expect(ours).toBe(stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp }));
          expect(stripe.webhooks.signature?.verifyHeader(payload, ours, secret, 300, undefined, timestamp)).toBe(true);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('rejects stale, future, tampered and wrong-secret deliveries', () => {
    const secret = newWebhookSecret();
    const body = '{"a":1}';
    const header = signatureHeader(secret, 1_800_000_000, body);
    const check = (over: Partial<Parameters<typeof verifySignature>[0]>) =>
      verifySignature({ header, body, secrets: [secret], nowSeconds: 1_800_000_000, ...over });
    expect(check({})).toEqual({ ok: true });
    expect(check({ nowSeconds: 1_800_000_301 })).toEqual({ ok: false, reason: 'stale' });
    expect(check({ nowSeconds: 1_799_999_699 })).toEqual({ ok: false, reason: 'stale' });
    expect(check({ body: '{"a":2}' })).toEqual({ ok: false, reason: 'mismatch' });
    expect(check({ secrets: [newWebhookSecret()] })).toEqual({ ok: false, reason: 'mismatch' });
    expect(check({ secrets: [newWebhookSecret(), secret] })).toEqual({ ok: true });
    expect(check({ header: 'v1=abc' })).toEqual({ ok: false, reason: 'malformed' });
  });
});
