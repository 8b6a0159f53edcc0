import { Migration } from '@routinely/db';

export class Migration20261123153511 extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "delivery"."reminders" add column "task_version" int not null default 0');
  }
}
