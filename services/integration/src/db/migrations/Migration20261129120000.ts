import { Migration } from '@routinely/db';

export class Migration20261129120000 extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "integration"."integrations" add column "sync_lease_owner" uuid null');
  }
}
