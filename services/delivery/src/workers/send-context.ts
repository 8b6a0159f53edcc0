import { createSecretKey, type KeyObject } from 'node:crypto';
import type { SecretBox } from '@routinely/platform';
import type { EndpointForSend } from '../db/send-context-sql.js';

/**
 * What the sends of one claim need besides their rows: the endpoints (URL, state, sealed secret) and the owners'
 * email addresses, read once per claim, and the endpoints' signing keys, opened once per claim instead of once
 * per send (an AES-GCM open per send was an eighth of the send path's CPU, ADR 081). The opened keys live only
 * as long as the claim's sends; nothing here is logged.
 */
export class SendContext {
  private readonly keys = new Map<string, KeyObject>();

  constructor(
    readonly endpoints: Map<string, EndpointForSend>,
    readonly emails: Map<string, string>,
    private readonly box: SecretBox,
  ) {}

  /** The HMAC key of a sealed webhook secret (sealed to its endpoint's id), opened at most once per claim. */
  signingKey(sealed: string, endpointId: string): KeyObject {
    const cacheKey = `${endpointId}.${sealed}`;
    let key = this.keys.get(cacheKey);
    if (!key) {
      key = createSecretKey(Buffer.from(this.box.open(sealed, endpointId), 'utf8'));
      this.keys.set(cacheKey, key);
    }
    return key;
  }

  /** A top-up re-read the endpoint: its next sends use the current URL, state and secret. */
  refresh(endpoint: EndpointForSend): void {
    this.endpoints.set(endpoint.id, endpoint);
  }
}
