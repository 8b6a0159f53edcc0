import { Migration } from '@routinely/db';

export class Migration20261124042044 extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index "usage_ledger_provider_at_idx" on "scheduler"."usage_ledger" ("provider", "at")');
  }
}
