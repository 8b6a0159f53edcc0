import { Migration } from '@routinely/db';

/** When each owner's run was last claimed: the run worker serves owners in turn (ADR 055). */
export class Migration20261129100000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "scheduler"."schedule_run_owners" ("tenant_id" varchar(64) not null, "user_id" uuid not null, "served_at" timestamptz not null, constraint "schedule_run_owners_pkey" primary key ("tenant_id", "user_id"))',
    );
  }
}
