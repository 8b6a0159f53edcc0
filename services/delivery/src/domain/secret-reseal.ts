import type { Sql } from '@routinely/db';
import { SecretBox } from '@routinely/platform';
import { resealDeliverySecret, unboundDeliverySecrets } from '../db/deliveries-sql.js';
import { resealEndpointSecret, type UnboundSecret, unboundEndpointSecrets } from '../db/endpoints-sql.js';

/** Where unbound secrets live: how to find them and how to write one back. */
const TABLES: {
  unbound: (sql: Sql) => Promise<UnboundSecret[]>;
  reseal: (sql: Sql, id: string, sealed: string, was: string) => Promise<void>;
}[] = [
  { unbound: unboundEndpointSecrets, reseal: resealEndpointSecret },
  { unbound: unboundDeliverySecrets, reseal: resealDeliverySecret },
];

/**
 * Re-seals webhook secrets still in the unbound `v0` form (see Migration20261123150000) with the endpoint id
 * as associated data. Idempotent; a no-op once no `v0` rows are left.
 */
export async function resealUnboundSecrets(db: Sql, box: SecretBox): Promise<number> {
  let resealed = 0;
  for (const table of TABLES) {
    for (const row of await table.unbound(db)) {
      if (!SecretBox.isUnbound(row.secret_sealed)) continue;
      const sealed = box.seal(box.openUnbound(row.secret_sealed), row.owner);
      await table.reseal(db, row.id, sealed, row.secret_sealed);
      resealed++;
    }
  }
  return resealed;
}
