import { Migration } from '@routinely/db';

export class Migration20261121085939 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "calendar"."calendars" ("id" uuid not null, "tenant_id" uuid not null, "owner_id" uuid not null, "name" varchar(200) not null, "description" text null, "color" varchar(7) null, "timezone" varchar(64) not null, "visibility" varchar(16) not null, "is_active" boolean not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "deleted_at" timestamptz null, constraint "calendars_pkey" primary key ("id"))',
    );
    this.addSql('create index "calendars_tenant_owner_idx" on "calendar"."calendars" ("tenant_id", "owner_id")');
    this.addSql('create index "calendars_tenant_visibility_idx" on "calendar"."calendars" ("tenant_id", "visibility")');
    this.addSql(
      'create table "calendar"."calendar_items" ("id" uuid not null, "tenant_id" uuid not null, "calendar_id" uuid not null, "type" varchar(16) not null, "title" varchar(500) not null, "description" text null, "location" varchar(500) null, "start_at" timestamptz not null, "end_at" timestamptz not null, "all_day" boolean not null, "status" varchar(16) not null, "created_by" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, "deleted_at" timestamptz null, constraint "calendar_items_pkey" primary key ("id"))',
    );
    this.addSql(
      'create index "calendar_items_window_idx" on "calendar"."calendar_items" ("calendar_id", "start_at", "end_at")',
    );
    this.addSql(
      'create table "calendar"."calendar_shares" ("id" uuid not null, "tenant_id" uuid not null, "calendar_id" uuid not null, "user_id" uuid not null, "email" varchar(320) null, "permission" varchar(16) not null, "granted_by" uuid not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "calendar_shares_pkey" primary key ("id"))',
    );
    this.addSql('create index "calendar_shares_user_idx" on "calendar"."calendar_shares" ("tenant_id", "user_id")');
    this.addSql(
      'alter table "calendar"."calendar_shares" add constraint "calendar_shares_calendar_user_uniq" unique ("calendar_id", "user_id")',
    );
    this.addSql(
      'create table "calendar"."inbox" ("consumer" varchar(100) not null, "event_id" uuid not null, "processed_at" timestamptz not null, constraint "inbox_pkey" primary key ("consumer", "event_id"))',
    );
    this.addSql(
      'create table "calendar"."outbox" ("id" uuid not null, "subject" varchar(200) not null, "payload" jsonb not null, "created_at" timestamptz not null, "published_at" timestamptz null, constraint "outbox_pkey" primary key ("id"))',
    );
    this.addSql('create index "outbox_published_at_idx" on "calendar"."outbox" ("published_at")');
  }
}
