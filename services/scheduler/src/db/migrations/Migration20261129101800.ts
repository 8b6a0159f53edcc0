import { Migration } from '@routinely/db';

export class Migration20261129101800 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "scheduler"."settings_acknowledgements" ("event_id" uuid not null, "at" timestamptz not null, constraint "settings_acknowledgements_pkey" primary key ("event_id"))',
    );
  }
}
