/**
 * Parent/children blocks (ADR 053): the units the solver places. A task with open children is a block of its
 * rolled-up duration laid out contiguously: its own duration first, then each open child's block in
 * `sort_order`, recursively. A task without open children is a unit of one. Placing a unit at a start places
 * every member at `start + offset`.
 */
import { type Bound, type Dependency, dependencySatisfied, dependencyStart, type SlotMs } from './solver-rules.js';

/** The task fields blocks are built from; `SolverTask` (solver-input.ts) extends it. */
export interface BlockTask {
  id: string;
  durationMin: number;
  /** 1 is the highest. */
  priority: number;
  deadline?: Date;
  earliestStart?: Date;
  status: string;
  /** A task whose parent is an open task of the same input is placed inside the parent's block. */
  parentId?: string;
  sortOrder: number;
}

export interface BlockMember<T extends BlockTask = BlockTask> {
  task: T;
  /** Milliseconds from the unit's start to the member's start. */
  offset: number;
  /** Length of the member's slot: its own duration plus its open descendants' (a parent's slot spans them). */
  span: number;
}

export interface Unit<T extends BlockTask = BlockTask> {
  /** The root task's id. */
  id: string;
  root: T;
  /** Root first, then the descendants in layout order (only members with time: span > 0). */
  members: BlockMember<T>[];
  duration: number;
  /** Latest end of the whole unit that keeps every member's deadline (+Infinity without one). */
  deadline: number;
  /** Earliest unit start that keeps every member's earliest start (-Infinity without one). */
  release: number;
  /** The highest priority (smallest number) of any member. */
  priority: number;
  /** Dependencies of members on tasks outside the unit. */
  external: { dep: Dependency; member: BlockMember<T> }[];
  /** A dependency between two members that the fixed layout breaks, or on a member without a slot. */
  blockedInside: boolean;
}

/** Never placed: finished tasks, and a routine's template ('recurring'; its occurrences are placed instead). */
export const CLOSED_STATUSES: ReadonlySet<string> = new Set(['done', 'skipped', 'cancelled', 'recurring']);
const MINUTE = 60_000;
const isOpen = (task: BlockTask) => !CLOSED_STATUSES.has(task.status);

export interface UnitPlan<T extends BlockTask = BlockTask> {
  units: Unit<T>[];
  /** Open tasks without time (`no_duration`), closed ones (`not_schedulable`), in input order. */
  idle: { taskId: string; reason: 'not_schedulable' | 'no_duration' }[];
  /** Tasks of units whose inside dependencies cannot hold (`blocked_by_dependency`). */
  blocked: string[];
}

/** Open children of every task, in `sort_order` (id as tie-breaker). */
export function childrenIndex<T extends BlockTask>(tasks: readonly T[]): Map<string, T[]> {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const children = new Map<string, T[]>();
  for (const task of tasks) {
    if (task.parentId === undefined || task.parentId === task.id || !byId.has(task.parentId) || !isOpen(task)) continue;
    const list = children.get(task.parentId) ?? [];
    list.push(task);
    children.set(task.parentId, list);
  }
  for (const list of children.values())
    list.sort((a, b) => a.sortOrder - b.sortOrder || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return children;
}

/**
 * The unit rooted at `root`: its open subtree laid out by the block rule. `seen` guards against parent cycles
 * in bad input (a task already laid out is not laid out again).
 */
export function unitRootedAt<T extends BlockTask>(
  root: T,
  children: ReadonlyMap<string, readonly T[]>,
  dependencies: readonly Dependency[],
  doneIds: ReadonlySet<string>,
  seen: Set<string> = new Set(),
): { unit: Unit<T>; zero: string[] } {
  const members: BlockMember<T>[] = [];
  const zero: string[] = [];
  const layout = (task: T, offset: number): number => {
    seen.add(task.id);
    const own = task.durationMin > 0 ? task.durationMin * MINUTE : 0;
    const member: BlockMember<T> = { task, offset, span: own };
    members.push(member);
    let cursor = offset + own;
    for (const child of children.get(task.id) ?? []) if (!seen.has(child.id)) cursor = layout(child, cursor);
    member.span = cursor - offset;
    return cursor;
  };
  const duration = layout(root, 0);
  const withTime = members.filter((m) => {
    if (m.span > 0) return true;
    zero.push(m.task.id);
    return false;
  });
  const byId = new Map(withTime.map((m) => [m.task.id, m]));
  const inside = new Set(members.map((m) => m.task.id));
  const external: Unit<T>['external'] = [];
  let blockedInside = false;
  let deadline = Number.POSITIVE_INFINITY;
  let release = Number.NEGATIVE_INFINITY;
  let priority = root.priority;
  for (const m of withTime) {
    if (m.task.deadline) deadline = Math.min(deadline, m.task.deadline.getTime() + duration - m.offset - m.span);
    if (m.task.earliestStart) release = Math.max(release, m.task.earliestStart.getTime() - m.offset);
    priority = Math.min(priority, m.task.priority);
  }
  const byTask = dependenciesByTask(dependencies);
  for (const dep of withTime.flatMap((m) => byTask.get(m.task.id) ?? [])) {
    const member = byId.get(dep.taskId);
    if (!member) continue;
    if (!inside.has(dep.dependsOnId)) {
      external.push({ dep, member });
      continue;
    }
    if (doneIds.has(dep.dependsOnId)) continue;
    const pred = byId.get(dep.dependsOnId);
    const slot = (m: BlockMember<T>): SlotMs => ({ start: m.offset, end: m.offset + m.span });
    if (!pred || !dependencySatisfied(dep, slot(pred), slot(member))) blockedInside = true;
  }
  const unit: Unit<T> = {
    id: root.id,
    root,
    members: withTime,
    duration,
    deadline,
    release,
    priority,
    external,
    blockedInside,
  };
  return { unit, zero };
}

const indexes = new WeakMap<readonly Dependency[], Map<string, Dependency[]>>();

/** Dependencies by successor id, built once per dependency list (units of a large run each look theirs up). */
function dependenciesByTask(dependencies: readonly Dependency[]): Map<string, Dependency[]> {
  let index = indexes.get(dependencies);
  if (!index) {
    index = new Map();
    for (const dep of dependencies) index.set(dep.taskId, [...(index.get(dep.taskId) ?? []), dep]);
    indexes.set(dependencies, index);
  }
  return index;
}

/**
 * Every task of a run as units: a root is an open task whose parent is not an open task of the input; its open
 * descendants are members. A closed task forms no block (its open children stand alone).
 */
export function planUnits<T extends BlockTask>(
  tasks: readonly T[],
  dependencies: readonly Dependency[],
  doneIds: ReadonlySet<string>,
): UnitPlan<T> {
  const byId = new Map(tasks.map((t) => [t.id, t]));
  const children = childrenIndex(tasks);
  const seen = new Set<string>();
  const units: Unit<T>[] = [];
  const zero = new Set<string>();
  const blocked: string[] = [];
  const isRoot = (t: T) => {
    const parent = t.parentId === undefined ? undefined : byId.get(t.parentId);
    return parent === undefined || parent.id === t.id || !isOpen(parent);
  };
  const add = (root: T) => {
    const { unit, zero: none } = unitRootedAt(root, children, dependencies, doneIds, seen);
    for (const id of none) zero.add(id);
    if (unit.duration <= 0) return;
    if (unit.blockedInside) blocked.push(...unit.members.map((m) => m.task.id));
    else units.push(unit);
  };
  for (const task of tasks) if (isOpen(task) && isRoot(task)) add(task);
  // Open tasks on a parent cycle (bad input) were reached from no root: each cycle gets one root.
  for (const task of tasks) if (isOpen(task) && !seen.has(task.id)) add(task);
  const idle: UnitPlan<T>['idle'] = [];
  for (const task of tasks)
    if (!isOpen(task)) idle.push({ taskId: task.id, reason: 'not_schedulable' });
    else if (zero.has(task.id)) idle.push({ taskId: task.id, reason: 'no_duration' });
  return { units, idle, blocked };
}

/**
 * The tightest lower bound on a unit's start and the constraint that sets it, or 'blocked' when a member's
 * predecessor outside the unit is neither done nor placed. Ties go to the most specific constraint
 * (dependency, earliest start, now, then the base bound).
 */
export function unitLowerBound(
  unit: Unit,
  placed: ReadonlyMap<string, SlotMs>,
  done: ReadonlySet<string>,
  base: { nowMs: number; windowStart: number; windowName?: string },
): Bound | 'blocked' {
  let bound: Bound = { at: base.windowStart, by: base.windowName ?? 'window_start' };
  const raise = (at: number, by: string) => {
    if (at >= bound.at && !(at === bound.at && bound.by.startsWith('dependency:'))) bound = { at, by };
  };
  raise(base.nowMs, 'now');
  if (unit.release > Number.NEGATIVE_INFINITY) raise(unit.release, 'earliest_start');
  for (const { dep, member } of unit.external) {
    if (done.has(dep.dependsOnId)) continue;
    const pred = placed.get(dep.dependsOnId);
    if (!pred) return 'blocked';
    raise(dependencyStart(dep, pred, member.span) - member.offset, `dependency:${dep.dependsOnId}`);
  }
  return bound;
}

/** Members' slots for a unit placed at `start` (epoch ms). */
export function memberSlots<T extends BlockTask>(
  unit: Unit<T>,
  start: number,
): { member: BlockMember<T>; slot: SlotMs }[] {
  return unit.members.map((member) => ({
    member,
    slot: { start: start + member.offset, end: start + member.offset + member.span },
  }));
}
