import { Migration } from '@routinely/db';

export class Migration20261123154338 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "auth"."tenants" ("id" uuid not null, "registration" varchar(10) not null, "allowed_email_domains" jsonb not null, "created_at" timestamptz not null, "updated_at" timestamptz not null, constraint "tenants_pkey" primary key ("id"))',
    );
    this.addSql(
      'create table "auth"."tenant_invites" ("id" uuid not null, "tenant_id" uuid not null, "token_hash" varchar(64) not null, "email" varchar(320) null, "role" varchar(10) not null, "created_by" uuid not null, "created_at" timestamptz not null, "expires_at" timestamptz not null, "used_at" timestamptz null, "used_by" uuid null, "revoked_at" timestamptz null, constraint "tenant_invites_pkey" primary key ("id"))',
    );
    this.addSql('create index "tenant_invites_tenant_idx" on "auth"."tenant_invites" ("tenant_id")');
    this.addSql('alter table "auth"."tenant_invites" add constraint "tenant_invites_hash_key" unique ("token_hash")');
  }
}
