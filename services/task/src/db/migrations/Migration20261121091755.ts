import { Migration } from '@routinely/db';

export class Migration20261121091755 extends Migration {
  override async up(): Promise<void> {
    this.addSql('drop index "task"."tasks_owner_status_idx"');
    this.addSql('create index "tasks_parent_idx" on "task"."tasks" ("parent_task_id", "sort_order")');
  }
}
