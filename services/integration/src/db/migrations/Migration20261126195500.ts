import { Migration } from '@routinely/db';

export class Migration20261126195500 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "integration"."calendar_acknowledgements" ("source_event_id" uuid not null, "acknowledged_at" timestamptz not null, constraint "calendar_acknowledgements_pkey" primary key ("source_event_id"))',
    );
    this.addSql(
      'create index "calendar_acknowledgements_at_idx" on "integration"."calendar_acknowledgements" ("acknowledged_at")',
    );
  }
}
