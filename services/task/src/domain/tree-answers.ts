import type { Sql } from '@routinely/db';
import { type Batcher, notFound, type Owner, oneCallAtATime } from '@routinely/platform';
import { subtreeWithVersion, treeVersions } from '../db/tree-sql.js';
import type { AnswerCache, StoredAnswer } from './answer-cache.js';
import { buildTree } from './tree.js';

/**
 * `GET /tasks/{id}/tree` as JSON bytes. Building the answer (rows decoded, nested, stringified) cost 1-7 ms of
 * CPU per read for 101-500 tasks; this keeps the last answer per owner and task with the owner's
 * tree version it was built from. A read with a stored answer first reads the owner's version (one
 * primary-key row, tree-sql.ts): unchanged, the stored bytes go out and no task row is read. Otherwise one
 * statement returns the rows with the version of the same snapshot, and the new answer is stored with it.
 *
 * Nothing has to be told about writes: a trigger bumps the version in the writing transaction itself (whatever
 * code wrote the row), so a write committed before a read started, on any instance, changes the version that
 * read sees.
 */
export class TaskTreeAnswers {
  /** Version checks arriving together share one statement (one at a time). */
  private readonly versions: Batcher<Owner, string>;

  constructor(
    private readonly db: Sql,
    private readonly cache: AnswerCache,
  ) {
    this.versions = oneCallAtATime((owners) => treeVersions(db, owners));
  }

  async read(owner: Owner, id: string): Promise<StoredAnswer> {
    const sql = this.db;
    const key = `${owner.tenantId}:${owner.userId}:${id}`;
    const stored = this.cache.get(key);
    // Versions only grow, and every change of the owner's trees moves it: equal means the same rows.
    if (stored && (await this.versions.submit(owner)) === stored.version) return stored;
    const { version, rows } = await subtreeWithVersion(sql, owner, id);
    const tree = buildTree(rows);
    if (!tree) {
      this.cache.delete(key);
      throw notFound('Task');
    }
    // Concurrent reads of one key may store in any order: each entry's body matches its own version.
    const answer = { version, body: Buffer.from(JSON.stringify(tree)) };
    this.cache.set(key, answer);
    return answer;
  }
}
