import { Migration } from '@routinely/db';

/** Minutes the solver keeps free around what it places (settings `buffer_min`, 0..120). */
export class Migration20261126180000 extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "scheduler"."user_settings" add column "buffer_min" int not null default 0');
  }
}
