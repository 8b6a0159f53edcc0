import { Migration } from '@routinely/db';

/** Calendar write-back (ADR 063): the switch and its state on the integration, the per-task mirror. */
export class Migration20261129200000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'alter table "integration"."integrations" add column "granted_scopes" text null, add column "write_back_user" varchar(64) null, add column "write_back_calendar_name" varchar(100) null, add column "write_back_show_as" varchar(16) null, add column "write_back_calendar_id" text null, add column "write_back_last_written_at" timestamptz null, add column "write_back_last_error" text null, add column "write_back_retry_at" timestamptz null, add column "write_back_throttles" int not null default 0',
    );
    this.addSql(
      'alter table "integration"."integrations" add constraint "integrations_one_write_back_unique" unique ("tenant_id", "write_back_user")',
    );
    this.addSql(
      'create table "integration"."write_back_tasks" ("task_id" uuid not null, "tenant_id" varchar(64) not null, "user_id" varchar(64) not null, "version" int not null, "slot_start" timestamptz null, "slot_end" timestamptz null, "title" text not null, "description" text null, "deleted" boolean not null, "pending" boolean not null, "changed_at" timestamptz not null, "claimed_until" timestamptz null, "integration_id" uuid null, "calendar_id" text null, "external_id" text null, "generation" int not null default 0, "upstream_deleted" boolean not null default false, constraint "write_back_tasks_pkey" primary key ("task_id"))',
    );
    this.addSql(
      'create index "write_back_tasks_owner_idx" on "integration"."write_back_tasks" ("tenant_id", "user_id")',
    );
    this.addSql(
      'create index "write_back_tasks_pending_idx" on "integration"."write_back_tasks" ("pending", "changed_at")',
    );
  }
}
