/**
 * The contract's hard rules as a checker for slots someone else proposed: a language model's pick (re-checked
 * before it is written) or a user's override (whose breaches of working hours and no-go windows become
 * warnings). Rules are checked in the contract's order; each list or bound that is not given is not checked.
 */
import { findContainingInterval, type Interval } from './intervals.js';
import { memberSlots } from './solver-blocks.js';
import { blockOf } from './solver-candidates.js';
import { doneIdsOf, type FixedSlot, roundUpToFiveMinutes, type SolverInput, type SolverTask } from './solver-input.js';
import { type Dependency, dependencySatisfied } from './solver-rules.js';

export type HardRule =
  | 'schedulable'
  | 'window'
  | 'now'
  | 'working_hours'
  | 'no_go'
  | 'busy'
  | 'free_time'
  | 'earliest_start'
  | 'deadline'
  | 'dependency';

export interface RuleBreach {
  taskId: string;
  rule: HardRule;
  /** Safe to show: names tasks by id and times as ISO instants. */
  detail: string;
}

export interface PlacementRules {
  window?: Interval;
  /** Rounded up to 5 minutes, as the solver does. */
  now?: Date;
  /** Working-hours intervals, touching ones kept apart: the slot must lie inside one. */
  workingHours?: readonly Interval[];
  noGo?: readonly Interval[];
  /** Time the slot must not overlap (busy events, other tasks' slots, earlier placements). */
  busy?: readonly Interval[];
  /** Free time as the solver takes it (working time minus no-go minus busy): the slot must lie inside one. */
  free?: readonly Interval[];
  dependencies?: readonly Dependency[];
  /** Slots of other tasks, read as predecessors of dependencies. */
  slots?: readonly FixedSlot[];
  /** Done tasks: they satisfy any dependency. */
  doneTaskIds?: readonly string[] | ReadonlySet<string>;
}

const iso = (ms: number) => new Date(ms).toISOString();
const overlapping = (list: readonly Interval[], slot: Interval) =>
  list.find((i) => i.start.getTime() < slot.end.getTime() && slot.start.getTime() < i.end.getTime());

/** Every hard rule the slot breaks for `task`, in the contract's order (empty when it keeps them all). */
export function checkPlacement(
  task: Pick<SolverTask, 'id' | 'earliestStart' | 'deadline'>,
  slot: Interval,
  rules: PlacementRules,
): RuleBreach[] {
  const out: RuleBreach[] = [];
  const breach = (rule: HardRule, detail: string) => out.push({ taskId: task.id, rule, detail });
  const start = slot.start.getTime();
  const end = slot.end.getTime();
  const { window } = rules;
  if (window && (start < window.start.getTime() || end > window.end.getTime()))
    breach('window', `the slot is not inside the window ${iso(window.start.getTime())}..${iso(window.end.getTime())}`);
  if (rules.now && start < roundUpToFiveMinutes(rules.now))
    breach('now', `the slot starts before ${iso(roundUpToFiveMinutes(rules.now))}`);
  if (rules.workingHours && findContainingInterval(rules.workingHours, slot) < 0)
    breach('working_hours', 'the slot is not inside one working-hours interval');
  const noGo = rules.noGo && overlapping(rules.noGo, slot);
  if (noGo) breach('no_go', `the slot overlaps the no-go window from ${iso(noGo.start.getTime())}`);
  const busy = rules.busy && overlapping(rules.busy, slot);
  if (busy) breach('busy', `the slot overlaps busy time from ${iso(busy.start.getTime())}`);
  if (rules.free && findContainingInterval(rules.free, slot) < 0)
    breach('free_time', 'the slot is not inside one interval of free working time');
  if (task.earliestStart && start < task.earliestStart.getTime())
    breach('earliest_start', `the slot starts before the earliest start ${task.earliestStart.toISOString()}`);
  if (task.deadline && end > task.deadline.getTime())
    breach('deadline', `the slot ends after the deadline ${task.deadline.toISOString()}`);
  const done = rules.doneTaskIds instanceof Set ? rules.doneTaskIds : new Set(rules.doneTaskIds ?? []);
  const preds = new Map((rules.slots ?? []).map((s) => [s.id, { start: s.start.getTime(), end: s.end.getTime() }]));
  for (const dep of rules.dependencies ?? []) {
    if (dep.taskId !== task.id || done.has(dep.dependsOnId)) continue;
    const pred = preds.get(dep.dependsOnId);
    if (!pred) breach('dependency', `predecessor ${dep.dependsOnId} has no slot`);
    else if (!dependencySatisfied(dep, pred, { start, end }))
      breach('dependency', `${dep.type} on ${dep.dependsOnId} (lag ${dep.lagMin} min) does not hold`);
  }
  return out;
}

export interface ProposalCheck {
  /** The slots the proposal gives: the task's, then its open descendants' (block layout). */
  slots: FixedSlot[];
  breaches: RuleBreach[];
}

/**
 * A proposed start for a task (for a parent: its block) checked against every hard rule of a solver input:
 * window, now, one free interval, clear of `taken` (earlier placements of the run: busy time and
 * predecessors), each member's earliest start, deadline and dependencies.
 */
export function checkProposal(
  input: SolverInput,
  taskId: string,
  start: Date,
  taken: readonly FixedSlot[] = [],
): ProposalCheck {
  const task = input.tasks.find((t) => t.id === taskId);
  if (!task) throw new Error(`checkProposal: task ${taskId} is not in the input`);
  const unit = blockOf(task, input);
  if (!unit)
    return {
      slots: [],
      breaches: [{ taskId, rule: 'schedulable', detail: 'the task is closed, has no duration or a blocked block' }],
    };
  const slots = memberSlots(unit, start.getTime()).map(({ member, slot }) => ({
    id: member.task.id,
    start: new Date(slot.start),
    end: new Date(slot.end),
  }));
  const shared: PlacementRules = {
    dependencies: input.dependencies,
    slots: [...(input.fixed ?? []), ...taken, ...slots],
    doneTaskIds: doneIdsOf(input),
  };
  const breaches: RuleBreach[] = [];
  slots.forEach((slot, i) => {
    const member = unit.members[i]?.task ?? task;
    const own = i === 0 ? { ...shared, window: input.window, now: input.now, free: input.free, busy: taken } : shared;
    breaches.push(...checkPlacement(member, slot, own));
  });
  return { slots, breaches };
}
