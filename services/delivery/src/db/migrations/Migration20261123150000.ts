import { Migration } from '@routinely/db';

/**
 * Webhook secrets were sealed without associated data; the platform SecretBox binds the endpoint id. Existing
 * ciphertexts are marked `v0` (unbound) here, and the service re-seals them at start (reseal-secrets.ts), which
 * needs the key a migration does not have. Finished deliveries never sign again, so their copies are dropped.
 */
export class Migration20261123150000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `update "delivery"."webhook_endpoints" set "secret_sealed" = 'v0' || substr("secret_sealed", 3) where "secret_sealed" like 'v1.%'`,
    );
    this.addSql(
      `update "delivery"."deliveries" set "secret_sealed" = null where "status" in ('sent', 'dead') and "secret_sealed" is not null`,
    );
    this.addSql(
      `update "delivery"."deliveries" set "secret_sealed" = 'v0' || substr("secret_sealed", 3) where "secret_sealed" like 'v1.%'`,
    );
  }
}
