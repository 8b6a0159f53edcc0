import { Migration } from '@routinely/db';

export class Migration20261121090008 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "task"."import_jobs" ("id" uuid not null, "tenant_id" uuid not null, "user_id" uuid not null, "status" varchar(16) not null, "rows" jsonb not null, "total" int not null, "valid" int not null, "invalid" int not null, "errors" jsonb not null, "created_ids" jsonb not null, "auto_schedule" boolean not null, "schedule_run_id" uuid null, "attempts" int not null, "lease_until" timestamptz null, "last_error" text null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "import_jobs_pkey" primary key ("id"))',
    );
    this.addSql('create index "import_jobs_status_idx" on "task"."import_jobs" ("status", "lease_until")');
    this.addSql(
      'create table "task"."import_usage" ("id" uuid not null, "tenant_id" uuid not null, "user_id" uuid not null, "kind" varchar(8) not null, "at" timestamptz not null, constraint "import_usage_pkey" primary key ("id"))',
    );
    this.addSql('create index "import_usage_owner_at_idx" on "task"."import_usage" ("tenant_id", "user_id", "at")');
    this.addSql(
      'create table "task"."inbox" ("consumer" varchar(100) not null, "event_id" uuid not null, "processed_at" timestamptz not null, constraint "inbox_pkey" primary key ("consumer", "event_id"))',
    );
    this.addSql(
      'create table "task"."outbox" ("id" uuid not null, "subject" varchar(200) not null, "payload" jsonb not null, "created_at" timestamptz not null, "published_at" timestamptz null, constraint "outbox_pkey" primary key ("id"))',
    );
    this.addSql('create index "outbox_published_at_idx" on "task"."outbox" ("published_at")');
    this.addSql(
      'create table "task"."tasks" ("id" uuid not null, "tenant_id" uuid not null, "user_id" uuid not null, "parent_task_id" uuid null, "depth" smallint not null, "sort_order" int not null, "title" varchar(500) not null, "description" text null, "raw_input" text null, "status" varchar(16) not null, "priority" smallint not null, "duration_min" int not null, "deadline_at" timestamptz null, "earliest_start_at" timestamptz null, "reminder_channels" text[] not null, "reminder_offset_min" int not null, "tags" text[] not null, "chosen_slot_start" timestamptz null, "chosen_slot_end" timestamptz null, "completed_at" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "tasks_pkey" primary key ("id"))',
    );
    this.addSql(
      'create index "tasks_owner_parent_idx" on "task"."tasks" ("tenant_id", "user_id", "parent_task_id", "sort_order")',
    );
    this.addSql('create index "tasks_owner_status_idx" on "task"."tasks" ("tenant_id", "user_id", "status")');
    this.addSql(
      'create table "task"."task_dependencies" ("id" uuid not null, "tenant_id" uuid not null, "user_id" uuid not null, "task_id" uuid not null, "depends_on_id" uuid not null, "dep_type" varchar(24) not null, "lag_min" int not null, "created_at" timestamptz not null, constraint "task_dependencies_pkey" primary key ("id"))',
    );
    this.addSql('create index "task_dependencies_depends_on_id_index" on "task"."task_dependencies" ("depends_on_id")');
    this.addSql(
      'alter table "task"."task_dependencies" add constraint "task_dependencies_edge_unique" unique ("task_id", "depends_on_id")',
    );
    this.addSql(
      'alter table "task"."tasks" add constraint "tasks_parent_task_id_foreign" foreign key ("parent_task_id") references "task"."tasks" ("id") on update cascade on delete cascade',
    );
    this.addSql(
      'alter table "task"."task_dependencies" add constraint "task_dependencies_task_id_foreign" foreign key ("task_id") references "task"."tasks" ("id") on update cascade on delete cascade',
    );
    this.addSql(
      'alter table "task"."task_dependencies" add constraint "task_dependencies_depends_on_id_foreign" foreign key ("depends_on_id") references "task"."tasks" ("id") on update cascade on delete cascade',
    );
  }
}
