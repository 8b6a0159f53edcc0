import { Migration } from '@routinely/db';

export class Migration20261126231348 extends Migration {
  override async up(): Promise<void> {
    this.addSql('drop table if exists "scheduler"."import_uses" cascade');
    this.addSql('drop index "scheduler"."usage_ledger_tenant_provider_at_idx"');
    this.addSql(
      'alter table "scheduler"."user_quotas" drop column "bulk_import_per_hour", drop column "bulk_import_per_day"',
    );
  }
}
