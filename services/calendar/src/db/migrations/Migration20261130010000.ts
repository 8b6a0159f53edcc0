import { Migration } from '@routinely/db';

/** An outbox row carries a run of one transaction's events of one type: `events` counts them (ADR 004). */
export class Migration20261130010000 extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "calendar"."outbox" add column "events" int not null default 1');
  }
}
