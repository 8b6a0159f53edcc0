import { Migration } from '@routinely/db';

export class Migration20261123153158 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "integration"."event_dead_letter" ("id" uuid not null, "consumer" varchar(100) not null, "event_id" uuid null, "subject" varchar(200) not null, "payload" jsonb not null, "error" text not null, "attempts" int not null, "created_at" timestamptz not null, constraint "event_dead_letter_pkey" primary key ("id"))',
    );
    this.addSql(
      'alter table "integration"."event_dead_letter" add constraint "event_dead_letter_consumer_event_id_unique" unique ("consumer", "event_id")',
    );
    this.addSql(
      'create table "integration"."external_events" ("id" uuid not null, "integration_id" uuid not null, "tenant_id" varchar(64) not null, "user_id" varchar(64) not null, "external_id" text not null, "title" text not null, "start_at" timestamptz not null, "end_at" timestamptz not null, "all_day" boolean not null, "status" varchar(16) not null, "busy" boolean not null, "version" int not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "external_events_pkey" primary key ("id"))',
    );
    this.addSql(
      'alter table "integration"."external_events" add constraint "external_events_integration_external_unique" unique ("integration_id", "external_id")',
    );
    this.addSql(
      'create table "integration"."inbox" ("consumer" varchar(100) not null, "event_id" uuid not null, "processed_at" timestamptz not null, constraint "inbox_pkey" primary key ("consumer", "event_id"))',
    );
    this.addSql(
      'create table "integration"."integrations" ("id" uuid not null, "tenant_id" varchar(64) not null, "user_id" varchar(64) not null, "provider" varchar(16) not null, "status" varchar(16) not null, "account_email" text null, "last_error" text null, "last_synced_at" timestamptz null, "access_token_sealed" text null, "refresh_token_sealed" text null, "access_expires_at" timestamptz null, "sync_cursor" text null, "oauth_state_hash" varchar(64) null, "oauth_state_expires_at" timestamptz null, "oauth_verifier_sealed" text null, "oauth_return_url" text null, "channel_id" varchar(200) null, "channel_resource_id" text null, "channel_secret_sealed" text null, "push_expires_at" timestamptz null, "next_sync_at" timestamptz null, "sync_lease_until" timestamptz null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "integrations_pkey" primary key ("id"))',
    );
    this.addSql(
      'alter table "integration"."integrations" add constraint "integrations_state_unique" unique ("oauth_state_hash")',
    );
    this.addSql(
      'alter table "integration"."integrations" add constraint "integrations_channel_unique" unique ("channel_id")',
    );
    this.addSql('create index "integrations_owner_idx" on "integration"."integrations" ("tenant_id", "user_id")');
    this.addSql('create index "integrations_due_idx" on "integration"."integrations" ("status", "next_sync_at")');
    this.addSql(
      'create table "integration"."outbox" ("id" uuid not null, "subject" varchar(200) not null, "payload" jsonb not null, "created_at" timestamptz not null, "published_at" timestamptz null, "claimed_until" timestamptz null, constraint "outbox_pkey" primary key ("id"))',
    );
    this.addSql('create index "outbox_published_at_idx" on "integration"."outbox" ("published_at")');
  }
}
