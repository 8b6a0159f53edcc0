import type { Task } from '../api/queries.js';

/**
 * The task tree's pure parts: which rows show (collapsed branches and filters), and where a keyboard or
 * drag move puts a task (a parent and a position among its siblings, the two writes the API has).
 */
export interface TreeRow {
  task: Task;
  hasChildren: boolean;
  /** Shown only as the way to a match of the filter. */
  context: boolean;
}

export interface TaskFilter {
  status: string;
  tag: string;
  priority: string;
}

export const NO_FILTER: TaskFilter = { status: '', tag: '', priority: '' };

const matches = (task: Task, f: TaskFilter) =>
  (!f.status || task.status === f.status) &&
  (!f.tag || task.tags.includes(f.tag)) &&
  (!f.priority || task.priority === Number(f.priority));

/**
 * The plain tasks of the tree: a routine's series, its occurrences and the steps under either live on the
 * Routines screen. The list is depth-first, so a routine's subtree is the run of deeper rows after it.
 */
export function plainTasks(tasks: readonly Task[]): Task[] {
  const plain: Task[] = [];
  let routineDepth = Number.POSITIVE_INFINITY;
  for (const t of tasks) {
    if (t.depth > routineDepth) continue;
    routineDepth = Number.POSITIVE_INFINITY;
    if (t.recurrence !== null || t.series_id !== null) {
      routineDepth = t.depth;
      continue;
    }
    plain.push(t);
  }
  return plain;
}

/**
 * The rows in depth-first order (the API's order): a collapsed task hides its subtree; with a filter, the
 * matches and the ancestors that lead to them.
 */
export function visibleRows(tasks: readonly Task[], collapsed: ReadonlySet<string>, filter: TaskFilter): TreeRow[] {
  const parents = new Set(tasks.map((t) => t.parent_task_id).filter((id): id is string => id !== null));
  const filtering = filter.status !== '' || filter.tag !== '' || filter.priority !== '';
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const wanted = new Set<string>();
  const leads = new Set<string>();
  if (filtering) {
    for (const t of tasks) {
      if (!matches(t, filter)) continue;
      wanted.add(t.id);
      for (let p = t.parent_task_id; p !== null; p = byId.get(p)?.parent_task_id ?? null) leads.add(p);
    }
  }
  const rows: TreeRow[] = [];
  let hiddenBelowDepth = Number.POSITIVE_INFINITY;
  for (const task of tasks) {
    if (task.depth > hiddenBelowDepth) continue;
    hiddenBelowDepth = Number.POSITIVE_INFINITY;
    const shown = !filtering || wanted.has(task.id) || leads.has(task.id);
    if (!shown) {
      hiddenBelowDepth = task.depth;
      continue;
    }
    rows.push({ task, hasChildren: parents.has(task.id), context: filtering && !wanted.has(task.id) });
    if (collapsed.has(task.id)) hiddenBelowDepth = task.depth;
  }
  return rows;
}

/** The siblings of a task (same parent) in their order. */
function siblingsOf(tasks: readonly Task[], parentId: string | null): Task[] {
  return tasks.filter((t) => t.parent_task_id === parentId).sort((a, b) => a.sort_order - b.sort_order);
}

export interface Placement {
  parentId: string | null;
  /** 0-based position among the new siblings (the moved task not counted). */
  position: number;
}

export type KeyMove = 'up' | 'down' | 'indent' | 'outdent';

/** Where Alt+arrow moves a task: up/down among its siblings, indent under the one above, outdent after its parent. */
export function keyPlacement(tasks: readonly Task[], task: Task, move: KeyMove): Placement | undefined {
  const siblings = siblingsOf(tasks, task.parent_task_id);
  const index = siblings.findIndex((s) => s.id === task.id);
  const byId = new Map(tasks.map((t) => [t.id, t]));
  switch (move) {
    case 'up':
      return index > 0 ? { parentId: task.parent_task_id, position: index - 1 } : undefined;
    case 'down':
      return index < siblings.length - 1 ? { parentId: task.parent_task_id, position: index + 1 } : undefined;
    case 'indent': {
      const above = siblings[index - 1];
      if (!above) return undefined;
      return { parentId: above.id, position: siblingsOf(tasks, above.id).length };
    }
    case 'outdent': {
      const parent = task.parent_task_id ? byId.get(task.parent_task_id) : undefined;
      if (!parent) return undefined;
      const parentSiblings = siblingsOf(tasks, parent.parent_task_id);
      return { parentId: parent.parent_task_id, position: parentSiblings.findIndex((s) => s.id === parent.id) + 1 };
    }
  }
}

/** Where a drop puts a task: before the target (its upper half) or as its last child (the lower half). */
export function dropPlacement(
  tasks: readonly Task[],
  moved: Task,
  target: Task,
  half: 'upper' | 'lower',
): Placement | undefined {
  if (moved.id === target.id) return undefined;
  // Never into its own subtree.
  const byId = new Map(tasks.map((t) => [t.id, t]));
  for (let p: string | null = target.id; p !== null; p = byId.get(p)?.parent_task_id ?? null) {
    if (p === moved.id) return undefined;
  }
  if (half === 'lower') {
    return { parentId: target.id, position: siblingsOf(tasks, target.id).filter((s) => s.id !== moved.id).length };
  }
  const siblings = siblingsOf(tasks, target.parent_task_id).filter((s) => s.id !== moved.id);
  return { parentId: target.parent_task_id, position: siblings.findIndex((s) => s.id === target.id) };
}

/** The depth a task and its subtree would reach under a new parent: more than 5 is refused by the API. */
export function subtreeHeight(tasks: readonly Task[], task: Task): number {
  let deepest = task.depth;
  const start = tasks.indexOf(task);
  for (let i = start + 1; i < tasks.length; i += 1) {
    const t = tasks[i];
    if (!t || t.depth <= task.depth) break;
    deepest = Math.max(deepest, t.depth);
  }
  return deepest - task.depth + 1;
}
