import { Migration } from '@routinely/db';

export class Migration20261121090412 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "delivery"."dead_letters" ("id" uuid not null, "tenant_id" varchar(64) not null, "user_id" varchar(64) not null, "delivery_id" uuid not null, "reminder_id" uuid not null, "endpoint_id" uuid null, "channel" varchar(16) not null, "reason" text not null, "last_status_code" int null, "attempts" int not null, "created_at" timestamptz not null, constraint "dead_letters_pkey" primary key ("id"))',
    );
    this.addSql('create index "dead_letters_delivery_idx" on "delivery"."dead_letters" ("delivery_id")');
    this.addSql(
      'create index "dead_letters_owner_idx" on "delivery"."dead_letters" ("tenant_id", "user_id", "created_at")',
    );
    this.addSql(
      'create table "delivery"."deliveries" ("id" uuid not null, "tenant_id" varchar(64) not null, "user_id" varchar(64) not null, "reminder_id" uuid not null, "endpoint_id" uuid null, "channel" varchar(16) not null, "event" varchar(64) not null, "payload" jsonb not null, "secret_sealed" text null, "status" varchar(16) not null, "attempts" int not null, "max_attempts" int not null, "next_attempt_at" timestamptz null, "lease_until" timestamptz null, "lease_token" uuid null, "last_status_code" int null, "last_error" text null, "last_attempt_at" timestamptz null, "delivered_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "deliveries_pkey" primary key ("id"))',
    );
    this.addSql('create index "deliveries_due_idx" on "delivery"."deliveries" ("status", "next_attempt_at")');
    this.addSql(
      'create index "deliveries_owner_idx" on "delivery"."deliveries" ("tenant_id", "user_id", "created_at")',
    );
    this.addSql(
      'create table "delivery"."email_outbox" ("id" uuid not null, "to_address" text not null, "from_address" text not null, "subject" text not null, "text" text not null, "created_at" timestamptz not null, constraint "email_outbox_pkey" primary key ("id"))',
    );
    this.addSql(
      'create table "delivery"."inbox" ("consumer" varchar(100) not null, "event_id" uuid not null, "processed_at" timestamptz not null, constraint "inbox_pkey" primary key ("consumer", "event_id"))',
    );
    this.addSql(
      'create table "delivery"."notifications" ("id" uuid not null, "tenant_id" varchar(64) not null, "user_id" varchar(64) not null, "kind" varchar(64) not null, "title" text not null, "body" text not null, "data" jsonb not null, "delivery_id" uuid null, "read_at" timestamptz null, "created_at" timestamptz not null, constraint "notifications_pkey" primary key ("id"))',
    );
    this.addSql(
      'alter table "delivery"."notifications" add constraint "notifications_delivery_unique" unique ("delivery_id")',
    );
    this.addSql(
      'create index "notifications_owner_idx" on "delivery"."notifications" ("tenant_id", "user_id", "created_at")',
    );
    this.addSql(
      'create table "delivery"."outbox" ("id" uuid not null, "subject" varchar(200) not null, "payload" jsonb not null, "created_at" timestamptz not null, "published_at" timestamptz null, constraint "outbox_pkey" primary key ("id"))',
    );
    this.addSql('create index "outbox_published_at_idx" on "delivery"."outbox" ("published_at")');
    this.addSql(
      'create table "delivery"."reminders" ("id" uuid not null, "tenant_id" varchar(64) not null, "user_id" varchar(64) not null, "task_id" uuid not null, "task" jsonb not null, "task_updated_at" timestamptz not null, "channels" jsonb not null, "remind_at" timestamptz not null, "status" varchar(16) not null, "reminder_set_at" timestamptz not null, "fired_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "reminders_pkey" primary key ("id"))',
    );
    this.addSql('alter table "delivery"."reminders" add constraint "reminders_task_id_unique" unique ("task_id")');
    this.addSql('create index "reminders_due_idx" on "delivery"."reminders" ("status", "remind_at")');
    this.addSql('create index "reminders_owner_idx" on "delivery"."reminders" ("tenant_id", "user_id", "remind_at")');
    this.addSql(
      'create table "delivery"."user_contacts" ("tenant_id" varchar(64) not null, "user_id" varchar(64) not null, "email" text not null, "updated_at" timestamptz not null, constraint "user_contacts_pkey" primary key ("tenant_id", "user_id"))',
    );
    this.addSql(
      'create table "delivery"."webhook_endpoints" ("id" uuid not null, "tenant_id" varchar(64) not null, "user_id" varchar(64) not null, "name" varchar(200) not null, "url" text not null, "description" text null, "enabled" boolean not null, "max_attempts" int not null, "fallback_to_email" boolean not null, "secret_sealed" text not null, "secret_preview" varchar(32) not null, "consecutive_failures" int not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "webhook_endpoints_pkey" primary key ("id"))',
    );
    this.addSql(
      'create index "webhook_endpoints_owner_idx" on "delivery"."webhook_endpoints" ("tenant_id", "user_id")',
    );
  }
}
