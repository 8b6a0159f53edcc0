import { Migration } from '@routinely/db';

export class Migration20261123154712 extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "delivery"."webhook_endpoints" add column "circuit_open_until" timestamptz null');
  }
}
