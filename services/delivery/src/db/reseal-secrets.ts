import type { Orm } from '@routinely/db';
import { SecretBox } from '@routinely/platform';

/**
 * Re-seals webhook secrets still in the unbound `v0` form (see Migration20261123150000) with the endpoint id
 * as associated data. Idempotent; a no-op once no `v0` rows are left.
 */
export async function resealUnboundSecrets(orm: Orm, box: SecretBox): Promise<number> {
  const knex = orm.em.getKnex();
  let resealed = 0;
  for (const table of ['webhook_endpoints', 'deliveries'] as const) {
    const ownerColumn = table === 'webhook_endpoints' ? 'id' : 'endpoint_id';
    const { rows } = await knex.raw<{ rows: { id: string; owner: string; secret_sealed: string }[] }>(
      `select id, ${ownerColumn} as owner, secret_sealed from ${table} where secret_sealed like 'v0.%'`,
    );
    for (const row of rows) {
      if (!SecretBox.isUnbound(row.secret_sealed)) continue;
      const sealed = box.seal(box.openUnbound(row.secret_sealed), row.owner);
      await knex.raw(`update ${table} set secret_sealed = ? where id = ? and secret_sealed = ?`, [
        sealed,
        row.id,
        row.secret_sealed,
      ]);
      resealed++;
    }
  }
  return resealed;
}
