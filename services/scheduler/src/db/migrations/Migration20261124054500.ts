import { Migration } from '@routinely/db';

/** Busy calendar events to check against scheduled tasks (ADR 058). */
export class Migration20261124054500 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "scheduler"."schedule_conflict_checks" ("id" uuid not null, "tenant_id" varchar(64) not null, "user_id" uuid not null, "event_id" uuid not null, "event_version" int not null, "title" text not null, "event_start" timestamptz not null, "event_end" timestamptz not null, "status" varchar(16) not null, "outcome" jsonb null, "attempts" int not null, "lease_until" timestamptz null, "error" text null, "created_at" timestamptz not null, "completed_at" timestamptz null, constraint "schedule_conflict_checks_pkey" primary key ("id"))',
    );
    this.addSql(
      'create index "schedule_conflict_checks_due_idx" on "scheduler"."schedule_conflict_checks" ("status", "lease_until")',
    );
    this.addSql(
      'alter table "scheduler"."schedule_conflict_checks" add constraint "schedule_conflict_checks_event_version_key" unique ("event_id", "event_version")',
    );
  }
}
