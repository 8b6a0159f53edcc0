import { Migration } from '@routinely/db';

export class Migration20261123153503 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "scheduler"."event_dead_letter" ("id" uuid not null, "consumer" varchar(100) not null, "event_id" uuid null, "subject" varchar(200) not null, "payload" jsonb not null, "error" text not null, "attempts" int not null, "created_at" timestamptz not null, constraint "event_dead_letter_pkey" primary key ("id"))',
    );
    this.addSql(
      'alter table "scheduler"."event_dead_letter" add constraint "event_dead_letter_consumer_event_id_unique" unique ("consumer", "event_id")',
    );
    this.addSql(
      'create table "scheduler"."import_uses" ("id" uuid not null, "tenant_id" varchar(64) not null, "user_id" uuid not null, "kind" varchar(8) not null, "at" timestamptz not null, constraint "import_uses_pkey" primary key ("id"))',
    );
    this.addSql('create index "import_uses_owner_at_idx" on "scheduler"."import_uses" ("user_id", "at")');
    this.addSql(
      'create table "scheduler"."inbox" ("consumer" varchar(100) not null, "event_id" uuid not null, "processed_at" timestamptz not null, constraint "inbox_pkey" primary key ("consumer", "event_id"))',
    );
    this.addSql(
      'create table "scheduler"."known_users" ("user_id" uuid not null, "tenant_id" varchar(64) not null, "email" varchar(320) not null, "timezone" varchar(64) null, "is_active" boolean not null, "updated_at" timestamptz not null, constraint "known_users_pkey" primary key ("user_id"))',
    );
    this.addSql('create index "known_users_tenant_email_idx" on "scheduler"."known_users" ("tenant_id", "email")');
    this.addSql(
      'create table "scheduler"."no_go_windows" ("id" uuid not null, "tenant_id" varchar(64) not null, "user_id" uuid not null, "body" jsonb not null, "created_at" timestamptz not null, constraint "no_go_windows_pkey" primary key ("id"))',
    );
    this.addSql(
      'create index "no_go_windows_owner_idx" on "scheduler"."no_go_windows" ("tenant_id", "user_id", "created_at")',
    );
    this.addSql(
      'create table "scheduler"."outbox" ("id" uuid not null, "subject" varchar(200) not null, "payload" jsonb not null, "created_at" timestamptz not null, "published_at" timestamptz null, "claimed_until" timestamptz null, constraint "outbox_pkey" primary key ("id"))',
    );
    this.addSql('create index "outbox_published_at_idx" on "scheduler"."outbox" ("published_at")');
    this.addSql(
      'create table "scheduler"."quota_reservations" ("id" uuid not null, "tenant_id" varchar(64) not null, "user_id" uuid not null, "amount_usd" numeric(14,6) not null, "expires_at" timestamptz not null, constraint "quota_reservations_pkey" primary key ("id"))',
    );
    this.addSql(
      'create index "quota_reservations_owner_idx" on "scheduler"."quota_reservations" ("user_id", "expires_at")',
    );
    this.addSql(
      'create table "scheduler"."tenant_settings" ("tenant_id" varchar(64) not null, "llm_provider_tenant_default" varchar(32) not null, "llm_provider_locked" boolean not null, "updated_at" timestamptz not null, "updated_by" uuid null, constraint "tenant_settings_pkey" primary key ("tenant_id"))',
    );
    this.addSql(
      'create table "scheduler"."usage_daily" ("user_id" uuid not null, "local_date" date not null, "tenant_id" varchar(64) not null, "calls" int not null, "input_tokens" bigint not null, "output_tokens" bigint not null, "cost_usd" numeric(14,6) not null, "soft_notified_at" timestamptz null, constraint "usage_daily_pkey" primary key ("user_id", "local_date"))',
    );
    this.addSql(
      'create table "scheduler"."usage_ledger" ("id" uuid not null, "tenant_id" varchar(64) not null, "user_id" uuid not null, "run_id" uuid null, "provider" varchar(32) not null, "model" varchar(128) not null, "input_tokens" bigint not null, "output_tokens" bigint not null, "cost_usd" numeric(14,6) not null, "local_date" date not null, "at" timestamptz not null, constraint "usage_ledger_pkey" primary key ("id"))',
    );
    this.addSql('create index "usage_ledger_owner_day_idx" on "scheduler"."usage_ledger" ("user_id", "local_date")');
    this.addSql(
      'create table "scheduler"."user_quotas" ("user_id" uuid not null, "tenant_id" varchar(64) not null, "soft_cap_usd" numeric(14,6) not null, "hard_cap_usd" numeric(14,6) not null, "bulk_import_per_hour" int not null, "bulk_import_per_day" int not null, "updated_at" timestamptz not null, constraint "user_quotas_pkey" primary key ("user_id"))',
    );
    this.addSql(
      'create table "scheduler"."user_settings" ("user_id" uuid not null, "tenant_id" varchar(64) not null, "timezone" varchar(64) not null, "llm_provider_default" varchar(32) not null, "working_hours" jsonb not null, "reminder_offset_min" int not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "user_settings_pkey" primary key ("user_id"))',
    );
  }
}
