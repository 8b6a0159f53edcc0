import { Migration } from '@routinely/db';

export class Migration20261123153341 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "task"."external_events" ("id" uuid not null, "tenant_id" uuid not null, "user_id" uuid not null, "integration_id" uuid not null, "provider" varchar(16) not null, "external_id" text not null, "title" text not null, "start_at" timestamptz not null, "end_at" timestamptz not null, "all_day" boolean not null, "status" varchar(16) not null, "busy" boolean not null, "version" bigint not null, "updated_at" timestamptz not null, "deleted_at" timestamptz null, constraint "external_events_pkey" primary key ("id"))',
    );
    this.addSql(
      'create index "external_events_owner_start_idx" on "task"."external_events" ("tenant_id", "user_id", "start_at")',
    );
    this.addSql('create index "external_events_integration_idx" on "task"."external_events" ("integration_id")');
    this.addSql(
      'create table "task"."revoked_integrations" ("integration_id" uuid not null, "tenant_id" uuid not null, "user_id" uuid not null, "revoked_at" timestamptz not null, constraint "revoked_integrations_pkey" primary key ("integration_id"))',
    );
    this.addSql(
      'create table "task"."user_timezones" ("tenant_id" uuid not null, "user_id" uuid not null, "timezone" varchar(64) not null, "updated_at" timestamptz not null, constraint "user_timezones_pkey" primary key ("tenant_id", "user_id"))',
    );
    this.addSql('create index "tasks_owner_slot_idx" on "task"."tasks" ("tenant_id", "user_id", "chosen_slot_start")');
  }
}
