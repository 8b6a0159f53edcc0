import { Migration } from '@routinely/db';

export class Migration20261126172413 extends Migration {
  override async up(): Promise<void> {
    this.addSql('drop index "scheduler"."usage_ledger_provider_at_idx"');
    this.addSql(
      'create index "usage_ledger_tenant_provider_at_idx" on "scheduler"."usage_ledger" ("tenant_id", "provider", "at")',
    );
  }
}
