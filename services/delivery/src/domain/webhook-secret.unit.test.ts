import { describe, expect, it } from 'vitest';
import { newWebhookSecret, secretPreview } from './webhook-secret.js';

describe('webhook secrets', () => {
  it('shapes secrets and previews as the contract says', () => {
    const secret = newWebhookSecret();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(newWebhookSecret()).not.toBe(secret);
    expect(secretPreview(secret)).toBe(`${secret.slice(0, 10)}...${secret.slice(-4)}`);
  });
});
