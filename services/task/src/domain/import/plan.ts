import { fieldErrors, strictParse } from '@routinely/platform';
import { v7 as uuidv7 } from 'uuid';
import { z } from 'zod';
import type { DependencyInsert } from '../../db/dependency-sql.js';
import type { RowError } from '../../db/import-job-sql.js';
import type { TaskInsert } from '../../db/task-sql.js';
import { taskCreateFields, toNewTask } from '../task-input.js';
import { MAX_DEPTH } from '../task-model.js';

/** One import row: the create fields plus batch-local references between rows. */
const importRowSchema = z.object({
  ...taskCreateFields,
  ref: z.string().trim().min(1).max(100).optional().describe('name other rows use in parent_ref / depends_on_refs'),
  parent_ref: z.string().trim().min(1).max(100).optional(),
  depends_on_refs: z.array(z.string().trim().min(1).max(100)).max(50).default([]),
});
type ImportRow = z.output<typeof importRowSchema>;

export interface ImportPlan {
  total: number;
  valid: number;
  invalid: number;
  errors: RowError[];
  /** Parents before children; empty unless every row is valid. */
  tasks: TaskInsert[];
  dependencies: DependencyInsert[];
}

/** What the plan needs from the store: the caller's existing tasks named as parents, and sibling counts. */
export interface PlanContext {
  existingDepth: (taskId: string) => number | undefined;
  nextSortOrder: (parentId: string | null) => number;
}

/**
 * Validates rows against the schema and each other (refs, depth, cycles) and, when all are valid, turns
 * them into inserts with ids, depths and positions decided.
 */
export function planImport(input: readonly unknown[], ctx: PlanContext): ImportPlan {
  const errors: RowError[] = [];
  const rows: (ImportRow | undefined)[] = input.map((raw, i) => {
    // As strict as POST /tasks: a key the row schema does not name (`series_id`, `status`, a typo) is an error
    // of the row, never silently dropped; a row lists at most MAX_PROBLEM_ERRORS of them, then how many more.
    const parsed = strictParse(importRowSchema, raw);
    if (parsed.success) return parsed.data;
    const { errors: lines, total } = fieldErrors(parsed.issues, [], importRowSchema);
    for (const { loc, msg } of lines) errors.push({ row: i + 1, loc, msg });
    if (total > lines.length)
      errors.push({ row: i + 1, loc: [], msg: `${total - lines.length} more errors in this row` });
    return undefined;
  });
  const fail = (i: number, loc: (string | number)[], msg: string) => errors.push({ row: i + 1, loc, msg });

  const byRef = new Map<string, number>();
  rows.forEach((row, i) => {
    if (!row?.ref) return;
    const first = byRef.get(row.ref);
    if (first !== undefined) fail(i, ['ref'], `duplicate ref (first used in row ${first + 1})`);
    else byRef.set(row.ref, i);
  });

  rows.forEach((row, i) => {
    if (!row) return;
    if (row.parent_ref !== undefined && row.parent_task_id) {
      fail(i, ['parent_ref'], 'give parent_ref or parent_task_id, not both');
    } else if (row.parent_ref !== undefined && !byRef.has(row.parent_ref)) {
      fail(i, ['parent_ref'], 'no row has this ref');
    } else if (row.parent_task_id && ctx.existingDepth(row.parent_task_id) === undefined) {
      fail(i, ['parent_task_id'], 'parent task not found');
    }
    row.depends_on_refs.forEach((ref, k) => {
      if (!byRef.has(ref)) fail(i, ['depends_on_refs', k], 'no row has this ref');
      else if (byRef.get(ref) === i) fail(i, ['depends_on_refs', k], 'a task cannot depend on itself');
    });
  });

  // Depth through parent_ref chains; a chain that returns to itself is a cycle.
  const depth = new Map<number, number | 'cycle'>();
  const depthOf = (i: number, path: Set<number>): number | 'cycle' => {
    const known = depth.get(i);
    if (known !== undefined) return known;
    const row = rows[i];
    if (!row) return 1;
    let d: number | 'cycle' = 1;
    const parent = row.parent_ref !== undefined ? byRef.get(row.parent_ref) : undefined;
    if (parent !== undefined) {
      if (path.has(parent)) d = 'cycle';
      else {
        const parentDepth = depthOf(parent, new Set([...path, i]));
        d = parentDepth === 'cycle' ? 'cycle' : parentDepth + 1;
      }
    } else if (row.parent_task_id) d = (ctx.existingDepth(row.parent_task_id) ?? 0) + 1;
    depth.set(i, d);
    return d;
  };
  rows.forEach((row, i) => {
    if (!row) return;
    const d = depthOf(i, new Set([i]));
    if (d === 'cycle') fail(i, ['parent_ref'], 'parent_ref forms a cycle');
    else if (d > MAX_DEPTH)
      fail(i, [row.parent_ref ? 'parent_ref' : 'parent_task_id'], `nests deeper than ${MAX_DEPTH} levels`);
  });

  // Rows whose depends_on_refs reach back to themselves form a dependency cycle.
  const reaches = (from: number, target: number, seen: Set<number>): boolean =>
    (rows[from]?.depends_on_refs ?? []).some((ref) => {
      const next = byRef.get(ref);
      if (next === undefined || seen.has(next)) return false;
      if (next === target) return true;
      seen.add(next);
      return reaches(next, target, seen);
    });
  rows.forEach((row, i) => {
    if (row?.depends_on_refs.some((ref) => byRef.get(ref) !== i) && reaches(i, i, new Set()))
      fail(i, ['depends_on_refs'], 'depends_on_refs form a cycle');
  });

  errors.sort((a, b) => a.row - b.row);
  const invalidRows = new Set(errors.map((e) => e.row));
  const plan: ImportPlan = {
    total: input.length,
    valid: input.length - invalidRows.size,
    invalid: invalidRows.size,
    errors,
    tasks: [],
    dependencies: [],
  };
  if (errors.length > 0) return plan;

  // Every row is valid here: each has a parsed body, its refs resolve and its depth is a number.
  const planned = rows.flatMap((row, i) => (row ? [{ row, i, id: uuidv7(), depth: depth.get(i) as number }] : []));
  const idOfRow = new Map(planned.map((p) => [p.i, p.id]));
  const idByRef = new Map([...byRef].map(([ref, i]) => [ref, idOfRow.get(i)]));
  const position = new Map<string, number>();
  for (const { row, id, depth: level } of planned.sort((a, b) => a.depth - b.depth)) {
    const parentId = row.parent_ref !== undefined ? (idByRef.get(row.parent_ref) ?? null) : row.parent_task_id;
    const key = parentId ?? 'root';
    const base = position.get(key) ?? (row.parent_ref !== undefined ? 0 : ctx.nextSortOrder(parentId));
    position.set(key, base + 1);
    plan.tasks.push({
      ...toNewTask({ ...row, parent_task_id: parentId }),
      id,
      depth: level,
      sort_order: base,
    });
    for (const ref of row.depends_on_refs) {
      const dependsOnId = idByRef.get(ref);
      if (dependsOnId === undefined) continue;
      plan.dependencies.push({
        id: uuidv7(),
        task_id: id,
        depends_on_id: dependsOnId,
        dep_type: 'finish_to_start',
        lag_min: 0,
      });
    }
  }
  return plan;
}
