import { Migration } from '@routinely/db';

export class Migration20261123144232 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "auth"."sso_identities" ("id" uuid not null, "tenant_id" uuid not null, "user_id" uuid not null, "issuer" varchar(512) not null, "subject" varchar(255) not null, "created_at" timestamptz not null, constraint "sso_identities_pkey" primary key ("id"))',
    );
    this.addSql(
      'alter table "auth"."sso_identities" add constraint "sso_identities_issuer_subject_key" unique ("issuer", "subject")',
    );
    this.addSql(
      'alter table "auth"."sso_identities" add constraint "sso_identities_user_issuer_key" unique ("user_id", "issuer")',
    );
    this.addSql(
      'create table "auth"."sso_login_states" ("state_hash" varchar(64) not null, "browser_hash" varchar(64) not null, "nonce" varchar(128) not null, "code_verifier" text not null, "return_url" text not null, "tenant_id" uuid not null, "expires_at" timestamptz not null, "consumed_at" timestamptz null, constraint "sso_login_states_pkey" primary key ("state_hash"))',
    );
    this.addSql('create index "sso_login_states_expires_idx" on "auth"."sso_login_states" ("expires_at")');
    this.addSql(
      'create table "auth"."sso_seen_messages" ("key" varchar(64) not null, "kind" varchar(20) not null, "expires_at" timestamptz not null, constraint "sso_seen_messages_pkey" primary key ("key"))',
    );
    this.addSql('create index "sso_seen_messages_expires_idx" on "auth"."sso_seen_messages" ("expires_at")');
    this.addSql(
      'create table "auth"."sso_sessions" ("session_id" uuid not null, "tenant_id" uuid not null, "user_id" uuid not null, "issuer" varchar(512) not null, "subject" varchar(255) not null, "provider_sid" varchar(255) null, "id_token" text null, "created_at" timestamptz not null, constraint "sso_sessions_pkey" primary key ("session_id"))',
    );
    this.addSql('create index "sso_sessions_user_idx" on "auth"."sso_sessions" ("user_id")');
    this.addSql('create index "sso_sessions_provider_sid_idx" on "auth"."sso_sessions" ("issuer", "provider_sid")');
    this.addSql('create index "sso_sessions_subject_idx" on "auth"."sso_sessions" ("issuer", "subject")');
  }
}
