import { Migration } from '@routinely/db';

export class Migration20261126230956 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "task"."import_limits" ("tenant_id" uuid not null, "user_id" uuid not null, "per_hour" int not null, "per_day" int not null, "updated_at" timestamptz not null, constraint "import_limits_pkey" primary key ("tenant_id", "user_id"))',
    );
    this.addSql(
      'create table "task"."model_provider_status" ("tenant_id" varchar(64) not null, "provider" varchar(32) not null, "model" varchar(128) null, "available" boolean null, "last_outcome" varchar(8) null, "last_error" varchar(32) null, "at" timestamptz not null, constraint "model_provider_status_pkey" primary key ("tenant_id", "provider"))',
    );
    this.addSql(
      'create table "task"."spend_days" ("tenant_id" uuid not null, "user_id" uuid not null, "local_date" date not null, "spend_usd" numeric(14,6) not null, constraint "spend_days_pkey" primary key ("tenant_id", "user_id", "local_date"))',
    );
  }
}
