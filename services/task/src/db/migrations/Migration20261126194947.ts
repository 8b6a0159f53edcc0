import { Migration } from '@routinely/db';

/**
 * Routines, the calendar feed and the settings timezone: a series' rule on its root task, each occurrence's series and local date (one
 * per series and date, by a unique key), when each series is next filled, and each user's feed token hash.
 */
export class Migration20261126194947 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "task"."calendar_feeds" ("tenant_id" uuid not null, "user_id" uuid not null, "token_hash" varchar(64) not null, "created_at" timestamptz not null, constraint "calendar_feeds_pkey" primary key ("tenant_id", "user_id"))',
    );
    this.addSql(
      'alter table "task"."calendar_feeds" add constraint "calendar_feeds_token_hash_unique" unique ("token_hash")',
    );
    this.addSql(
      'create table "task"."task_series_fills" ("series_id" uuid not null, "tenant_id" uuid not null, "user_id" uuid not null, "due_at" timestamptz not null, "filled_through" date not null, constraint "task_series_fills_pkey" primary key ("series_id"))',
    );
    this.addSql('create index "task_series_fills_due_idx" on "task"."task_series_fills" ("due_at")');
    this.addSql(
      'alter table "task"."task_series_fills" add constraint "task_series_fills_series_id_foreign" foreign key ("series_id") references "task"."tasks" ("id") on update cascade on delete cascade',
    );
    this.addSql(
      'alter table "task"."user_timezones" add column "settings_timezone" varchar(64) null, add column "settings_updated_at" timestamptz null',
    );
    this.addSql(
      'alter table "task"."tasks" add column "recurrence" jsonb null, add column "series_id" uuid null, add column "occurrence_date" date null',
    );
    this.addSql(
      'alter table "task"."tasks" add constraint "tasks_series_occurrence_unique" unique ("series_id", "occurrence_date")',
    );
  }
}
