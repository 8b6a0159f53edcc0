import { randomBytes } from 'node:crypto';

/** `whsec_` + 32 random bytes base64url (contract). */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/** First 10 and last 4 characters joined by `...` (contract). */
export function secretPreview(secret: string): string {
  return `${secret.slice(0, 10)}...${secret.slice(-4)}`;
}
