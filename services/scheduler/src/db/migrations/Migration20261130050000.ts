import { Migration } from '@routinely/db';

/**
 * A run inserts its decisions and marks them applied moments later. Pages filled only half by inserts keep room
 * for that update on the same page, where PostgreSQL writes it without a new entry in each of the table's four
 * indexes (`applied` is in none of them): a heap-only update (ADR 055).
 */
export class Migration20261130050000 extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "scheduler"."schedule_decisions" set (fillfactor = 50)');
  }
}
