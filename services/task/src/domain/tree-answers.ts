import { type Orm, Sql } from '@routinely/db';
import { notFound, type Owner } from '@routinely/platform';
import { subtreeSince } from '../db/tree-sql.js';
import type { AnswerCache, StoredAnswer } from './answer-cache.js';
import { buildTree } from './tree.js';

/**
 * `GET /tasks/{id}/tree` as JSON bytes. Building the answer (rows decoded, nested, stringified) cost 1-7 ms of
 * CPU per read for 101-500 tasks (issue 15); this keeps the last answer per owner and task and asks
 * PostgreSQL, in the one statement every read sends anyway, whether the subtree still has the fingerprint the
 * answer was built from (tree-sql.ts). Unchanged: the stored bytes go out, no row crosses the wire. Changed or
 * unknown: the same statement returned the rows, from the same snapshot as the new fingerprint.
 *
 * Consistency does not depend on anyone invalidating anything: a write committed before the read started, by
 * this instance or any other, by whatever code path, is in the read's snapshot and changes the fingerprint.
 */
export class TaskTreeAnswers {
  constructor(
    private readonly orm: Orm,
    private readonly cache: AnswerCache,
  ) {}

  async read(owner: Owner, id: string): Promise<StoredAnswer> {
    const key = `${owner.tenantId}:${owner.userId}:${id}`;
    const stored = this.cache.get(key);
    const result = await subtreeSince(Sql.pool(this.orm), owner, id, stored?.fingerprint ?? null);
    if (result.kind === 'missing') {
      this.cache.delete(key);
      throw notFound('Task');
    }
    if (result.kind === 'unchanged' && stored) return stored;
    if (result.kind === 'unchanged') throw new Error('subtree reported unchanged without a known fingerprint');
    const tree = buildTree(result.rows);
    if (!tree) throw notFound('Task');
    // Concurrent reads of one key may store in any order: each entry's body matches its own fingerprint.
    const answer = { fingerprint: result.fingerprint, body: Buffer.from(JSON.stringify(tree)) };
    this.cache.set(key, answer);
    return answer;
  }
}
