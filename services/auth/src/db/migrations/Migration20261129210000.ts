import { Migration } from '@routinely/db';

/** The relay claims unpublished events in id order from one index walk (packages/events/src/db/outbox-sql.ts). */
export class Migration20261129210000 extends Migration {
  override async up(): Promise<void> {
    this.addSql('drop index "auth"."outbox_published_at_idx"');
    this.addSql('create index "outbox_published_at_id_idx" on "auth"."outbox" ("published_at", "id")');
  }
}
