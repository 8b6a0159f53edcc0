import { type TaskRead, type TaskRow, type TaskTextRow, toTaskRead } from './task-model.js';

export type TaskTreeNode = TaskRead & { children: TaskTreeNode[]; rolled_up_duration_min: number };

/**
 * Nests rows that come parents-first (as the recursive query orders them) under the first row, and rolls
 * durations up: a node's own duration plus its children's roll-ups.
 */
export function buildTree(rows: readonly (TaskRow | TaskTextRow)[]): TaskTreeNode | undefined {
  const byId = new Map<string, TaskTreeNode>();
  let root: TaskTreeNode | undefined;
  for (const row of rows) {
    // Added to the read object rather than spread into a copy: same keys in the same order, one object less.
    const node: TaskTreeNode = Object.assign(toTaskRead(row), {
      children: [] as TaskTreeNode[],
      rolled_up_duration_min: row.duration_min,
    });
    byId.set(row.id, node);
    if (!root) root = node;
    else if (row.parent_task_id) byId.get(row.parent_task_id)?.children.push(node);
  }
  // Deepest first, so every child's roll-up is final before its parent adds it.
  for (const row of rows.slice(1).reverse()) {
    const parent = row.parent_task_id ? byId.get(row.parent_task_id) : undefined;
    const node = byId.get(row.id);
    if (parent && node) parent.rolled_up_duration_min += node.rolled_up_duration_min;
  }
  return root;
}
