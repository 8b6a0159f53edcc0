import { Migration } from '@routinely/db';

export class Migration20261124041427 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "scheduler"."schedule_decisions" ("id" uuid not null, "tenant_id" varchar(64) not null, "user_id" uuid not null, "run_id" uuid null, "task_id" uuid not null, "chosen_slot_start" timestamptz not null, "chosen_slot_end" timestamptz not null, "rationale" text not null, "provider" varchar(32) not null, "model" varchar(128) not null, "source" varchar(16) not null, "supersedes_id" uuid null, "dry_run" boolean not null, "applied" boolean not null, "warnings" jsonb not null, "created_by" uuid not null, "created_at" timestamptz not null, constraint "schedule_decisions_pkey" primary key ("id"))',
    );
    this.addSql(
      'create index "schedule_decisions_run_idx" on "scheduler"."schedule_decisions" ("run_id", "created_at")',
    );
    this.addSql(
      'create index "schedule_decisions_task_idx" on "scheduler"."schedule_decisions" ("tenant_id", "task_id", "created_at")',
    );
    this.addSql(
      'create table "scheduler"."schedule_runs" ("id" uuid not null, "tenant_id" varchar(64) not null, "user_id" uuid not null, "status" varchar(16) not null, "kind" varchar(16) not null, "root_task_id" uuid null, "provider" varchar(32) not null, "model" varchar(128) not null, "task_ids" jsonb not null, "window_start" timestamptz not null, "window_end" timestamptz not null, "dry_run" boolean not null, "unscheduled" jsonb not null, "cost_usd" numeric(14,6) not null, "progress_total" int not null, "progress_done" int not null, "error" text null, "attempts" int not null, "lease_until" timestamptz null, "created_by" uuid not null, "created_at" timestamptz not null, "started_at" timestamptz null, "completed_at" timestamptz null, constraint "schedule_runs_pkey" primary key ("id"))',
    );
    this.addSql(
      'create index "schedule_runs_owner_created_idx" on "scheduler"."schedule_runs" ("tenant_id", "user_id", "created_at")',
    );
    this.addSql('create index "schedule_runs_due_idx" on "scheduler"."schedule_runs" ("status", "lease_until")');
  }
}
