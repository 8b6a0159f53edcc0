import { Migration } from '@routinely/db';

/**
 * ADR 044, 045: the attempts log, an event id per delivery and event filters on endpoints.
 * Existing deliveries get an event id shared by every delivery of the same firing (reminder, occurred_at)
 * and target (channel, endpoint), which is what requeues of one dead delivery have in common: the id of the
 * group's first delivery (a UUIDv7 like every id). Their stored envelope gains it too, so their remaining
 * retries carry it. Existing endpoints keep receiving every event type (events null).
 */
export class Migration20261124041630 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "delivery"."delivery_attempts" ("id" uuid not null, "tenant_id" varchar(64) not null, "user_id" varchar(64) not null, "delivery_id" uuid null, "endpoint_id" uuid null, "event" varchar(64) not null, "event_id" uuid not null, "attempt" int not null, "at" timestamptz not null, "status_code" int null, "error" text null, "latency_ms" int not null, constraint "delivery_attempts_pkey" primary key ("id"))',
    );
    this.addSql(
      'create index "delivery_attempts_delivery_idx" on "delivery"."delivery_attempts" ("delivery_id", "at")',
    );
    this.addSql(
      'create index "delivery_attempts_endpoint_idx" on "delivery"."delivery_attempts" ("endpoint_id", "at")',
    );
    this.addSql('alter table "delivery"."deliveries" add column "event_id" uuid null');
    this.addSql(
      `update "delivery"."deliveries" d set "event_id" = g."first_id" from (
         select "id", (min("id"::text) over (
           partition by "reminder_id", "channel", "endpoint_id", "payload"->>'occurred_at'))::uuid as "first_id"
         from "delivery"."deliveries") g
       where g."id" = d."id"`,
    );
    this.addSql(
      `update "delivery"."deliveries" set "payload" = "payload" || jsonb_build_object('event_id', "event_id"::text)`,
    );
    this.addSql('alter table "delivery"."deliveries" alter column "event_id" set not null');
    this.addSql('create index "deliveries_event_idx" on "delivery"."deliveries" ("tenant_id", "user_id", "event_id")');
    this.addSql('alter table "delivery"."webhook_endpoints" add column "events" text[] null');
  }
}
