import { type Orm, Sql } from '@routinely/db';
import { notFound, type Owner } from '@routinely/platform';
import { subtreeSince } from '../db/tree-sql.js';
import type { AnswerCache, StoredAnswer } from './answer-cache.js';
import { buildTree } from './tree.js';

/**
 * `GET /tasks/{id}/tree` as JSON bytes. Building the answer (rows decoded, nested, stringified) cost 1-7 ms of
 * CPU per read for 101-500 tasks (issue 15); this keeps the last answer per owner and task with the owner's
 * tree version it was built from, and asks PostgreSQL, in the one statement every read sends anyway, whether
 * that version is still current (tree-sql.ts). Unchanged: the stored bytes go out, no row is read. Changed or
 * unknown: the same statement returned the rows, from the same snapshot as the new version.
 *
 * Nothing has to be told about writes: a trigger bumps the version in the writing transaction itself (whatever
 * code wrote the row), so a write committed before a read started, on any instance, is in that read's
 * snapshot together with its version.
 */
export class TaskTreeAnswers {
  constructor(
    private readonly orm: Orm,
    private readonly cache: AnswerCache,
  ) {}

  async read(owner: Owner, id: string): Promise<StoredAnswer> {
    const key = `${owner.tenantId}:${owner.userId}:${id}`;
    const stored = this.cache.get(key);
    const result = await subtreeSince(Sql.pool(this.orm), owner, id, stored?.version ?? null);
    if (result.kind === 'unchanged' && stored) return stored;
    if (result.kind !== 'changed') {
      this.cache.delete(key);
      throw notFound('Task');
    }
    const tree = buildTree(result.rows);
    if (!tree) throw notFound('Task');
    // Concurrent reads of one key may store in any order: each entry's body matches its own version.
    const answer = { version: result.version, body: Buffer.from(JSON.stringify(tree)) };
    this.cache.set(key, answer);
    return answer;
  }
}
