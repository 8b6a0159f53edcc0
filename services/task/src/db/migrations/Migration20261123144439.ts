import { Migration } from '@routinely/db';

export class Migration20261123144439 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "task"."event_dead_letter" ("id" uuid not null, "consumer" varchar(100) not null, "event_id" uuid null, "subject" varchar(200) not null, "payload" jsonb not null, "error" text not null, "attempts" int not null, "created_at" timestamptz not null, constraint "event_dead_letter_pkey" primary key ("id"))',
    );
    this.addSql(
      'alter table "task"."event_dead_letter" add constraint "event_dead_letter_consumer_event_id_unique" unique ("consumer", "event_id")',
    );
    this.addSql('alter table "task"."outbox" add column "claimed_until" timestamptz null');
  }
}
