import { Migration } from '@routinely/db';

export class Migration20261123153248 extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "task"."tasks" add column "version" int not null default 1');
  }
}
