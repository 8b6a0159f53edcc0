import { Migration } from '@routinely/db';

/**
 * The owners' tree versions (entity TaskTreeVersion) and, written by hand below the generated table, the trigger
 * that keeps them: every transaction that updates or deletes a task, or inserts a child task, adds 1 to its
 * owner's version when it commits, whichever code wrote the row (ADR 080, "Stored tree answers").
 */
export class Migration20261125170241 extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      'create table "task"."task_tree_versions" ("tenant_id" uuid not null, "user_id" uuid not null, "version" bigint not null, constraint "task_tree_versions_pkey" primary key ("tenant_id", "user_id"))',
    );
    // Once per transaction and owner: the first row of a transaction bumps and leaves a transaction-local mark
    // (set_config(..., true) ends with the transaction, and with a savepoint rolled back), later rows of the
    // same owner find it and stop. Rows of several owners in one transaction bump more than once: harmless.
    this.addSql(`create function "task"."bump_task_tree_version"() returns trigger language plpgsql as $$
declare
  changed "task"."tasks"%rowtype := case when tg_op = 'DELETE' then old else new end;
  owner_key text := changed.tenant_id::text || ':' || changed.user_id::text;
begin
  if current_setting('routinely.task_tree_version_bumped', true) is not distinct from owner_key then
    return null;
  end if;
  insert into "task"."task_tree_versions" as v (tenant_id, user_id, version)
  values (changed.tenant_id, changed.user_id, 1)
  on conflict (tenant_id, user_id) do update set version = v.version + 1;
  perform set_config('routinely.task_tree_version_bumped', owner_key, true);
  return null;
end $$`);
    // Deferred to the commit: the version row is locked only from then to the end of the commit, after every
    // task row lock the transaction takes, so it cannot close a cycle with them (no deadlock), and concurrent
    // writers of one owner wait for each other only for the commit itself. A root task's insert changes no
    // existing tree (its own answer was a 404): the WHEN clause keeps creates of roots off the version row.
    this.addSql(`create constraint trigger "tasks_bump_tree_version" after update or delete on "task"."tasks"
  deferrable initially deferred for each row execute function "task"."bump_task_tree_version"()`);
    this.addSql(`create constraint trigger "tasks_bump_tree_version_on_child_insert" after insert on "task"."tasks"
  deferrable initially deferred for each row when (new.parent_task_id is not null)
  execute function "task"."bump_task_tree_version"()`);
    this.addSql(`create function "task"."bump_all_task_tree_versions"() returns trigger language plpgsql as $$
begin
  update "task"."task_tree_versions" set version = version + 1;
  return null;
end $$`);
    this.addSql(`create trigger "tasks_bump_tree_versions_on_truncate" after truncate on "task"."tasks"
  for each statement execute function "task"."bump_all_task_tree_versions"()`);
  }
}
