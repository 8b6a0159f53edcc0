import { Migration } from '@routinely/db';

export class Migration20261129100512 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "task"."scheduler_dead_letters" ("consumer" varchar(100) not null, "type" varchar(200) not null, "count" int not null, "last_at" timestamptz not null, constraint "scheduler_dead_letters_pkey" primary key ("consumer", "type"))',
    );
  }
}
