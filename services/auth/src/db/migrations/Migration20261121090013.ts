import { Migration } from '@routinely/db';

export class Migration20261121090013 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "auth"."mfa_backup_codes" ("id" uuid not null, "tenant_id" uuid not null, "user_id" uuid not null, "code_hash" varchar(64) not null, "created_at" timestamptz not null, "used_at" timestamptz null, constraint "mfa_backup_codes_pkey" primary key ("id"))',
    );
    this.addSql('create index "mfa_backup_codes_user_idx" on "auth"."mfa_backup_codes" ("user_id")');
    this.addSql(
      'create table "auth"."inbox" ("consumer" varchar(100) not null, "event_id" uuid not null, "processed_at" timestamptz not null, constraint "inbox_pkey" primary key ("consumer", "event_id"))',
    );
    this.addSql(
      'create table "auth"."mfa_challenges" ("id" uuid not null, "tenant_id" uuid not null, "user_id" uuid not null, "token_hash" varchar(64) not null, "attempts" int not null, "expires_at" timestamptz not null, "consumed_at" timestamptz null, constraint "mfa_challenges_pkey" primary key ("id"))',
    );
    this.addSql('alter table "auth"."mfa_challenges" add constraint "mfa_challenges_hash_key" unique ("token_hash")');
    this.addSql(
      'create table "auth"."outbox" ("id" uuid not null, "subject" varchar(200) not null, "payload" jsonb not null, "created_at" timestamptz not null, "published_at" timestamptz null, constraint "outbox_pkey" primary key ("id"))',
    );
    this.addSql('create index "outbox_published_at_idx" on "auth"."outbox" ("published_at")');
    this.addSql(
      'create table "auth"."refresh_tokens" ("id" uuid not null, "tenant_id" uuid not null, "session_id" uuid not null, "user_id" uuid not null, "token_hash" varchar(64) not null, "created_at" timestamptz not null, "used_at" timestamptz null, constraint "refresh_tokens_pkey" primary key ("id"))',
    );
    this.addSql('create index "refresh_tokens_session_idx" on "auth"."refresh_tokens" ("session_id")');
    this.addSql('alter table "auth"."refresh_tokens" add constraint "refresh_tokens_hash_key" unique ("token_hash")');
    this.addSql(
      'create table "auth"."sessions" ("id" uuid not null, "tenant_id" uuid not null, "user_id" uuid not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "revoked_at" timestamptz null, "revoked_reason" varchar(50) null, constraint "sessions_pkey" primary key ("id"))',
    );
    this.addSql('create index "sessions_user_idx" on "auth"."sessions" ("user_id")');
    this.addSql('create index "sessions_revoked_at_idx" on "auth"."sessions" ("revoked_at")');
    this.addSql(
      'create table "auth"."signing_keys" ("kid" varchar(64) not null, "public_jwk" jsonb not null, "private_key" text not null, "created_at" timestamptz not null, "retired_at" timestamptz null, constraint "signing_keys_pkey" primary key ("kid"))',
    );
    this.addSql(
      'create table "auth"."users" ("id" uuid not null, "tenant_id" uuid not null, "email" varchar(320) not null, "name" varchar(200) null, "display_name" varchar(200) null, "first_name" varchar(100) null, "last_name" varchar(100) null, "phone" varchar(50) null, "avatar_url" varchar(2048) null, "timezone" varchar(64) null, "locale" varchar(35) null, "auth_method" varchar(10) not null, "password_hash" varchar(255) null, "is_active" boolean not null, "is_verified" boolean not null, "roles" jsonb not null, "extra" jsonb not null, "mfa_enabled" boolean not null, "mfa_secret" text null, "mfa_pending_secret" text null, "mfa_last_step" bigint null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "users_pkey" primary key ("id"))',
    );
    this.addSql('create index "users_tenant_idx" on "auth"."users" ("tenant_id")');
    this.addSql('alter table "auth"."users" add constraint "users_email_key" unique ("email")');
  }
}
