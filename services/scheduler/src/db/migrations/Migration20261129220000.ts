import { Migration } from '@routinely/db';

/**
 * A run's unapplied decisions leave out those a later decision supersedes: without an index on `supersedes_id`
 * that anti-join read every decision of every run, a cost that grew with the table (the apply of a routine fill's
 * runs went from 30 to 100 ms as 45,000 decisions piled up).
 */
export class Migration20261129220000 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create index "schedule_decisions_supersedes_idx" on "scheduler"."schedule_decisions" ("supersedes_id")',
    );
  }
}
